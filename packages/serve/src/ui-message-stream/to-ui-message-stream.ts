import { checkOptionKeys } from "@agentrx/core";
import { type AgentStreamEvent, checkRunEventStream } from "@agentrx/executors";
import type { Observable, Subscription } from "rxjs";
import { checkPositiveInteger } from "../internal/check-options";
import type { EventsSource } from "../internal/follow-events";
import { type UIMessageStreamOptions, uiMessageChunks } from "./to-ui-message-chunks";
import type { UIMessageChunk } from "./ui-message-chunk";

/**
 * Options of {@link toUIMessageStream}.
 *
 * @example
 * ```ts
 * import type { ToUIMessageStreamOptions } from "@agentrx/serve";
 *
 * const options: ToUIMessageStreamOptions = { maxBufferedChunks: 1_000, onError: () => "The agent failed." };
 * ```
 */
export interface ToUIMessageStreamOptions extends UIMessageStreamOptions {
  /**
   * The most chunks held for a reader that does not keep up (a run cannot pause). Past it the
   * stream ends with an `error` chunk saying so, and the run is unsubscribed from (cancelled,
   * unless it is shared).
   * @default 10000
   */
  maxBufferedChunks?: number;
}

const OPTION_KEYS = Object.keys({ messageId: true, onError: true, maxBufferedChunks: true, earlierUsage: true } satisfies Record<keyof ToUIMessageStreamOptions, true>);

/**
 * A run's events as the AI SDK's UI message stream: a web `ReadableStream` of UI message chunks
 * (see {@link toUIMessageChunks} for the mapping), for `createUIMessageStreamResponse`, a custom
 * transport or {@link toUIMessageStreamResponse}. Cancelling the stream unsubscribes from the run.
 * An option it does not take (a misspelt `maxBufferedChunk`) throws an `InvalidArgumentError`, and
 * so does an `events$` that is not an Observable (the executor, a Promise, an array); a value of
 * `events$` that is not a run event (the result an `executor.invoke(...)` observable emits) errors
 * the stream with one instead of being left out: pass `executor.stream(...)`.
 *
 * @example
 * ```ts
 * import { toUIMessageStream } from "@agentrx/serve";
 * import type { AgentExecutor } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * const stream = toUIMessageStream(executor.stream({ input: "Weather in Paris?" }));
 * for await (const chunk of stream) console.log(chunk.type);
 * ```
 */
export function toUIMessageStream(events$: Observable<AgentStreamEvent>, options: ToUIMessageStreamOptions = {}): ReadableStream<UIMessageChunk> {
  return uiMessageStream(events$, options, "toUIMessageStream");
}

/**
 * {@link toUIMessageStream}, its errors about `events$` naming `caller` (the public function it was
 * given to). @internal
 */
export function uiMessageStream(events$: Observable<AgentStreamEvent>, options: ToUIMessageStreamOptions, caller: string): ReadableStream<UIMessageChunk> {
  const source: EventsSource = { caller, argument: "events$" };
  checkRunEventStream(caller, source.argument, events$);
  checkOptionKeys("toUIMessageStream", options, OPTION_KEYS);
  const { maxBufferedChunks = 10_000, ...chunkOptions } = options;
  checkPositiveInteger("toUIMessageStream", "maxBufferedChunks", maxBufferedChunks);
  let subscription: Subscription | undefined;
  let done = false;
  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      subscription = events$.pipe(uiMessageChunks(chunkOptions, source)).subscribe({
        next: (chunk) => {
          if (done) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) < -maxBufferedChunks) {
            done = true;
            controller.enqueue({ type: "error", errorText: `The client did not read the stream: more than ${maxBufferedChunks} chunks were waiting for it.` });
            controller.close();
            queueMicrotask(() => subscription?.unsubscribe());
          }
        },
        error: (error: unknown) => {
          if (!done) controller.error(error);
          done = true;
        },
        complete: () => {
          if (!done) controller.close();
          done = true;
        },
      });
      if (done) subscription.unsubscribe();
    },
    cancel() {
      done = true;
      subscription?.unsubscribe();
    },
  });
}
