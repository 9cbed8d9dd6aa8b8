import { AbortError, checkOptionKeys } from "@agentrx/core";
import { type AgentStreamEvent, RECORD_ONLY_EVENT_TYPES, RunEventDecoder, RunNotFoundError, type RunInfo, type RunStore } from "@agentrx/executors";
import { Observable } from "rxjs";
import { checkPositiveInteger } from "../internal/check-options";

/**
 * Options of {@link followRecordedRun}.
 *
 * @example
 * ```ts
 * import { followRecordedRun, type FollowRecordedRunOptions } from "@agentrx/serve";
 * import type { RunStore } from "@agentrx/executors";
 * declare const store: RunStore;
 *
 * const options: FollowRecordedRunOptions = { pollMs: 250 };
 * followRecordedRun(store, "run-1", options).subscribe((event) => console.log(event.type));
 * ```
 */
export interface FollowRecordedRunOptions {
  /** How often the store is asked for new events while the run runs, in milliseconds. @default 100 */
  pollMs?: number;
}

const FOLLOWING = new Set(["running", "queued"]);

const OPTION_KEYS = Object.keys({ pollMs: true } satisfies Record<keyof FollowRecordedRunOptions, true>);

/**
 * A recorded run's events from its first one, then the new ones as the run records them (the
 * store is polled), until the run stopped running and every event was emitted: then it completes
 * for a run that finished or paused (interrupted), and errors for one that failed (an `Error` with
 * the recorded reason) or was cancelled (an `AbortError`), as the live run's events did, so a
 * protocol stream made of it ends as the run did (an `error` chunk, `RUN_ERROR`, a cancelled
 * outcome) instead of as a success with its calls left open. It reads the record only, so it
 * works in any process that shares the store: what a client that reconnects (`useChat`'s
 * `resume`, a reloaded page) replays. The model's text comes as recorded: one `token` event per model call (or per part the
 * executor recorded). Errors with `RunNotFoundError` for an unknown run. An option it does not take
 * (a misspelt `pollMS`) throws an `InvalidArgumentError` naming it, at once.
 *
 * @example
 * ```ts
 * import { followRecordedRun, toUIMessageStreamResponse } from "@agentrx/serve";
 * import type { RunStore } from "@agentrx/executors";
 * declare const store: RunStore;
 *
 * // GET /api/chat/:id/stream, where useChat({ resume: true }) reconnects
 * export function GET(runId: string): Response {
 *   return toUIMessageStreamResponse(followRecordedRun(store, runId));
 * }
 * ```
 */
export function followRecordedRun(store: RunStore, runId: string, options: FollowRecordedRunOptions = {}): Observable<AgentStreamEvent> {
  checkOptionKeys("followRecordedRun", options, OPTION_KEYS);
  const { pollMs = 100 } = options;
  checkPositiveInteger("followRecordedRun", "pollMs", pollMs);
  return new Observable<AgentStreamEvent>((subscriber) => {
    let closed = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wake: (() => void) | undefined;
    const decoder = new RunEventDecoder(runId);
    const follow = async () => {
      let after = 0;
      for (;;) {
        const run = await store.getRun(runId);
        if (closed) return;
        if (run === undefined) throw new RunNotFoundError({ operation: "followRecordedRun", runId });
        while (after < run.eventCount) {
          const page = await store.readEvents(runId, { after, limit: 500 });
          if (closed) return;
          if (page.length === 0) break;
          for (const stored of page) {
            after = stored.seq;
            // Every entry is decoded (a person's decisions change the steps after them), but the
            // record-only ones (model calls, decisions, early calls' intents) are not events.
            const event = decoder.decode(stored);
            if (RECORD_ONLY_EVENT_TYPES.has(stored.data["type"] as string)) continue;
            subscriber.next(event as AgentStreamEvent);
            if (closed) return;
          }
        }
        if (!FOLLOWING.has(run.status)) {
          const ending = endingError(run);
          return ending === undefined ? subscriber.complete() : subscriber.error(ending);
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, pollMs);
        });
        if (closed) return;
      }
    };
    follow().catch((error: unknown) => {
      if (!closed) subscriber.error(error);
    });
    return () => {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      wake?.();
    };
  });
}

/** The error a run that stopped without an output ended with: its recorded reason. */
function endingError(run: RunInfo): Error | undefined {
  if (run.status === "cancelled") return new AbortError({ message: run.error ?? `The run "${run.runId}" was cancelled.` });
  if (run.status === "failed") return run.error === undefined ? new Error(`The run "${run.runId}" failed (no reason was recorded).`) : recordedError(run.error);
  return undefined;
}

/**
 * The error a failed run's record names, as the live run had it: the record keeps it as
 * `<name>: <message>` (`Error: model down`, `InDoubtToolCallError: ...`), so a replay shows the
 * same message, and the same name, as the live stream did. Any other text is the message.
 */
function recordedError(text: string): Error {
  const match = /^((?:[A-Za-z_$][\w$]*)?(?:Error|Exception)): ([\s\S]*)$/.exec(text);
  if (match === null) return new Error(text);
  const error = new Error(match[2]);
  error.name = match[1]!;
  return error;
}
