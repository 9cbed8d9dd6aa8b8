import { AbortError, InvalidArgumentError, STEP_METADATA_KEY, getIdempotencyKey, nextTurn } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Observable, catchError, from, fromEvent, lastValueFrom, map, race, switchMap, tap, throwError, timer } from "rxjs";
import type { AgentExecutor } from "./agent-executor";
import type { AgentStreamEvent, Decision, Interrupt, StopReason } from "./events";
import { SubRunDepthError } from "../handoff/sub-run-depth-error";
import { SubRunInterruptedError } from "../handoff/sub-run-interrupted-error";
import type { RunStatus } from "../runs/run-store";
import { RunBusyError, RunNotFoundError, RunStoreError } from "../runs/run-store-errors";
import { type RunObservable, runDisplaySource } from "./run-observable";
import { SUB_RUN_CALL_KEY, SUB_RUN_DECISIONS_KEY, SUB_RUN_KEY, SUB_RUN_MODEL_CALLS_KEY, SUB_RUN_PATH_KEY, type SubRunModelCalls, subRunLink, subRunPathOf } from "./sub-run";

/** How a tool runs its executor as a sub-run (see {@link callSubRun}). @internal */
export interface CallSubRunOptions {
  /** The tool's name: the sub-run's name in `subRun` paths, and in `SubRunInterruptedError`. */
  tool: string;
  /** The tool as its errors name it, e.g. `handoff "transfer_to_billing"` or `asTool "researcher"`. */
  label: string;
  /**
   * What the sub-run's id starts with, before `:` and the tool call's idempotency key (`handoff`,
   * `as-tool`): a retry of the call (same key) finds the same run.
   */
  runIdPrefix: string;
  /** How deep the sub-run may be (the top run's own tools start sub-runs at depth 1): a deeper one is not started. */
  maxDepth: number;
}

/** What a sub-run answered (see {@link callSubRun}). @internal */
export interface SubRunAnswer {
  /** Its answer ("" when it gave no `output` event). */
  output: string;
  /** Why it ended, when it gave an `output` event. */
  stopReason: StopReason | undefined;
}

/**
 * Runs `executor` as the sub-run of the tool call `config` belongs to (`handoff`, `asTool`) and
 * gives its answer: its events go up to the calling run (`subRunLink`). A sub-run that would be
 * nested deeper than `maxDepth` is not started: the call fails with a `SubRunDepthError`. Each
 * start waits for the event loop to turn once, so that a caller's timers (an abort,
 * `maxExecutionTime`) can fire between the sub-runs of a chain whose models answer at once. With a
 * tool-call key, the sub-run's id is `<runIdPrefix>:<key>`, and a recorded run of that id (a
 * resumed caller's retry) is resumed rather than started again, with the decisions a person gave
 * on its pause when the calling run passes some (`SUB_RUN_DECISIONS_KEY`); a recorded run that
 * had ended (finished, or paused and given no decisions) runs nothing and gives its recorded end,
 * which is not sent up again: the calling run has it already. A sub-run that pauses has no answer:
 * the call fails with a `SubRunInterruptedError`, `resumable` when a retry finds the run again (the
 * executor has a store, the call a key), which pauses a recorded calling run instead (see
 * docs/agent-types.md, "Pauses inside a handoff"). @internal
 */
export async function callSubRun(executor: AgentExecutor, inputs: Record<string, unknown>, config: RunnableConfig | undefined, options: CallSubRunOptions): Promise<SubRunAnswer> {
  const path = [...subRunPathOf(config), options.tool];
  if (path.length > options.maxDepth) throw new SubRunDepthError({ label: options.label, path, maxDepth: options.maxDepth });
  await nextTurn();
  const link = subRunLink(config, options.tool);
  let output: Extract<AgentStreamEvent, { type: "output" }> | undefined;
  const waitingOn: string[] = [];
  const interrupts: Interrupt[] = [];
  // A run that runs (started, or resumed and claimed) begins with its `start`; a recorded one that
  // had ended gives only its end again (its pause, its output): the calling run recorded it already.
  let running = false;
  const run = subRun(executor, inputs, config, link.modelCalls, path, options);
  await lastValueFrom(
    run.events.pipe(
      tap((event) => {
        if (event.subRun === undefined && event.type === "start") running = true;
        if (event.subRun === undefined && event.type === "output") output = event;
        if (event.subRun === undefined && event.type === "interrupt") {
          waitingOn.push(...event.interrupts.map((interrupt) => interrupt.tool));
          interrupts.push(...event.interrupts);
        }
        if (running) link.forward(event);
      }),
    ),
  );
  // A paused run has no answer: "" would let the caller go on as if it had answered. A recorded
  // calling run pauses with it instead (when the sub-run can be resumed: `resumable`).
  if (output?.stopReason === "interrupted") throw new SubRunInterruptedError({ tool: options.tool, runId: output.runId, waitingOn, interrupts, resumable: run.resumable() });
  return { output: output?.output ?? "", stopReason: output?.stopReason };
}

