import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.RetryableToolError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * Throw this from a tool to tell a retry policy that the failure is transient (a rate limit, a
 * flaky upstream) and worth another attempt. Any error with a `retryable: true` property counts
 * too; `retryAfterMs` asks the policy to wait at least that long before the next attempt.
 *
 * @example
 * ```ts
 * import { RetryableToolError } from "@agentrx/tools";
 *
 * throw new RetryableToolError({ message: "Upstream returned 503.", retryAfterMs: 1000 });
 * ```
 */
export class RetryableToolError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** Always true: retry policies look for this property. */
  readonly retryable = true;
  /** The least time to wait before the next attempt, if the failure said so (e.g. `Retry-After`). */
  readonly retryAfterMs: number | undefined;

  constructor({ message, retryAfterMs, cause }: { message: string; retryAfterMs?: number; cause?: unknown }) {
    super({ name: "RetryableToolError", message, cause });
    this.retryAfterMs = retryAfterMs;
  }

  /** Returns true when `error` is a {@link RetryableToolError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RetryableToolError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

/**
 * The default retry test: true for a {@link RetryableToolError} and for any error object with a
 * `retryable: true` property.
 *
 * @example
 * ```ts
 * import { isRetryableError } from "@agentrx/tools";
 *
 * console.log(isRetryableError(Object.assign(new Error("503"), { retryable: true }))); // true
 * ```
 */
export function isRetryableError(error: unknown): boolean {
  return (
    RetryableToolError.isInstance(error) ||
    (typeof error === "object" && error !== null && (error as { retryable?: unknown }).retryable === true)
  );
}
