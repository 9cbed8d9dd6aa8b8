import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.ExpressionError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * The calculator could not evaluate an expression: it does not parse, uses something other than
 * arithmetic and the allowed functions, or its result is not a finite number.
 *
 * @example
 * ```ts
 * import { ExpressionError, evaluateExpression } from "@agentrx/tools";
 *
 * try {
 *   evaluateExpression("x = 1");
 * } catch (error) {
 *   if (ExpressionError.isInstance(error)) console.log(error.expression); // x = 1
 * }
 * ```
 */
export class ExpressionError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The expression that was refused. */
  readonly expression: string;

  constructor({ expression, reason, cause }: { expression: string; reason: string; cause?: unknown }) {
    super({
      name: "ExpressionError",
      message: `Cannot evaluate ${JSON.stringify(expression.length > 80 ? `${expression.slice(0, 80)}...` : expression)}: ${reason}`,
      cause,
    });
    this.expression = expression;
  }

  /** Returns true when `error` is an {@link ExpressionError} (from any copy of the package). */
  static override isInstance(error: unknown): error is ExpressionError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
