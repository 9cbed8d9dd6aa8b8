// What a Server-Sent Events request carries that a server must check: its `Last-Event-ID`, and
// percent-encoded path segments.
import type { SseRequest } from "./sse-response";

/**
 * The request's `Last-Event-ID` header as a number: `undefined` when absent or empty, `null` when it
 * is not a decimal integer (digits only, at most 15 of them: `1e308`, `0x10`, `-1`, `1.5` are refused).
 * `req` is a `node:http` `IncomingMessage`, or anything with its `headers` ({@link SseRequest}).
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
export function parseLastEventId(req: SseRequest): number | undefined | null {
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
