import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.RequestRefusedError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/** Why a request was refused before anything was sent. */
export type RequestRefusedReason =
  | "invalid_url"
  | "protocol_not_allowed"
  | "host_not_allowed"
  | "port_not_allowed"
  | "address_not_allowed"
  | "dns_failed"
  | "method_not_allowed"
  | "header_not_allowed"
  | "invalid_path_parameter"
  /** An OpenAPI tool's query, header or body argument cannot be sent in the style its document gives (a nested object in a query parameter, say). */
  | "invalid_parameter";

/**
 * The safe HTTP layer refused a request: its URL, host, port, resolved address, method or headers are not
 * allowed by the tool's configuration. Nothing was sent to the refused URL (a refused redirect hop
 * follows a request that was sent).
 *
 * @example
 * ```ts
 * import { RequestRefusedError } from "@agentrx/tools";
 *
 * const error = new RequestRefusedError({
 *   reason: "host_not_allowed",
 *   url: "https://evil.example/",
 *   message: 'Host "evil.example" is not in allowedHosts.',
 * });
 * console.log(error.reason); // "host_not_allowed"
 * ```
 */
export class RequestRefusedError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** Which check refused the request. */
  readonly reason: RequestRefusedReason;
  /** The URL that was refused. */
  readonly url: string;

  constructor({ reason, url, message, cause }: { reason: RequestRefusedReason; url: string; message: string; cause?: unknown }) {
    super({ name: "RequestRefusedError", message: `Request refused: ${message}`, cause });
    this.reason = reason;
    this.url = url;
  }

  /** Returns true when `error` is a {@link RequestRefusedError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RequestRefusedError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
