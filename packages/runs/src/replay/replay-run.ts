import { checkOptionKeys, InvalidArgumentError, showValue } from "@agentrx/core";
import { RECORD_ONLY_EVENT_TYPES, REPLAY_PAGE_SIZE, RunRecordFold, type AgentStreamEvent, type RunStore, readRecordedEvents, recordedRunInfo } from "@agentrx/executors";
import { Observable, timer, type Subscription } from "rxjs";
import { checkRunReference } from "./check-run-reference";

/**
 * How {@link replayRun} paces the events: `"instant"` emits them as fast as they are read;
 * `"original"` spaces them as they were recorded (by the differences of their `at`).
 */
export type ReplayTiming = "instant" | "original";

/**
 * Options of {@link replayRun}.
 *
 * @example
 * ```ts
 * import { replayRun, type ReplayRunOptions } from "@agentrx/runs";
 * import type { RunStore } from "@agentrx/executors";
 * declare const store: RunStore;
 *
 * const options: ReplayRunOptions = { timing: "original" };
 * replayRun(store, "run-1", options).subscribe((event) => console.log(event.type));
 * ```
 */
export interface ReplayRunOptions {
  /**
   * `"instant"` emits the events as fast as they are read; `"original"` waits before each event
   * as long as passed between it and the previous one when the run was recorded (the gap between
   * the segments of a resumed run included), with RxJS timers: unsubscribing cancels the wait.
   * @default "instant"
   */
  timing?: ReplayTiming;
}

const TIMINGS: readonly ReplayTiming[] = ["instant", "original"];
const OPERATION = "replayRun";

/**
 * Plays a recorded run back as the `AgentStreamEvent`s its `stream()` emitted, from the record
 * alone (no agent, model or tool is called): every segment of a resumed run, each beginning with
 * its own `start` event, with the model's streamed text as one `token` event per model call. The
 * record-only `model_call` entries are skipped. Pipe it into `renderTrace` or `printTrace` to read
 * a run after the fact.
 *
 * The observable is cold: each subscription reads the record again, page by page (500 events per
 * `readEvents` call), so a long run is never loaded at once; unsubscribing stops reading and
 * cancels a pending wait. It completes after the last event recorded when it was subscribed to:
 * a run that is still running (or was interrupted, failed or cancelled) ends there, without an
 * `output` event, and a run with no events completes at once.
 *
 * Errors: `RunNotFoundError` when the store has no such run; a `RunStoreError` naming the run
 * and the event when an event cannot be read or decoded (the store's or decoder's error is its
 * `cause`); a damaged record is refused as `resume` refuses it, with the same `RunStoreError`
 * (`reason: "corrupt"`): a gap in its `seq`s, a checkpoint `schemaVersion` this version does not
 * know, or an event that cannot follow from the run's state (see docs/runs.md, "A damaged record").
 *
 * @param store the store the run is recorded in
 * @param runId the recorded run's id
 * @param options how to pace the events
 * @throws InvalidArgumentError naming `store`, `runId`, `options` or `timing` when one cannot work
 *
 * @example
 * ```ts
 * import { AgentExecutor, printTrace } from "@agentrx/executors";
 * import { MemoryRunStore, replayRun } from "@agentrx/runs";
 * declare const executor: AgentExecutor; // created with { store }
 * declare const store: MemoryRunStore;
 *
 * const { runId } = await executor.invoke({ input: "Weather in Paris?" });
 * await printTrace(replayRun(store, runId)); // the same trace as the live run printed
 * ```
 */
export function replayRun(store: RunStore, runId: string, options: ReplayRunOptions = {}): Observable<AgentStreamEvent> {
  checkRunReference(OPERATION, store, runId);
  const timing = checkTiming(options);
  return new Observable<AgentStreamEvent>((subscriber) => {
    let closed = false;
    let pending: { subscription: Subscription; resolve: () => void } | undefined;
    // Resolves after `ms` (an RxJS timer), or at once when the subscriber unsubscribes.
    const wait = (ms: number) =>
      new Promise<void>((resolve) => {
        const subscription = timer(ms).subscribe(() => {
          pending = undefined;
          resolve();
        });
        if (!subscription.closed) pending = { subscription, resolve };
      });

    const play = async (): Promise<void> => {
      const info = await recordedRunInfo(store, runId, OPERATION);
      // Every event is folded through the reducer as a resume folds it, so a damaged record is refused as resume refuses it.
      const fold = new RunRecordFold(info, OPERATION);
      // Maps recorded time to wall time: the first event plays at once, each later one at its offset.
      let origin: { at: number; now: number } | undefined;
      for await (const page of readRecordedEvents(store, runId, OPERATION, REPLAY_PAGE_SIZE, info)) {
        for (const stored of page) {
          if (closed) return;
          const event = fold.add(stored) as AgentStreamEvent;
          if (RECORD_ONLY_EVENT_TYPES.has(stored.data["type"] as string)) continue; // record-only entries
          if (timing === "original") {
            if (origin === undefined) origin = { at: event.at, now: Date.now() };
            const delay = origin.now + (event.at - origin.at) - Date.now();
            if (delay > 0) await wait(delay);
            if (closed) return;
          }
          subscriber.next(event);
        }
      }
      if (!closed) subscriber.complete();
    };
    play().catch((error: unknown) => subscriber.error(error));

    return () => {
      closed = true;
      if (pending !== undefined) {
        pending.subscription.unsubscribe();
        pending.resolve();
        pending = undefined;
      }
    };
  });
}

function checkTiming(options: unknown): ReplayTiming {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new InvalidArgumentError({
      argument: "options",
      value: options,
      message: `replayRun: \`options\` must be an object such as { timing: "original" }, got ${options === null ? "null" : Array.isArray(options) ? "an array" : typeof options}.`,
    });
  }
  checkOptionKeys(OPERATION, options, ["timing"]);
  const { timing = "instant" } = options as ReplayRunOptions;
  if (!TIMINGS.includes(timing)) {
    throw new InvalidArgumentError({
      argument: "timing",
      value: timing,
      message: `replayRun: \`timing\` must be "instant" or "original", got ${showValue(timing)}.`,
    });
  }
  return timing;
}
