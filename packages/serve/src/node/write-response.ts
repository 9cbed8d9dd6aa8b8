import type { ServerResponse } from "node:http";
import { checkOptionKeys } from "@agentrx/core";
import { SseWriter } from "@agentrx/runs";
import { checkPositiveInteger } from "../internal/check-options";

/**
 * Options of {@link writeResponse}.
 *
 * @example
 * ```ts
 * import type { WriteResponseOptions } from "@agentrx/serve";
 *
 * const options: WriteResponseOptions = { maxBufferedBytes: 256 * 1024 };
 * ```
 */
export interface WriteResponseOptions {
  /**
   * For an event stream: the most bytes held for a client that does not read; past it the next
   * frame waits, and a client that takes nothing for 5 s is dropped (a last message, then the
   * connection closes) and the body cancelled.
   * @default 1048576 (1 MiB)
   */
  maxBufferedBytes?: number;
}

const OPTION_KEYS = Object.keys({ maxBufferedBytes: true } satisfies Record<keyof WriteResponseOptions, true>);

/**
 * How long the socket may take nothing of what waits for a client while an event stream's next
 * frame has no room under `maxBufferedBytes`, in ms: past it, the client is dropped.
 */
const STALL_MS = 5_000;

/** How often the bytes waiting for a client are looked at while a frame waits for room, in ms. */
const ROOM_POLL_MS = 25;

/**
 * Writes a web `Response` (e.g. from `toUIMessageStreamResponse`) to a Node `http` response. An
 * event stream (`content-type: text/event-stream`, a run that cannot pause) is written through
 * `SseWriter` of `@agentrx/runs`: what the client has not read is buffered up to
 * `maxBufferedBytes`; a frame with no room under it waits (the body is not read meanwhile) while
 * the client takes some of what waits, so a client that reads gets frames larger than the bound
 * (a tool call's big input or output) whole; a client that takes nothing for 5 s is then
 * dropped: a UI message stream ends with an `error` chunk
 * saying so (another event stream with an `event: dropped` frame), the connection closes once that
 * is flushed (or after a short grace if the client still does not read), and the body is
 * cancelled (which unsubscribes from the run). Any other body is read only as fast as the socket
 * takes it (a full socket pauses the reading until `'drain'`). A client that goes away cancels the
 * body. Resolves once the response ended; never rejects for a failing body (the client sees a cut
 * stream). Rejects, before writing anything, with an `InvalidArgumentError` for a bad option or one
 * it does not take (a misspelt `maxBufferBytes`).
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { toUIMessageStreamResponse, writeResponse } from "@agentrx/serve";
 * import type { AgentExecutor } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * createServer((req, res) => {
 *   void writeResponse(toUIMessageStreamResponse(executor.stream({ input: "Hi" })), res);
 * });
 * ```
 */
export async function writeResponse(response: Response, res: ServerResponse, options: WriteResponseOptions = {}): Promise<void> {
  checkOptionKeys("writeResponse", options, OPTION_KEYS);
  const { maxBufferedBytes = 1_048_576 } = options;
  checkPositiveInteger("writeResponse", "maxBufferedBytes", maxBufferedBytes);
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") headers[key] = value;
  });
  // Each cookie is a header line of its own: joined into one (or the last one kept), a browser reads them wrong.
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  res.writeHead(response.status, response.statusText, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  if (/^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "")) return writeEventStream(reader, res, maxBufferedBytes, response.headers.has("x-vercel-ai-ui-message-stream"));
  let closed = false;
  let wake: (() => void) | undefined;
  const onClose = () => {
    closed = true;
    wake?.();
    void reader.cancel().catch(() => undefined);
  };
  res.on("close", onClose);
  try {
    while (!closed) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          res.once("drain", resolve);
        });
        wake = undefined;
      }
    }
  } catch {
    // The body failed: end what was sent (the client sees a cut stream).
  } finally {
    res.off("close", onClose);
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}

/**
 * An event stream: read as it comes (its source is a run, which cannot wait), written with
 * `SseWriter`'s bound; a client past it is dropped and the body cancelled.
 */
async function writeEventStream(reader: ReadableStreamDefaultReader<Uint8Array>, res: ServerResponse, maxBufferedBytes: number, uiMessageStream: boolean): Promise<void> {
  const sse = new SseWriter(res, {
    heartbeatMs: 0,
    maxBufferedBytes,
    // useChat reads only `data`: the end it understands is an error chunk.
    ...(uiMessageStream ? { droppedMessage: ({ reason }: { reason: string }) => ({ data: JSON.stringify({ type: "error", errorText: `The stream was cut: ${reason}.` }) }) } : {}),
  });
  let finished = false;
  sse.onClose(() => {
    if (!finished) void reader.cancel().catch(() => undefined);
  });
  try {
    while (!sse.closed) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      await roomFor(res, sse, value.byteLength, maxBufferedBytes);
      sse.sendFrames(value);
    }
  } catch {
    finished = true; // The body failed: end what was sent (the client sees a cut stream).
  } finally {
    if (!finished) void reader.cancel().catch(() => undefined); // dropped, or the client went away
    sse.end();
  }
}

/**
 * Waits until `size` more bytes fit under `max` beside what the socket has not taken yet, as long
 * as the socket takes some of it every {@link STALL_MS}: a burst of large frames (a tool call's
 * input, then its output) reaches a client that reads, however slowly, the body waiting meanwhile.
 * Returns at once when nothing waits (a frame larger than the bound by itself goes to a client
 * that took everything before it) or the stream closed; returns when the socket took nothing for
 * {@link STALL_MS}, and `sendFrames` then drops the client.
 */
async function roomFor(res: ServerResponse, sse: SseWriter, size: number, max: number): Promise<void> {
  let waiting = res.writableLength;
  let tookAt = Date.now();
  while (!sse.closed && waiting > 0 && waiting + size > max) {
    // 'drain' comes only after a write the socket refused; what waits below its high-water mark is polled for.
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        res.off("drain", wake).off("close", wake);
        resolve();
      };
      const timer = setTimeout(wake, ROOM_POLL_MS);
      res.once("drain", wake).once("close", wake);
    });
    if (res.writableLength < waiting) tookAt = Date.now();
    else if (Date.now() - tookAt >= STALL_MS) return;
    waiting = res.writableLength;
  }
}
