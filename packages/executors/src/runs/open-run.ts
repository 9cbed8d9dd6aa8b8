import type { ExecutorRun } from "../executor/executor-run";
import type { RunState } from "../executor/run-state";
import { encodeValue } from "./json-value";
import { type RestoredRun, restoreRunState } from "./restore-run-state";
import { RunRecorder, ownerId } from "./run-recorder";
import type { JsonObject, RunStore } from "./run-store";
import { RunNotFoundError, RunStoreError } from "./run-store-errors";

// Opening a run's record: creating it for a new run, claiming and reading it for a resume. @internal

/**
 * Records a new run (status `running`, leased to this process) and returns its recorder at once:
 * the run starts while the record is created, and its first write waits for it (a failure, such as
 * a run id that exists already, fails the run).
 */
export async function openNewRun(store: RunStore, state: RunState, leaseMs: number, run: ExecutorRun): Promise<RunRecorder> {
  const owner = ownerId();
  const inputs = encodeValue(state.inputs, "inputs") as JsonObject;
  const recorder = new RunRecorder(store, state.runId, owner, leaseMs, 0, run.recorderHooks());
  recorder.first(() =>
    guard("createRun", state.runId, () =>
      store.createRun({
        runId: state.runId,
        ...(state.threadId === undefined ? {} : { threadId: state.threadId }),
        inputs,
        status: "running",
        owner,
        leaseMs,
        at: Date.now(),
      }),
    ),
  );
  return recorder;
}

/**
 * Reads a run to resume: a finished run comes back with its output (nothing is claimed); any other
 * run is claimed for `owner` (compare-and-set on its lease) and rebuilt from its events.
 */
export async function openResumedRun(store: RunStore, runId: string, owner: string, leaseMs: number): Promise<RestoredRun> {
  const info = await guard("getRun", runId, () => store.getRun(runId));
  if (info === undefined) throw new RunNotFoundError({ operation: "resume", runId });
  const readEvents = () => guard("readEvents", runId, () => store.readEvents(runId));
  if (info.status === "finished") return restoreRunState(info, await readEvents());
  const claimed = await guard("claimRun", runId, () => store.claimRun(runId, { owner, leaseMs, at: Date.now() }));
  const restored = restoreRunState(claimed, await readEvents());
  if (restored.output !== undefined) {
    // It finished between the read and the claim: give the lease back as it was.
    await store.write(runId, { owner, leaseMs, events: [], update: { status: "finished", release: true }, at: Date.now() });
  }
  return restored;
}

/** Gives up a claimed run whose resume was unsubscribed before it started. */
export function releaseAsCancelled(store: RunStore, runId: string, owner: string, leaseMs: number): void {
  store
    .write(runId, { owner, leaseMs, events: [], update: { status: "cancelled", release: true }, at: Date.now() })
    .catch(() => undefined);
}

/** Runs a store call; an error that is not a `RunStoreError` (a custom store's) is wrapped in one naming the run. */
async function guard<T>(operation: string, runId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (cause) {
    if (RunStoreError.isInstance(cause)) throw cause;
    throw new RunStoreError({ operation, runId, message: `Run "${runId}": the store's ${operation} failed: ${(cause as Error)?.message ?? String(cause)}`, cause });
  }
}
