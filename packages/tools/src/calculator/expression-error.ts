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
 *   await evaluateExpression("x = 1");
 * } catch (error) {
 *   if (ExpressionError.isInstance(error)) console.log(error.expression); // x = 1
 * }
 * ```
 */
export class ExpressionError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The expression that was refused (as text, when it was not a string). */
  readonly expression: string;

  constructor({ expression, reason, cause }: { expression: unknown; reason: string; cause?: unknown }) {
    const text = asText(expression);
    super({
      name: "ExpressionError",
      message: `Cannot evaluate ${typeof expression === "string" ? JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text) : text}: ${reason}`,
      cause,
    });
    this.expression = text;
  }

  /** Returns true when `error` is an {@link ExpressionError} (from any copy of the package). */
  static override isInstance(error: unknown): error is ExpressionError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
