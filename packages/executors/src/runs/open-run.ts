import type { ExecutorRun } from "../executor/executor-run";
import type { RunState } from "../executor/run-state";
import { encodeValue } from "./json-value";
import { type RestoredRun, restoreRunState } from "./restore-run-state";
import { RunRecorder, ownerId } from "./run-recorder";
import type { ForkOf, JsonObject, RunInfo, RunStore, RunUpdate } from "./run-store";
import { RunNotFoundError, RunStoreError } from "./run-store-errors";
import { guarded, withStoreTimeout } from "./with-store-timeout";
import { AbortError, InvalidArgumentError, describeThrown } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { checkDecisions } from "../executor/approvals";
import type { Decision } from "../executor/events";
import { transition } from "../executor/run-state";
import { errorMessage } from "../executor/run-helpers";

// Opening a run's record: creating it for a new run, claiming and reading it for a resume. @internal

/**
 * Records a new run (status `running`, leased to this process) and returns its recorder at once:
 * the run starts while the record is created, and its first write waits for it (a failure, such as
 * a run id that exists already, fails the run).
 */
export async function openNewRun(store: RunStore, state: RunState, leaseMs: number, run: ExecutorRun, coalesceTokens = true, storeTimeoutMs = 10_000): Promise<RunRecorder> {
  const owner = ownerId();
  const inputs = encodeValue(state.inputs, "inputs") as JsonObject;
  const recorder = new RunRecorder(store, state.runId, owner, leaseMs, 0, run.recorderHooks(), 0, coalesceTokens, storeTimeoutMs);
  recorder.epoch = 1; // a new run's first epoch (see RunInfo.epoch)
  recorder.first(() =>
    guarded("createRun", state.runId, () =>
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

/** A run opened for `resume`: restored from its record, claimed unless it only re-emits its output or pause. */
export interface OpenedRun extends RestoredRun {
  /** Whether this process took the run's lease (and so must run it). */
  claimed: boolean;
  /** The decisions to apply: recorded ones not yet carried out, plus the checked new ones. */
  decisions: Record<string, Decision>;
  /** The decisions this resume brought (recorded as the segment starts). */
  newDecisions: Record<string, Decision> | undefined;
  /** The fencing token this claim took (undefined from a store without epochs, or when not claimed). */
  epoch: number | undefined;
  /** When the claim was made (epoch ms): the lease runs from then. */
  claimedAt: number;
  /**
   * Undoes the opening when the call's signal aborted (or its subscriber unsubscribed) while the
   * run was claimed (or the fork made) and before it went on: a resumed run is given back as it was before the claim (see
   * {@link claimGivenBack}), a fork's new run is deleted. Never rejects: what cannot be undone is
   * left for the lease to lapse. Nothing to do when the run was not claimed.
   */
  giveBack(reason: unknown): Promise<void>;
}

/**
 * Reads a run to resume. A finished run comes back with its output, a paused one (without
 * decisions) with its pause: nothing is claimed. Any other run is claimed for `owner`
 * (compare-and-set on its lease) and rebuilt from its events; `decisions` are checked against the
 * interrupts it waits for. A run whose answer is recorded but which did not end gets the rest of
 * its end (`completeEnding`: the conversation memory's messages) under the claim, then is given
 * back `finished`. A refused resume leaves the run as it was, and so does one whose
 * `signal` aborts while the claim is in flight, or while the memory completes its end: the claim
 * is given back and the call rejects with `AbortError` (see docs/runs.md, "Status and leases").
 */
export async function openResumedRun(
  store: RunStore,
  runId: string,
  owner: string,
  leaseMs: number,
  given: unknown,
  toolsByName: ReadonlyMap<string, StructuredToolInterface>,
  storeTimeoutMs = 10_000,
  signal?: AbortSignal,
  completeEnding?: (restored: RestoredRun, startedAt: number, signal: AbortSignal | undefined) => Promise<void>,
): Promise<OpenedRun> {
  const guard = <T>(operation: string, id: string, call: () => Promise<T>): Promise<T> => guarded(operation, id, () => withStoreTimeout(call(), storeTimeoutMs, operation, id));
  const info = await guard("getRun", runId, () => store.getRun(runId));
  if (info === undefined) throw new RunNotFoundError({ operation: "resume", runId });
  const readEvents = () => guard("readEvents", runId, () => store.readEvents(runId));
  const withDecisions = given !== undefined;
  const unclaimed = (restored: RestoredRun): OpenedRun => ({ ...restored, claimed: false, decisions: {}, newDecisions: undefined, epoch: undefined, claimedAt: 0, giveBack: async () => undefined });
  if (withDecisions && info.status !== "interrupted") throw noPause(runId, info.status);
  if (info.status === "finished" || (info.status === "interrupted" && !withDecisions)) return unclaimed(restoreRunState(info, await readEvents()));

  const claimedAt = Date.now();
  // The events are read while the claim is made (one round trip less). The claim returns the run
  // as it was when it took the lease, and nothing is written after that but by this claim's
  // owner: when the read has fewer events than the claim saw, a write landed between the two,
  // and the events are read again. A run another process holds a live lease on is claimed first
  // (the claim will most likely be refused with `RunBusyError`: no read for nothing).
  const held = info.status === "running" && info.owner !== undefined && info.owner !== owner && (info.leaseExpiresAt ?? 0) > claimedAt;
  const reading = held ? undefined : readEvents();
  // Handled now: a read that fails before the claim returns is not an unhandled rejection (its
  // error is thrown below, or dropped with the claim's).
  reading?.catch(() => undefined);
  const claimed = await guard("claimRun", runId, () => store.claimRun(runId, { owner, leaseMs, at: claimedAt }));
  const epoch = typeof claimed.epoch === "number" ? claimed.epoch : undefined;
  const giveBack = (update: RunUpdate) =>
    guard("write", runId, () => store.write(runId, { owner, leaseMs, events: [], update: { ...update, release: true }, at: Date.now(), ...(epoch === undefined ? {} : { epoch }) }));
  const giveBackAsBefore = (why: string): Promise<void> => giveBack(claimGivenBack(claimed, why)).then(noop, noop);
  if (signal?.aborted) {
    // Aborted while the claim was in flight: the run is left as it was (the read is dropped).
    await giveBackAsBefore(abortedResume(signal.reason));
    throw new AbortError({ reason: signal.reason });
  }
  let restored: RestoredRun;
  try {
    const read = await (reading ?? readEvents());
    restored = restoreRunState(claimed, read.length === claimed.eventCount ? read : await readEvents());
  } catch (error) {
    await giveBackAsBefore(`a resume could not read its record: ${messageOf(error)}`);
    throw error;
  }
  const forkOf = claimed.forkOf ?? info.forkOf;
  if (forkOf !== undefined && restored.lastSeq === 0) {
    // A fork whose process stopped between creating its run and writing its copy: it has no
    // record to go on from (run from its inputs, it would ask the model again for the copied
    // turns). It is removed, as a fork whose copy could not be written is (docs/runs.md, "Fork").
    throw await removeUnmadeFork(runId, forkOf, () => guard("deleteRun", runId, () => store.deleteRun(runId)), giveBackAsBefore);
  }
  if (restored.output !== undefined && completeEnding !== undefined) {
    // Its answer is recorded but the run did not end (its process stopped before the conversation
    // memory had its messages, or the memory refused them): what is left of its end is done under
    // this claim, with the recorded answer (docs/memory.md).
    try {
      await completeEnding(restored, claimed.createdAt, signal);
    } catch (error) {
      if (signal?.aborted) {
        // Aborted while the memory was at it (a call of it that never settles is not waited for):
        // the run is left as it was, free to resume at once; a later resume asks the memory again.
        await giveBackAsBefore(abortedResume(signal.reason));
        throw new AbortError({ reason: signal.reason });
      }
      // Worded as a run's end refused by its memory is (`errorMessage`).
      await giveBack({ status: "failed", error: `the conversation memory refused the run's messages: ${errorMessage(error)}` }).catch(noop);
      throw error;
    }
  }
  if (restored.output !== undefined || (restored.pause !== undefined && !withDecisions)) {
    // It finished, or paused, between the read and the claim (or its end was completed above):
    // give the lease back as it was.
    await giveBack({ status: restored.output !== undefined ? "finished" : "interrupted" });
    if (withDecisions) throw noPause(runId, "finished");
    return unclaimed(restored);
  }
  let newDecisions: Record<string, Decision> | undefined;
  if (withDecisions) {
    try {
      if (restored.pause === undefined) throw noPause(runId, claimed.status);
      newDecisions = checkDecisions(runId, given, restored.state.interrupts, toolsByName);
    } catch (error) {
      await giveBackAsBefore(`a resume was refused: ${messageOf(error)}`);
      throw error;
    }
    transition(restored.state, { type: "resumed" });
  }
  const undo = (reason: unknown) => giveBackAsBefore(abortedResume(reason));
  return { ...restored, claimed: true, decisions: { ...restored.decisions, ...newDecisions }, newDecisions, epoch, claimedAt, giveBack: undo };
}

/**
 * The write that gives a claim back and leaves the run as `before` (the run as `claimRun` found
 * it) had it: its status, and its `error` (which the claim cleared). A run that was `running`
 * under a lapsed lease (its process stopped) cannot be given back as `running` (a write that
 * releases the lease takes another status): it becomes `cancelled`, `why` as its error. Either way
 * the lease is free, and anyone can resume the run at once.
 */
function claimGivenBack(before: Pick<RunInfo, "status" | "error">, why: string): RunUpdate {
  // `why` may end a sentence of its own (an error's message): one period ends the whole.
  if (before.status === "running") return { status: "cancelled", error: `The run had been left running by a process that stopped; ${why.replace(/\.+$/, "")}.` };
  return { status: before.status, ...(before.error === undefined ? {} : { error: before.error }) };
}

/**
 * The error a resume of an unmade fork (a `forkOf` run without a single event) rejects with, once
 * the run is deleted (the claim fenced the process that made it, should it come back), or, when
 * it cannot be, given back as `cancelled` with that error.
 */
async function removeUnmadeFork(runId: string, forkOf: ForkOf, remove: () => Promise<boolean>, giveBack: (why: string) => Promise<void>): Promise<RunStoreError> {
  const why = `run "${runId}" is a fork of run "${forkOf.runId}" (at iteration ${forkOf.iteration}) whose copy of the source's record was never written: the process that made it stopped between creating the run and writing the copy. Nothing of it ran`;
  try {
    await remove();
    return new RunStoreError({ operation: "resume", runId, reason: "corrupt", message: `AgentExecutor.resume: ${why}; it has been deleted: fork run "${forkOf.runId}" again.` });
  } catch (error) {
    await giveBack(`${why}.`);
    return new RunStoreError({
      operation: "resume",
      runId,
      reason: "corrupt",
      message: `AgentExecutor.resume: ${why}, and deleting it failed (${messageOf(error)}): delete it with store.deleteRun("${runId}") and fork run "${forkOf.runId}" again.`,
      cause: error,
    });
  }
}

/** Why a claim is given back after the call's signal aborted, as a run's `error` says it. */
function abortedResume(reason: unknown): string {
  return `a resume of it was aborted before it went on (${messageOf(reason)})`;
}

function messageOf(error: unknown): string {
  return error === undefined || error === null ? "no reason given" : describeThrown(error);
}

function noop(): void {}

function noPause(runId: string, status: string): InvalidArgumentError {
  return new InvalidArgumentError({
    argument: "decisions",
    value: status,
    message: `AgentExecutor.resume: run "${runId}" is ${status}, not paused for approval: there is nothing to decide (a pause is decided once).`,
  });
}
