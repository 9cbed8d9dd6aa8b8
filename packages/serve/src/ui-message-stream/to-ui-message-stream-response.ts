import { checkOptionKeys } from "@agentrx/core";
import type { AgentStreamEvent } from "@agentrx/executors";
import type { Observable } from "rxjs";
import { type ToUIMessageStreamOptions, uiMessageStream } from "./to-ui-message-stream";
import type { UIMessageChunk } from "./ui-message-chunk";

/**
 * The init of {@link toUIMessageStreamResponse}: a `ResponseInit` and the stream's options.
 *
 * @example
 * ```ts
 * import type { UIMessageStreamResponseInit } from "@agentrx/serve";
 *
 * const init: UIMessageStreamResponseInit = { headers: { "x-request-id": "42" }, onError: () => "The agent failed." };
 * ```
 */
export interface UIMessageStreamResponseInit extends ResponseInit, ToUIMessageStreamOptions {}

/**
 * The keys of the init: `ResponseInit`'s (as this package is compiled) and the stream's options,
 * then the `ResponseInit` keys some runtimes add (Cloudflare Workers' `cf`, `encodeBody` and
 * `webSocket`), which are passed on to `new Response` as they are.
 */
const INIT_KEYS = [
  ...Object.keys({
    headers: true,
    status: true,
    statusText: true,
    messageId: true,
    onError: true,
    maxBufferedChunks: true,
    earlierUsage: true,
  } satisfies Record<keyof UIMessageStreamResponseInit, true>),
  "cf",
  "encodeBody",
  "webSocket",
];

/**
 * The headers of a UI message stream response (what `toUIMessageStreamResponse` sends).
 *
 * @example
 * ```ts
 * import { UI_MESSAGE_STREAM_HEADERS } from "@agentrx/serve";
 *
 * console.log(UI_MESSAGE_STREAM_HEADERS["x-vercel-ai-ui-message-stream"]); // "v1"
 * ```
 */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

/**
 * A run's events as a web `Response` in the AI SDK's UI message stream protocol, what `useChat`
 * (`@ai-sdk/react`, AI SDK 5, 6 and 7) reads: Server-Sent Events `data: <chunk as JSON>`, ending with
 * `data: [DONE]`, and the header `x-vercel-ai-ui-message-stream: v1`. Return it from a route
 * handler (Next.js, Hono, Remix, Bun, Deno); on Node's `http` write it with `writeResponse`.
 * Cancelling its body (`writeResponse` does when the client goes away) unsubscribes from
 * `events$`, which cancels a run given as `executor.stream(...)`: give a subject that holds the run
 * to keep it going (docs/serving.md, "A client that goes away"). A key of `init` that is neither
 * a `ResponseInit` key nor an option of the stream (a misspelt `maxBufferedChunk`) throws an
 * `InvalidArgumentError` naming it. So does an `events$` that is not an Observable (the executor,
 * a Promise, an array); a value of `events$` that is not a run event (the result an
 * `executor.invoke(...)` observable emits) errors the body with one instead of being left out:
 * pass `executor.stream(...)`.
 *
 * @example
 * ```ts
 * import { toUIMessageStreamResponse } from "@agentrx/serve";
 * import type { AgentExecutor } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * export async function POST(request: Request): Promise<Response> {
 *   const { messages } = (await request.json()) as { messages: { parts: { type: string; text?: string }[] }[] };
 *   const input = messages.at(-1)?.parts.map((part) => part.text ?? "").join("") ?? "";
 *   return toUIMessageStreamResponse(executor.stream({ input }));
 * }
 * ```
 */
export function toUIMessageStreamResponse(events$: Observable<AgentStreamEvent>, init: UIMessageStreamResponseInit = {}): Response {
  if (typeof init === "object" && init !== null) checkOptionKeys("toUIMessageStreamResponse", init, INIT_KEYS);
  const { messageId, onError, earlierUsage, maxBufferedChunks, headers, ...responseInit } = init;
  const stream = uiMessageStream(
    events$,
    {
      ...(messageId === undefined ? {} : { messageId }),
      ...(onError === undefined ? {} : { onError }),
      ...(earlierUsage === undefined ? {} : { earlierUsage }),
      ...(maxBufferedChunks === undefined ? {} : { maxBufferedChunks }),
    },
    "toUIMessageStreamResponse",
  );
  const merged = new Headers(UI_MESSAGE_STREAM_HEADERS);
  // Yours replace the stream's, but every cookie is kept (`set` would keep only the last).
  new Headers(headers).forEach((value, key) => (key === "set-cookie" ? merged.append(key, value) : merged.set(key, value)));
  return new Response(stream.pipeThrough(sseEncoder()), { status: 200, ...responseInit, headers: merged });
}

function sseEncoder(): TransformStream<UIMessageChunk, Uint8Array> {
  const encoder = new TextEncoder();
  return new TransformStream({
    transform: (chunk, controller) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)),
    flush: (controller) => controller.enqueue(encoder.encode("data: [DONE]\n\n")),
  });
}
