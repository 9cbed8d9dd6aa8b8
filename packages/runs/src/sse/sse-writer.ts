import { InvalidArgumentError, MAX_TIMER_DELAY_MS, checkOptionKeys, refusePromise, valueToText } from "@agentrx/core";
import { type SseMessage, defaultDroppedMessage, frame, isSseMessage, oneLine } from "./sse-frame";
import type { SseResponse } from "./sse-response";

export type { SseMessage } from "./sse-frame";
export { decodePathSegment, parseLastEventId } from "./sse-request";
export type { SseRequest, SseResponse, SseSocket } from "./sse-response";

/**
 * Options of {@link SseWriter}.
 *
 * @example
 * ```ts
 * import type { SseWriterOptions } from "@agentrx/runs";
 *
 * const options: SseWriterOptions = { heartbeatMs: 10_000, maxBufferedBytes: 256 * 1024, retryMs: 1_000 };
 * ```
 */
export interface SseWriterOptions {
  /** A comment line is sent this often (ms) so proxies keep an idle stream open; 0 sends none. @default 15000 */
  heartbeatMs?: number;
  /**
   * The most bytes the server holds for one client that does not read (what `res.write` buffered
   * beyond the socket). A frame that would pass it waits for room rather than drop the client: it
   * is written once it fits, or, larger than the bound, once the socket has taken everything before
   * it, so a client that reads gets every frame whole; frames that come meanwhile go after it. A
   * client that lets more than the bound wait beside that one frame, or that has taken nothing for
   * 5 s when a frame does not fit, is dropped: the stream ends with an `event: dropped` frame (its
   * data says why and the id of the last message the client was given) and the connection is closed.
   * @default 1048576 (1 MiB)
   */
  maxBufferedBytes?: number;
  /** The `retry:` field sent first (how long an `EventSource` waits before reconnecting, ms). */
  retryMs?: number;
  /** Extra response headers (e.g. `x-vercel-ai-ui-message-stream`). */
  headers?: Record<string, string>;
  /**
   * The last message sent to a client dropped for not reading, from why (`reason`) and the id of
   * the last message it was given (written to its socket; `null` when none had an id); for a
   * protocol whose clients read only `data` (the AI SDK's UI message stream: an `error` chunk;
   * A2A's JSON-RPC responses: an error response). Called synchronously; when it throws or
   * returns no message (not an object with a string or number `id`, string `event` and string
   * `data`, each optional; a Promise is not one), the client is still dropped, with the default
   * frame, and the process is warned (`process.emitWarning`, code `AGENTRX_SSE_DROPPED_MESSAGE`).
   * @default an `event: dropped` frame, `data: { reason, lastEventId }`
   */
  droppedMessage?: (info: { reason: string; lastEventId: string | null }) => SseMessage;
}

/** The options {@link SseWriter} takes, checked against the interface by `satisfies`. */
const SSE_WRITER_OPTION_KEYS = Object.keys({
  heartbeatMs: true,
  maxBufferedBytes: true,
  retryMs: true,
  headers: true,
  droppedMessage: true,
} satisfies Record<keyof SseWriterOptions, true>);

const GRACE_MS = 5_000;

/**
 * How long a client may take nothing of what waits for it (ms) before a frame that does not fit
 * drops it, instead of waiting for room: it does not read (as `writeResponse` of `@agentrx/serve`
 * waits for room for as long).
 */
const STALL_MS = 5_000;

/**
 * Writes Server-Sent Events to a Node `http` response, with backpressure: {@link SseWriter.send}
 * says when the socket is full, {@link SseWriter.ready} waits until it drained (a source that can
 * pause awaits it), a frame that does not fit under `maxBufferedBytes` beside what the client has
 * not taken yet waits until it does (a frame larger than the bound, until the client took
 * everything before it), and a client that lets more than `maxBufferedBytes` wait beside such a
 * frame (or has taken nothing for 5 s when a frame does not fit) is dropped, so a client that never
 * reads costs the server a bounded amount of memory (the bound and one frame) and a client that
 * reads gets every frame. The response is a `node:http` `ServerResponse` (or anything with the
 * part of its API that {@link SseResponse} names).
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { SseWriter } from "@agentrx/runs";
 *
 * createServer(async (req, res) => {
 *   const sse = new SseWriter(res, { heartbeatMs: 10_000 });
 *   for (let i = 1; i <= 3 && !sse.closed; i++) {
 *     if (!sse.send({ id: i, event: "tick", data: String(i) })) await sse.ready();
 *   }
 *   sse.end();
 * });
 * ```
 */
