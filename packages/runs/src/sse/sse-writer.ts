import type { IncomingMessage, ServerResponse } from "node:http";
import { InvalidArgumentError, MAX_TIMER_DELAY_MS, checkOptionKeys, isThenable, refusePromise } from "@agentrx/core";

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
   * beyond the socket). A client past it is dropped: the stream ends with an `event: dropped`
   * frame (its data says why and the last id sent) and the connection is closed.
   * @default 1048576 (1 MiB)
   */
  maxBufferedBytes?: number;
  /** The `retry:` field sent first (how long an `EventSource` waits before reconnecting, ms). */
  retryMs?: number;
  /** Extra response headers (e.g. `x-vercel-ai-ui-message-stream`). */
  headers?: Record<string, string>;
  /**
   * The last message sent to a client dropped for not reading, from why (`reason`) and the last id
   * sent; for a protocol whose clients read only `data` (the AI SDK's UI message stream: an `error`
   * chunk; A2A's JSON-RPC responses: an error response). Called synchronously; when it throws or
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

/**
 * One Server-Sent Events message.
 *
 * @example
 * ```ts
 * import type { SseMessage } from "@agentrx/runs";
 *
 * const message: SseMessage = { id: 3, event: "token", data: JSON.stringify({ text: "Hi" }) };
 * ```
 */
export interface SseMessage {
  /** The `id:` field (what the browser sends back as `Last-Event-ID`); a line break in it is sent as a space. */
  id?: string | number;
  /** The `event:` field; absent means `message`; a line break in it is sent as a space. */
  event?: string;
  /** The `data:` field (one line per line of it); absent for a frame that only moves the id. */
  data?: string;
}

const GRACE_MS = 5_000;

