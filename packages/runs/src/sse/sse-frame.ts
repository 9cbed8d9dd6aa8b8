// The wire form of a Server-Sent Events message, and the message a dropped client gets by default.
import { isThenable } from "@agentrx/core";

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

/**
 * A field's value on one line: a client ends a line at CR, LF or CRLF, so a break inside a comment,
 * an id or an event name would start a field of its own (a `data:` line, say: a message the server
 * never sent).
 */
export function oneLine(text: string): string {
  return text.replace(/\r\n|\r|\n/g, " ");
}

/** One SSE frame. */
export function frame({ id, event, data }: SseMessage): string {
  const head = `${id === undefined ? "" : `id: ${oneLine(String(id))}\n`}${event === undefined ? "" : `event: ${oneLine(event)}\n`}`;
  const lines = data === undefined ? "" : data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join("");
  return `${head}${lines}\n`;
}

/** The last message of a client dropped for not reading, unless `droppedMessage` says otherwise. */
export function defaultDroppedMessage(info: { reason: string; lastEventId: string | null }): SseMessage {
  return { event: "dropped", data: JSON.stringify(info) };
}

/** Whether `value` is a message (what `droppedMessage` must return): a Promise is not one. */
export function isSseMessage(value: unknown): value is SseMessage {
  if (typeof value !== "object" || value === null || isThenable(value)) return false;
  const { id, event, data } = value as Record<string, unknown>;
  return (id === undefined || typeof id === "string" || typeof id === "number") && (event === undefined || typeof event === "string") && (data === undefined || typeof data === "string");
}
