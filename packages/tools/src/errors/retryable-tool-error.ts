import { AgentRxError, InvalidArgumentError } from "@agentrx/core";

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
 * // or, as for an Error, just its message:
 * throw new RetryableToolError("Upstream returned 503.");
 * ```
 */
export class RetryableToolError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** Always true: retry policies look for this property. */
  readonly retryable = true;
  /** The least time to wait before the next attempt, if the failure said so (e.g. `Retry-After`). */
  readonly retryAfterMs: number | undefined;

  /**
   * @param options - `{ message, retryAfterMs?, cause? }`, or the message alone (as `new Error(message)` takes it).
   * @throws InvalidArgumentError when the message is not a string, or `retryAfterMs` is not a number
   */
  constructor(options: string | { message: string; retryAfterMs?: number; cause?: unknown }) {
    const { message, retryAfterMs, cause } = typeof options === "string" ? { message: options, retryAfterMs: undefined, cause: undefined } : checkedOptions(options);
    super({ name: "RetryableToolError", message, cause });
    this.retryAfterMs = retryAfterMs;
  }

  /** Returns true when `error` is a {@link RetryableToolError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RetryableToolError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

/** The constructor's options object, checked: a lost message or a wrong wait must not pass silently. */
function checkedOptions(options: unknown): { message: string; retryAfterMs?: number | undefined; cause?: unknown } {
  const fail = (message: string): never => {
    throw new InvalidArgumentError({ argument: "options", value: options, message: `RetryableToolError: ${message}` });
  };
  if (typeof options !== "object" || options === null) return fail(`pass { message, retryAfterMs?, cause? } or the message as a string, got ${options === null ? "null" : typeof options}.`);
  const { message, retryAfterMs } = options as { message?: unknown; retryAfterMs?: unknown };
  if (typeof message !== "string") fail(`\`message\` must be a string, got ${message === undefined ? "none" : typeof message}.`);
  // A number the policy cannot wait (NaN from a missing header, a negative one) waits nothing, as documented there.
  if (retryAfterMs !== undefined && typeof retryAfterMs !== "number") fail(`\`retryAfterMs\` must be a number of milliseconds, got ${typeof retryAfterMs}.`);
  return options as { message: string; retryAfterMs?: number; cause?: unknown };
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
