import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.OutputValidationError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * The run's final answer did not fit the executor's `outputSchema`, and no iteration was left to
 * ask the model again. `issues` says what was wrong; `output` is the answer as given.
 *
 * @example
 * ```ts
 * import { OutputValidationError } from "@agentrx/executors";
 *
 * const error = new OutputValidationError({ output: "{}", issues: "name: Required" });
 * console.log(OutputValidationError.isInstance(error), error.issues); // true "name: Required"
 * ```
 */
export class OutputValidationError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;
  /** The final answer that did not validate. */
  readonly output: unknown;
  /** What the schema found wrong with it. */
  readonly issues: string;

  constructor({ output, issues }: { output: unknown; issues: string }) {
    super({ name: "OutputValidationError", message: `The final answer does not fit the executor's outputSchema (${issues}) and no iteration is left to ask the model again.` });
    this.output = output;
    this.issues = issues;
  }

  /** Returns true when `error` is an {@link OutputValidationError} (from any copy of the package). */
  static override isInstance(error: unknown): error is OutputValidationError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