/** How many times a retry waits for the lease of a sub-run another process holds (see {@link untilLeaseLapses}). */
const LEASE_WAITS = 3;
/** The longest of those waits, in ms. */
const LONGEST_LEASE_WAIT_MS = 60_000;
/** How long after a lease's reported expiry a retry claims the run again, in ms (clocks differ a little). */
const LEASE_MARGIN_MS = 50;

/**
 * The sub-run's events: resumed (with the calling run's decisions, if any) when a run of its id is
 * recorded, else started. `resumable` says, once it ended, whether it is recorded where a retry
 * finds it. A sub-run another process holds (`RunBusyError`: the retry of a caller that stopped,
 * which left its sub-run leased) is resumed once its lease lapses; decisions the sub-run refuses
 * because it is not paused any more are settled by its status: a finished run gives its recorded
 * answer, a running or queued one goes on (once free) with what it recorded, a cancelled or failed
 * one fails the call (see docs/agent-types.md, "Pauses inside a handoff").
 */
function subRun(
  executor: AgentExecutor,
  inputs: Record<string, unknown>,
  config: RunnableConfig | undefined,
  modelCalls: SubRunModelCalls | undefined,
  path: readonly string[],
  { label, runIdPrefix }: CallSubRunOptions,
): { events: Observable<AgentStreamEvent>; resumable: () => boolean } {
  const child = childConfig(config, modelCalls, path);
  const key = getIdempotencyKey(config);
  if (key === undefined) return { events: executor.stream(inputs, child), resumable: () => false };
  const runId = `${runIdPrefix}:${key}`;
  const decisions = subRunDecisionsOf(config);
  let recorded = true;
  const fresh = (): Observable<AgentStreamEvent> => executor.stream(inputs, { ...child, runId });
  // Waits for a lease another process holds, then tries again from the top (with the decisions: the
  // run may be paused again by then), at most `LEASE_WAITS` times.
  const afterLease = (busy: RunBusyError, waits: number): Observable<AgentStreamEvent> =>
    untilLeaseLapses(busy, waits, config?.signal, label, runId).pipe(switchMap(() => attempt(waits + 1)));
  const withoutDecisions = (waits: number): Observable<AgentStreamEvent> =>
    (executor.resume(runId, child) as Observable<AgentStreamEvent>).pipe(catchError((error: unknown) => (RunBusyError.isInstance(error) ? afterLease(error, waits) : throwError(() => error))));
  const attempt = (waits: number): Observable<AgentStreamEvent> => {
    const resumed = decisions === undefined ? executor.resume(runId, child) : executor.resume(runId, { ...child, decisions });
    return (resumed as Observable<AgentStreamEvent>).pipe(
      catchError((error: unknown) => {
        // Not recorded (first call; or recorded in another process's in-process store, when a
        // pause's decisions come to this one: it is started again, and asks again, see
        // docs/agent-types.md), or the executor records nowhere: start it.
        if (RunNotFoundError.isInstance(error)) return fresh();
        if (InvalidArgumentError.isInstance(error) && error.argument === "store") {
          recorded = false;
          return fresh();
        }
        if (RunBusyError.isInstance(error)) return afterLease(error, waits);
        if (decisions !== undefined && InvalidArgumentError.isInstance(error) && error.argument === "decisions") {
          // Refused: not paused any more, or decisions its tools refuse. Its status says which.
          return from(statusOf(resumed, runId)).pipe(
            switchMap((status) => {
              if (status === "gone") return fresh(); // deleted meanwhile: as if never recorded
              if (status === "finished" || status === "running" || status === "queued") return withoutDecisions(waits);
              if (status === "cancelled" || status === "failed") return throwError(() => endedSubRun(label, runId, status, error));
              return throwError(() => refusedDecisions(label, runId, error));
            }),
          );
        }
        return throwError(() => error);
      }),
    );
  };
  return { events: attempt(0), resumable: () => recorded };
}

/**
 * The status of run `runId` in the store `resumed` resumes it from: `"gone"` when it is not
 * recorded there any more, `"unknown"` when that store is not known.
 */
async function statusOf(resumed: RunObservable<unknown, unknown>, runId: string): Promise<RunStatus | "gone" | "unknown"> {
  const store = runDisplaySource(resumed)?.store;
  if (store === undefined) return "unknown";
  return (await store.getRun(runId))?.status ?? "gone";
}

/**
 * Emits once the lease `busy` reports has lapsed (plus a small margin; at most
 * `LONGEST_LEASE_WAIT_MS`), or errors: with an `AbortError` when `signal` aborts meanwhile, with a
 * `RunStoreError` saying the run is still running elsewhere when `waits` waits were made already
 * (or the lease's end is not known). Unsubscribed, it clears its timer.
 */
