import { AgentRxError } from "./agentrx-error";

const MARKER = "agentrx.error.InvalidArgumentError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A constructor option or function argument has a value that cannot work. The message names the
 * argument and says what is expected.
 *
 * @example
 * ```ts
 * import { InvalidArgumentError } from "@agentrx/core";
 *
 * const error = new InvalidArgumentError({
 *   argument: "maxIterations",
 *   value: -1,
 *   message: "maxIterations must be an integer >= 0, got -1.",
 * });
 * console.log(error.argument); // "maxIterations"
 * ```
 */
export class InvalidArgumentError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The name of the option or argument at fault. */
  readonly argument: string;
  /** The value that was given. */
  readonly value: unknown;

  constructor({
    argument,
    value,
    message,
    cause,
  }: {
    argument: string;
    value: unknown;
    message: string;
    cause?: unknown;
  }) {
    super({ name: "InvalidArgumentError", message, cause });
    this.argument = argument;
    this.value = value;
  }

  /** Returns true when `error` is an {@link InvalidArgumentError} (from any copy of the package). */
  static override isInstance(error: unknown): error is InvalidArgumentError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
