import { AgentRxError } from "./agentrx-error";

const MARKER = "agentrx.error.AbortError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A run was cancelled through its `AbortSignal`. Its `name` is `"AbortError"`, as for the DOM's
 * abort errors, so code that checks `error.name === "AbortError"` keeps working.
 *
 * @example
 * ```ts
 * import { AbortError } from "@agentrx/core";
 *
 * const error = new AbortError({ reason: "user pressed stop" });
 * console.log(error.name); // "AbortError"
 * ```
 */
export class AbortError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The signal's `reason`, if one was given. */
  readonly reason: unknown;

  constructor({ reason, message }: { reason?: unknown; message?: string } = {}) {
    super({
      name: "AbortError",
      message: message ?? abortMessage(reason),
      cause: reason,
    });
    this.reason = reason;
  }

  /** Returns true when `error` is an AgentRx {@link AbortError} (from any copy of the package). */
  static override isInstance(error: unknown): error is AbortError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

function abortMessage(reason: unknown): string {
  if (reason instanceof Error && reason.message) return `The run was aborted: ${reason.message}`;
  if (typeof reason === "string" && reason) return `The run was aborted: ${reason}`;
  return "The run was aborted.";
}

/** Returns true for any abort-shaped error: ours, the DOM's, or an SDK's (`name === "AbortError"`). */
export function isAbortError(error: unknown): boolean {
  return (
    AbortError.isInstance(error) ||
    (typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError")
  );
}