function untilLeaseLapses(busy: RunBusyError, waits: number, signal: AbortSignal | undefined, label: string, runId: string): Observable<void> {
  if (waits >= LEASE_WAITS || busy.leaseExpiresAt === undefined) return throwError(() => stillBusy(label, runId, busy, waits));
  const aborted = () => new AbortError({ reason: signal?.reason });
  if (signal?.aborted) return throwError(aborted);
  const lapsed = timer(Math.min(Math.max(0, busy.leaseExpiresAt - Date.now()) + LEASE_MARGIN_MS, LONGEST_LEASE_WAIT_MS)).pipe(map(() => undefined));
  return signal === undefined ? lapsed : race(lapsed, fromEvent(signal, "abort").pipe(switchMap(() => throwError(aborted))));
}

/**
 * The sub-run's config: the call's signal and callbacks (so it nests), without the calling run's
 * own keys; with `modelCalls`, where the sub-run reports its model calls, and with `path`, the
 * sub-run's path from the top run (`SUB_RUN_PATH_KEY`). @internal
 */
export function childConfig(config: RunnableConfig | undefined, modelCalls?: SubRunModelCalls, path?: readonly string[]): RunnableConfig {
  const out: RunnableConfig = {};
  if (config?.signal) out.signal = config.signal;
  if (config?.callbacks) out.callbacks = config.callbacks;
  if (config?.tags) out.tags = config.tags;
  if (config?.metadata) out.metadata = config.metadata;
  if (config?.configurable) {
    const { [SUB_RUN_KEY]: _sink, [STEP_METADATA_KEY]: _metadata, [SUB_RUN_CALL_KEY]: _call, [SUB_RUN_MODEL_CALLS_KEY]: _calls, [SUB_RUN_DECISIONS_KEY]: _decisions, [SUB_RUN_PATH_KEY]: _path, ...rest } = config.configurable;
    if (Object.keys(rest).length > 0) out.configurable = rest;
  }
  if (modelCalls !== undefined) out.configurable = { ...out.configurable, [SUB_RUN_MODEL_CALLS_KEY]: modelCalls };
  if (path !== undefined) out.configurable = { ...out.configurable, [SUB_RUN_PATH_KEY]: [...path] };
  return out;
}

/** The decisions the calling run passes on for its sub-run's pause, by the sub-run's interrupt ids. */
function subRunDecisionsOf(config: RunnableConfig | undefined): Record<string, Decision> | undefined {
  const decisions = config?.configurable?.[SUB_RUN_DECISIONS_KEY] as Record<string, Decision> | undefined;
  return typeof decisions === "object" && decisions !== null ? decisions : undefined;
}

/**
 * The decisions came to a sub-run that ended without them (cancelled, or failed, since it paused):
 * it is not resumed (that would undo its cancel), and the decisions are not carried out.
 */
function endedSubRun(label: string, runId: string, status: "cancelled" | "failed", error: InvalidArgumentError): InvalidArgumentError {
  return new InvalidArgumentError({
    argument: "decisions",
    value: status,
    message: `${label}: the other agent's run "${runId}" is ${status}, not paused any more, so the decisions given on its pause were not carried out and it was not resumed. Resume it with that agent's executor (resume("${runId}")) if it should go on.`,
    cause: error,
  });
}

/** Still running elsewhere after `waits` waits for its lease (or a lease whose end is not known). */
function stillBusy(label: string, runId: string, busy: RunBusyError, waits: number): RunStoreError {
  const until = busy.leaseExpiresAt === undefined ? "" : ` until ${new Date(busy.leaseExpiresAt).toISOString()}`;
  const waited = waits === 0 ? "" : ` after ${waits} wait${waits === 1 ? "" : "s"} for its lease to lapse`;
  return new RunStoreError({
    operation: "resume",
    runId,
    message: `${label}: the other agent's run "${runId}" is still running in another process (${busy.owner ?? "unknown owner"}), which holds its lease${until}${waited}. Nothing of it ran here: resume the calling run again once that process is done with it (or, if it stopped, once its lease has lapsed).`,
    cause: busy,
  });
}

/** The other executor refused the decisions a person gave on its run's pause (an edit its tool's schema refuses, say). */
function refusedDecisions(label: string, runId: string, error: InvalidArgumentError): InvalidArgumentError {
  return new InvalidArgumentError({
    argument: "decisions",
    value: error.value,
    message: `${label}: the other agent's run "${runId}" refused the decisions given on its pause (${error.message.replace(/^AgentExecutor\.resume: /, "")}). Nothing of it ran; it is still paused: decide it with that agent's executor (resume("${runId}", { decisions })).`,
    cause: error,
  });
}