export class SseWriter {
  private readonly res: SseResponse;
  private readonly maxBufferedBytes: number;
  private readonly heartbeatMs: number;
  private readonly retryMs: number | undefined;
  private readonly headers: Record<string, string>;
  private readonly droppedMessage: NonNullable<SseWriterOptions["droppedMessage"]>;
  private opened = false;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private waiters: ((open: boolean) => void)[] = [];
  /** The id of the last message written to the response (what a dropped client is told it has). */
  private lastId: string | undefined;
  private closeListeners: (() => void)[] = [];
  /**
   * The size of the one frame the bound does not count (0 when none): a frame that did not fit
   * beside what the socket had not taken, from when it comes until the socket has taken it.
   */
  private unbound = 0;
  /** Frames that wait for room, in order: the first is the one the bound does not count. */
  private waiting: Waiting[] = [];
  private waitingBytes = 0;
  /** `end()` was called while frames waited: the response ends once they are written. */
  private ending = false;
  /** When the socket last took a chunk, or was given one with nothing else waiting (ms since the epoch). */
  private takenAt = Date.now();
  /** Passed to every `res.write`: the socket took a chunk, so a frame that waits may fit now. */
  private readonly taken = () => {
    this.takenAt = Date.now();
    this.flush();
  };
  /** Passed to the `res.write` of the frame the bound does not count: the socket took it. */
  private readonly takenUnbound = () => {
    this.unbound = 0;
    this.taken();
  };
  /** Whether the client was dropped for not reading. */
  dropped = false;

  constructor(res: SseResponse, options: SseWriterOptions = {}) {
    checkOptionKeys("SseWriter", options, SSE_WRITER_OPTION_KEYS);
    const { heartbeatMs = 15_000, maxBufferedBytes = 1_048_576, retryMs, headers = {}, droppedMessage = defaultDroppedMessage } = options;
    check("heartbeatMs", heartbeatMs, 0, MAX_TIMER_DELAY_MS);
    check("maxBufferedBytes", maxBufferedBytes, 1);
    if (retryMs !== undefined) check("retryMs", retryMs, 0);
    if (typeof droppedMessage !== "function") {
      throw new InvalidArgumentError({ argument: "droppedMessage", value: droppedMessage, message: "SseWriter: `droppedMessage` must be a function returning the last message of a dropped client." });
    }
    this.res = res;
    this.heartbeatMs = heartbeatMs;
    this.maxBufferedBytes = maxBufferedBytes;
    this.retryMs = retryMs;
    this.headers = headers;
    this.droppedMessage = droppedMessage;
    res.on("drain", () => this.flush());
    res.on("close", () => {
      this.stopHeartbeat();
      this.discardWaiting();
      this.wake(false);
      for (const listener of this.closeListeners.splice(0)) listener();
    });
  }

  /** Whether the stream was ended ({@link SseWriter.end}, or the client dropped) or the client went away. */
  get closed(): boolean {
    return this.ending || this.res.destroyed || this.res.writableEnded;
  }

  /** Bytes written to the response but not yet taken by the socket (not counting frames that wait for room). */
  get bufferedBytes(): number {
    return this.res.writableLength;
  }