/**
 * Writes Server-Sent Events to a Node `http` response, with backpressure: {@link SseWriter.send}
 * says when the socket is full, {@link SseWriter.ready} waits until it drained (a source that can
 * pause awaits it), and a client that holds more than `maxBufferedBytes` unread is dropped, so a
 * client that never reads costs the server a bounded amount of memory.
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
  private readonly res: ServerResponse;
  private readonly maxBufferedBytes: number;
  private readonly heartbeatMs: number;
  private readonly retryMs: number | undefined;
  private readonly headers: Record<string, string>;
  private readonly droppedMessage: NonNullable<SseWriterOptions["droppedMessage"]>;
  private opened = false;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private waiters: ((open: boolean) => void)[] = [];
  private lastId: string | undefined;
  private closeListeners: (() => void)[] = [];
  /** Whether the client was dropped for not reading. */
  dropped = false;

  constructor(res: ServerResponse, options: SseWriterOptions = {}) {
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
    res.on("drain", () => this.wake(true));
    res.on("close", () => {
      this.stopHeartbeat();
      this.wake(false);
      for (const listener of this.closeListeners.splice(0)) listener();
    });
  }

  /** Whether the response ended or the client went away. */
  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  /** Bytes written but not yet taken by the socket. */
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
   * Sends one message. Returns false when the socket is full (await {@link SseWriter.ready} before
   * the next one, if the source can wait) or the stream is closed; drops the client instead when
   * this message would leave more than `maxBufferedBytes` unread.
   */
  send(message: SseMessage): boolean {
    this.open();
    if (message.id !== undefined) this.lastId = String(message.id);
    return this.write(frame(message));
  }

  /**
   * Writes bytes that are already Server-Sent Events frames (e.g. a UI message stream's body),
   * under the same bound as {@link SseWriter.send}: returns false when the socket is full or the
   * stream is closed, and drops the client instead when they would leave more than
   * `maxBufferedBytes` unread. Write whole frames, so the last message of a drop starts a frame.
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

  /** Resolves with true once the socket drained (at once when it is not full), false once the stream closed. */
  ready(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (!this.res.writableNeedDrain) return Promise.resolve(true);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Calls `listener` once when the client goes away or the response ends. */
  onClose(listener: () => void): void {
    if (this.res.destroyed || this.res.writableFinished) listener();
    else this.closeListeners.push(listener);
  }

  /** Ends the stream, after `last` when given. */
  end(last?: SseMessage): void {
    this.stopHeartbeat();
    if (this.closed) return;
    if (last !== undefined) this.send(last);
    this.res.end();
  }

  /**
   * Writes `text` unless it would leave more than `maxBufferedBytes` unread: then the client is
   * dropped instead. A frame larger than the bound by itself still goes to a client that has read
   * everything before it (else it could never be sent), so what the server holds for one client is
   * at most the larger of the bound and one frame.
   */
  private write(text: string | Uint8Array): boolean {
    if (this.closed) return false;
    const waiting = this.res.writableLength;
    if (waiting > 0 && waiting + (typeof text === "string" ? Buffer.byteLength(text) : text.byteLength) > this.maxBufferedBytes) {
      this.drop();
      return false;
    }
    return this.res.write(text);
  }

  /**
   * Ends a client that does not read: one last frame, then the connection closes: gracefully once
   * it is flushed, at once when the client has not read it after a grace.
   */
  private drop(): void {
    this.dropped = true;
    this.stopHeartbeat();
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

function defaultDroppedMessage(info: { reason: string; lastEventId: string | null }): SseMessage {
  return { event: "dropped", data: JSON.stringify(info) };
}

function isSseMessage(value: unknown): value is SseMessage {
  if (typeof value !== "object" || value === null || isThenable(value)) return false;
  const { id, event, data } = value as Record<string, unknown>;
  return (id === undefined || typeof id === "string" || typeof id === "number") && (event === undefined || typeof event === "string") && (data === undefined || typeof data === "string");
}

function describeValue(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function warnDroppedMessage(problem: string): void {
  process.emitWarning(`SseWriter: \`droppedMessage\` ${problem}; the dropped client got the default \`event: dropped\` frame instead.`, { code: "AGENTRX_SSE_DROPPED_MESSAGE" });
}

/**
 * A field's value on one line: a client ends a line at CR, LF or CRLF, so a break inside a comment,
 * an id or an event name would start a field of its own (a `data:` line, say: a message the server
 * never sent).
 */
function oneLine(text: string): string {
  return text.replace(/\r\n|\r|\n/g, " ");
}

/** One SSE frame. */
function frame({ id, event, data }: SseMessage): string {
  const head = `${id === undefined ? "" : `id: ${oneLine(String(id))}\n`}${event === undefined ? "" : `event: ${oneLine(event)}\n`}`;
  const lines = data === undefined ? "" : data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join("");
  return `${head}${lines}\n`;
}

/**
 * The request's `Last-Event-ID` header as a number: `undefined` when absent or empty, `null` when it
 * is not a decimal integer (digits only, at most 15 of them: `1e308`, `0x10`, `-1`, `1.5` are refused).
 *
 * @example
 * ```ts
 * import { parseLastEventId } from "@agentrx/runs";
 * import type { IncomingMessage } from "node:http";
 * declare const req: IncomingMessage;
 *
 * const after = parseLastEventId(req);
 * if (after === null) console.log("400: Last-Event-ID must be a decimal integer");
 * ```
 */
export function parseLastEventId(req: IncomingMessage): number | undefined | null {
  const header = req.headers["last-event-id"];
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === "") return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : null;
}

/**
 * Decodes a percent-encoded URL path segment; `undefined` when it is malformed (a stray `%`), so a
 * server can answer `400` instead of failing with `URIError`.
 *
 * @example
 * ```ts
 * import { decodePathSegment } from "@agentrx/runs";
 *
 * console.log(decodePathSegment("run%201"), decodePathSegment("%E0%A4%A")); // "run 1" undefined
 * ```
 */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function check(name: string, value: unknown, min: number, max = Number.MAX_VALUE): void {
  if (!(typeof value === "number" && Number.isFinite(value) && value >= min && value <= max)) {
    const range = max === Number.MAX_VALUE ? `>= ${min}` : `from ${min} to ${max} (the longest a timer waits)`;
    throw new InvalidArgumentError({ argument: name, value, message: `SseWriter: \`${name}\` must be a number ${range}, got ${JSON.stringify(value)}.` });
  }
}
