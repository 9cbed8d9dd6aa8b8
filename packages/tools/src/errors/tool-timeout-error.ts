import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.ToolTimeoutError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A tool call (or an HTTP request made by a tool) took longer than its time limit and was aborted.
 * It is marked `retryable`, so a retry policy around a timeout policy tries again, unless what
 * timed out may have taken effect and must not be repeated: the safe HTTP client's request whose
 * method is not idempotent (POST, PATCH, without an idempotency key), and a `timeoutPolicy` with
 * `retryable: false` or around a tool marked `withInDoubt(tool, "interrupt" | "fail")`.
 *
 * @example
 * ```ts
 * import { ToolTimeoutError } from "@agentrx/tools";
 *
 * const error = new ToolTimeoutError({ toolName: "search", timeoutMs: 500 });
 * console.log(error.message); // Tool "search" timed out after 500 ms.
 * ```
 */
export class ToolTimeoutError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The tool (or operation) that timed out. */
  readonly toolName: string;
  /** The limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * Whether a retry policy may try again: true, unless what timed out may have taken effect and
   * must not be repeated (see above).
   */
  readonly retryable: boolean;

  constructor({ toolName, timeoutMs, message, retryable = true }: { toolName: string; timeoutMs: number; message?: string; retryable?: boolean }) {
    super({
      name: "ToolTimeoutError",
      message:
        message ??
        `Tool "${toolName}" timed out after ${timeoutMs} ms. Try again with a simpler request, or raise the tool's timeout.`,
    });
    this.toolName = toolName;
    this.timeoutMs = timeoutMs;
    this.retryable = retryable;
  }

  /** Returns true when `error` is a {@link ToolTimeoutError} (from any copy of the package). */
  static override isInstance(error: unknown): error is ToolTimeoutError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
