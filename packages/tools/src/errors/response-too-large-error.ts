import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.ResponseTooLargeError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A response body exceeded the configured `maxResponseBytes`; the connection was closed.
 *
 * @example
 * ```ts
 * import { ResponseTooLargeError } from "@agentrx/tools";
 *
 * const error = new ResponseTooLargeError({ url: "http://127.0.0.1/big", maxResponseBytes: 1024 });
 * console.log(error.maxResponseBytes); // 1024
 * ```
 */
export class ResponseTooLargeError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The URL whose response was too large. */
  readonly url: string;
  /** The limit that was exceeded. */
  readonly maxResponseBytes: number;
  /** The bytes of the body read before reading stopped: 0 when its content-length was past the limit, so none was read. */
  readonly readBytes: number;

  /** `readBytes` (default 0) is how much of the body was read before reading stopped, which the message says. */
  constructor({ url, maxResponseBytes, readBytes = 0 }: { url: string; maxResponseBytes: number; readBytes?: number }) {
    const what = readBytes === 0 ? " by its content-length; it was not read" : `; reading stopped after ${readBytes} bytes, and what was read is dropped`;
    super({
      name: "ResponseTooLargeError",
      message: `The response from ${url} is larger than maxResponseBytes (${maxResponseBytes} bytes)${what}. Ask for a smaller resource (a page, a filter), or raise maxResponseBytes.`,
    });
    this.url = url;
    this.maxResponseBytes = maxResponseBytes;
    this.readBytes = readBytes;
  }

  /** Returns true when `error` is a {@link ResponseTooLargeError} (from any copy of the package). */
  static override isInstance(error: unknown): error is ResponseTooLargeError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
