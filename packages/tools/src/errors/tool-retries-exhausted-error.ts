import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.ToolRetriesExhaustedError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A retry policy gave up: every attempt failed with a retryable error, or the last one asked for a
 * longer wait (`retryAfterMs`) than the policy's `maxDelayMs`. `cause` is the last error.
 *
 * @example
 * ```ts
 * import { ToolRetriesExhaustedError } from "@agentrx/tools";
 *
 * const error = new ToolRetriesExhaustedError({ toolName: "search", attempts: 3, cause: new Error("503") });
 * console.log(error.message); // Tool "search" failed after 3 attempts: 503
 * ```
 */
export class ToolRetriesExhaustedError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The tool that kept failing. */
  readonly toolName: string;
  /** How many attempts were made. */
  readonly attempts: number;

  constructor({ toolName, attempts, cause, message }: { toolName: string; attempts: number; cause: unknown; message?: string }) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super({
      name: "ToolRetriesExhaustedError",
      message: message ?? `Tool "${toolName}" failed after ${attempts} attempts: ${reason}`,
      cause,
    });
    this.toolName = toolName;
    this.attempts = attempts;
  }

  /** Returns true when `error` is a {@link ToolRetriesExhaustedError} (from any copy of the package). */
  static override isInstance(error: unknown): error is ToolRetriesExhaustedError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
