// What every store's `cancelRun` does to the sub-runs of the run it cancels: a run paused inside a
// `handoff` (or an `asTool` call) is cancelled with its calling run, so that it is not left paused
// with nobody to resume it (see docs/approval.md, "A pause inside a handoff"). @internal

/** The statuses of a sub-run that the cancel of its calling run ends: paused, or queued and not started. */
export const SUB_RUN_CANCELLABLE_STATUSES: readonly string[] = ["interrupted", "queued"];

/** The `error` of a sub-run cancelled with its calling run `callerId`, which was cancelled for `reason`. */
export function subRunCancelReason(callerId: string, reason: string): string {
  return `Its calling run "${callerId}" was cancelled: ${reason}`;
}

/**
 * The sub-runs run `runId`'s last pause waits on: the `subRun.runId` of the interrupts of its last
 * own `interrupt` event (one without a `subRun` path: the sub-runs' own pauses are recorded in the
 * calling run's record too). `interruptEvents` are the `data` (JSON text) of the run's `interrupt`
 * events, newest first. None when the run never paused, when that event cannot be read (a corrupt
 * record: nothing is cancelled on a guess), or when it is another run's (the prefix a fork copied
 * from its source names the source's sub-runs, not the fork's).
 */
export function pausedSubRunIds(runId: string, interruptEvents: Iterable<string>): string[] {
  for (const text of interruptEvents) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return [];
    }
    if (!isObject(data)) return [];
    if (data["subRun"] !== undefined) continue; // a sub-run's own pause, as the calling run recorded it
    if (data["runId"] !== undefined && data["runId"] !== runId) return [];
    const ids = new Set<string>();
    for (const interrupt of Array.isArray(data["interrupts"]) ? data["interrupts"] : []) {
      const subRun = isObject(interrupt) ? interrupt["subRun"] : undefined;
      const id = isObject(subRun) ? subRun["runId"] : undefined;
      if (typeof id === "string" && id !== "" && id !== runId) ids.add(id);
    }
    return [...ids];
  }
  return [];
}

/** How a store reads and cancels the sub-runs of a run, inside the transaction of its `cancelRun`. */
export interface SubRunCancelSteps {
  /** The `data` of run `runId`'s `interrupt` events, newest first. */
  interruptEvents(runId: string): Iterable<string>;
  /** Cancels run `runId` with `reason` if it is `interrupted` or `queued`; whether it did. */
  cancelIfPaused(runId: string, reason: string): boolean;
}

/** {@link SubRunCancelSteps} for a store whose calls are asynchronous (PostgreSQL). */
export interface AsyncSubRunCancelSteps {
  /** The `data` of run `runId`'s `interrupt` events, newest first. */
  interruptEvents(runId: string): Promise<Iterable<string>>;
  /** Cancels run `runId` with `reason` if it is `interrupted` or `queued`; whether it did. */
  cancelIfPaused(runId: string, reason: string): Promise<boolean>;
}

/** One store call the walk asks for: its answer is sent back into the walk. */
type SubRunCancelRequest =
  | { readonly kind: "interruptEvents"; readonly runId: string }
  | { readonly kind: "cancelIfPaused"; readonly runId: string; readonly reason: string };

/**
 * The walk down the sub-runs of run `callerId`, as a generator of the store calls it needs: it
 * yields each request and is resumed with its answer (the events for `interruptEvents`, whether it
 * cancelled for `cancelIfPaused`). The one piece of logic both drivers below run, so that the
 * synchronous and asynchronous stores cancel the same sub-runs, in the same order.
 */
function* subRunCancelWalk(callerId: string, reason: string): Generator<SubRunCancelRequest, void, Iterable<string> | boolean> {
  const seen = new Set([callerId]);
  const callers = [callerId];
  for (let caller = callers.pop(); caller !== undefined; caller = callers.pop()) {
    const events = (yield { kind: "interruptEvents", runId: caller }) as Iterable<string>;
    for (const id of pausedSubRunIds(caller, events)) {
      if (seen.has(id)) continue;
      seen.add(id);
      const cancelled = (yield { kind: "cancelIfPaused", runId: id, reason: subRunCancelReason(caller, reason) }) as boolean;
      if (cancelled) callers.push(id);
    }
  }
}

/**
 * Cancels the paused (or queued) sub-runs of run `callerId`, which was just cancelled for `reason`,
 * and theirs in turn: each gets `subRunCancelReason(<its calling run>, reason)` as its error. A
 * sub-run in any other status (finished, failed, cancelled, running) is left as it is, and so are
 * its own sub-runs. Synchronous: for a store whose transaction cannot await (SQLite, memory).
 */
export function cancelPausedSubRuns(callerId: string, reason: string, steps: SubRunCancelSteps): void {
  const walk = subRunCancelWalk(callerId, reason);
  for (let next = walk.next(); next.done !== true; ) {
    const request = next.value;
    next = walk.next(request.kind === "interruptEvents" ? steps.interruptEvents(request.runId) : steps.cancelIfPaused(request.runId, request.reason));
  }
}

/** The same as {@link cancelPausedSubRuns}, for a store whose calls are asynchronous (PostgreSQL). */
export async function cancelPausedSubRunsAsync(callerId: string, reason: string, steps: AsyncSubRunCancelSteps): Promise<void> {
  const walk = subRunCancelWalk(callerId, reason);
  for (let next = walk.next(); next.done !== true; ) {
    const request = next.value;
    next = walk.next(request.kind === "interruptEvents" ? await steps.interruptEvents(request.runId) : await steps.cancelIfPaused(request.runId, request.reason));
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
