const MARKER = "agentrx.error";
const MARKER_SYMBOL = Symbol.for(MARKER);

/** Options shared by every {@link AgentRxError}. */
export interface AgentRxErrorOptions {
  /** The error's name; subclasses pass their own. */
  name: string;
  /** What went wrong and, where it helps, what would fix it. */
  message: string;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * The base class of every error AgentRx throws. Use {@link AgentRxError.isInstance} rather than
 * `instanceof`: it keeps working when two copies of `@agentrx/core` are installed.
 *
 * @example
 * ```ts
 * import { AgentRxError } from "@agentrx/core";
 *
 * try {
 *   throw new AgentRxError({ name: "AgentRxError", message: "boom" });
 * } catch (error) {
 *   if (AgentRxError.isInstance(error)) console.log(error.name);
 * }
 * ```
 */
export class AgentRxError extends Error {
  protected readonly [MARKER_SYMBOL] = true;

  /** The underlying error, if any. */
  declare readonly cause?: unknown;

  constructor({ name, message, cause }: AgentRxErrorOptions) {
    super(message);
    this.name = name;
    if (cause !== undefined) this.cause = cause;
  }

  /** Returns true when `error` is an AgentRx error (from any copy of the package). */
  static isInstance(error: unknown): error is AgentRxError {
    return AgentRxError.hasMarker(error, MARKER);
  }

  /**
   * Returns true when `error` carries the marker `Symbol.for(marker)`. Subclasses call this with
   * their own marker in their static `isInstance`.
   */
  protected static hasMarker(error: unknown, marker: string): boolean {
    const symbol = Symbol.for(marker);
    return (
      error != null &&
      typeof error === "object" &&
      symbol in error &&
      (error as Record<symbol, unknown>)[symbol] === true
    );
  }
}