  /**
   * Sends the `200` status and the event-stream headers (done by the first `send` otherwise),
   * unless the caller already sent a status and headers of its own.
   */
  open(): void {
    if (this.opened || this.closed) return;
    this.opened = true;
    if (!this.res.headersSent) {
      this.res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
        ...this.headers,
      });
      this.res.flushHeaders();
    }
    if (this.retryMs !== undefined) this.res.write(`retry: ${this.retryMs}\n\n`);
    if (this.heartbeatMs > 0) this.heartbeat = setInterval(() => this.write(": keep-alive\n\n"), this.heartbeatMs);
  }

  /**
   * Sends one message. Returns false when the socket is full or the message waits for room (await
   * {@link SseWriter.ready} before the next one, if the source can wait) or the stream is closed;
   * drops the client instead when more than `maxBufferedBytes` would wait beside a frame that
   * waits for room.
   */
  send(message: SseMessage): boolean {
    this.open();
    return this.write(frame(message), message.id === undefined ? undefined : String(message.id));
  }

  /**
   * Writes bytes that are already Server-Sent Events frames (e.g. a UI message stream's body),
   * under the same bound as {@link SseWriter.send}: returns false when the socket is full, the
   * bytes wait for room or the stream is closed, and drops the client instead when more than
   * `maxBufferedBytes` would wait beside bytes that wait for room. Write whole frames, so the last
   * message of a drop starts a frame.
   */
  sendFrames(frames: string | Uint8Array): boolean {
    this.open();
    return this.write(frames);
  }

  /** Sends a comment line (ignored by clients); a line break in `text` is sent as a space. */
  comment(text: string): boolean {
    this.open();
    return this.write(`: ${oneLine(text)}\n\n`);
  }

  /**
   * Resolves with true once the socket drained and no frame waits for room (at once when the socket
   * is not full and none waits), false once the stream closed.
   */
  ready(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.waiting.length === 0 && !this.res.writableNeedDrain) return Promise.resolve(true);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Calls `listener` once when the client goes away or the response ends. */
  onClose(listener: () => void): void {
    if (this.res.destroyed || this.res.writableFinished) listener();
    else this.closeListeners.push(listener);
  }

  /**
   * Ends the stream, after `last` when given: at once, or once the frames that wait for room are
   * written ({@link SseWriter.closed} is true from now on either way).
   */
  end(last?: SseMessage): void {
    this.stopHeartbeat();
    if (this.closed) return;
    if (last !== undefined) this.send(last);
    if (this.closed) return; // `last` dropped the client
    this.ending = true;
    this.wake(false);
    if (this.waiting.length === 0) this.res.end();
  }

  /**
   * Writes `text` (a frame; `id` its message's id) when it fits under `maxBufferedBytes` beside
   * what the socket has not taken. A frame that does not fit is the one frame the bound does not
   * count: it is written once it fits, or once the socket has taken everything before it (a frame
   * larger than the bound could never be sent else), and the frames that come until the socket has
   * taken it go after it as long as they and the rest of what it has not taken stay within the
   * bound: past it the client is dropped. So a client that reads is not dropped for a large frame
   * that came while the socket was busy (bytes written in the same tick wait in the response until
   * the next one; a large frame takes a while to send), and what the server holds for one client is
   * at most the bound and one frame. A frame that does not fit while the socket has taken nothing
   * for {@link STALL_MS} drops the client at once.
   */
  private write(text: string | Uint8Array, id?: string): boolean {
    if (this.closed) return false;
    const size = typeof text === "string" ? Buffer.byteLength(text) : text.byteLength;
    const unread = this.res.writableLength;
    if (this.unbound > 0) {
      if (unread + this.waitingBytes - this.unbound + size > this.maxBufferedBytes) {
        this.drop();
        return false;
      }
      if (this.waiting.length === 0) return this.put(text, id, this.taken);
    } else if (unread + size <= this.maxBufferedBytes) {
      return this.put(text, id, this.taken);
    } else if (unread > 0 && Date.now() - this.takenAt >= STALL_MS) {
      this.drop();
      return false;
    } else {
      this.unbound = size;
      if (unread === 0) return this.put(text, id, this.takenUnbound);
    }
    this.waiting.push({ text, size, id });
    this.waitingBytes += size;
    return false;
  }

  /** Writes a frame to the response: the client is given it (a dropped client is told its id). */
  private put(text: string | Uint8Array, id: string | undefined, taken: () => void): boolean {
    if (id !== undefined) this.lastId = id;
    if (this.res.writableLength === 0) this.takenAt = Date.now();
    return this.res.write(text, taken);
  }

  /**
   * Writes the frames that wait once the first fits (or nothing else waits for the socket): the
   * others came within the bound beside it. Then ends the response when {@link SseWriter.end} was
   * called, else wakes {@link SseWriter.ready} once the socket is not full. Called whenever the
   * socket took a chunk and on `'drain'`.
   */
  private flush(): void {
    if (this.res.destroyed || this.res.writableEnded) return;
    const [first, ...after] = this.waiting;
    if (first !== undefined) {
      const unread = this.res.writableLength;
      if (unread > 0 && unread + first.size > this.maxBufferedBytes) return;
      this.discardWaiting();
      this.put(first.text, first.id, this.takenUnbound);
      for (const next of after) this.put(next.text, next.id, this.taken);
    }
    if (this.ending) this.res.end();
    else if (!this.res.writableNeedDrain) this.wake(true);
  }

  private discardWaiting(): void {
    this.waiting = [];
    this.waitingBytes = 0;
  }

  /**
   * Ends a client that does not read: one last frame, then the connection closes: gracefully once
   * it is flushed, at once when the client has not read it after a grace.
   */
  private drop(): void {
    this.dropped = true;
    this.stopHeartbeat();
    this.discardWaiting();
    const reason = `the client did not read: more than ${this.maxBufferedBytes} bytes were waiting for it`;
    const socket = this.res.socket;
    this.res.end(frame(this.lastMessage({ reason, lastEventId: this.lastId ?? null })));
    if (socket === null) return;
    // Not kept alive for another request: the kernel may have taken the frames the client never read.
    this.res.once("finish", () => socket.end());
    const timer = setTimeout(() => {
      this.res.destroy();
      socket.destroy();
    }, GRACE_MS);
    timer.unref?.();
    socket.once("close", () => clearTimeout(timer));
  }

  /**
   * What `droppedMessage` returns, or the default message when it throws or returns no message: the
   * client is dropped either way (from `send` or from the heartbeat's timer, where a throw would
   * crash the process), and the hook's fault is a process warning.
   */
  private lastMessage(info: { reason: string; lastEventId: string | null }): SseMessage {
    let message: unknown;
    try {
      message = this.droppedMessage(info);
    } catch (error) {
      warnDroppedMessage(`threw: ${error instanceof Error ? error.message : String(error)}`);
      return defaultDroppedMessage(info);
    }
    if (isSseMessage(message)) return message;
    // An `async` hook: its message comes too late, and its rejection must not crash the process.
    const got = refusePromise(message) ? "a Promise" : describeValue(message);
    warnDroppedMessage(`must return a message ({ id?: string | number, event?: string, data?: string }, synchronously), got ${got}`);
    return defaultDroppedMessage(info);
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private wake(open: boolean): void {
    for (const resolve of this.waiters.splice(0)) resolve(open);
  }
}

/** A frame that waits for room, with its message's id. */
interface Waiting {
  text: string | Uint8Array;
  size: number;
  id: string | undefined;
}

function describeValue(value: unknown): string {
  return valueToText(value, { quoteStrings: true });
}

function warnDroppedMessage(problem: string): void {
  process.emitWarning(`SseWriter: \`droppedMessage\` ${problem}; the dropped client got the default \`event: dropped\` frame instead.`, { code: "AGENTRX_SSE_DROPPED_MESSAGE" });
}

function check(name: string, value: unknown, min: number, max = Number.MAX_VALUE): void {
  if (!(typeof value === "number" && Number.isFinite(value) && value >= min && value <= max)) {
    const range = max === Number.MAX_VALUE ? `>= ${min}` : `from ${min} to ${max} (the longest a timer waits)`;
    throw new InvalidArgumentError({ argument: name, value, message: `SseWriter: \`${name}\` must be a number ${range}, got ${JSON.stringify(value)}.` });
  }
}
