import { checkOptionKeys } from "@agentrx/core";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { checkNumberOption } from "../internal/check-number-option";
import { CALCULATOR_FUNCTIONS, EVALUATE_OPTION_KEYS, evaluateExpression, type EvaluateExpressionOptions } from "./evaluate-expression";
import { checkOptionsObject, checkToolName } from "../internal/check-options";
import type { TypedTool } from "../typed-tool/typed-tool";

/** Options of {@link createCalculatorTool}. */
export interface CalculatorToolOptions extends EvaluateExpressionOptions {
  /** The tool's name. @default "calculator" */
  name?: string;
  /** Significant digits of the answer (1 to 17). @default 12 */
  precision?: number;
}

/**
 * What the calculator tool takes: the expression to evaluate.
 *
 * @example
 * ```ts
 * import type { CalculatorToolInput } from "@agentrx/tools";
 *
 * const input: CalculatorToolInput = { expression: "(12.5 * 4) / sqrt(16)" };
 * ```
 */
export interface CalculatorToolInput {
  /** The arithmetic expression, e.g. `"(12.5 * 4) / sqrt(16)"`. */
  expression: string;
}

/**
 * A calculator tool on a real expression parser (see {@link evaluateExpression}): no `eval`, no
 * variables, no property access, no function definitions, bounded input size. The answer is the
 * number as text, rounded to `precision` significant digits; a refused expression fails with an
 * {@link ExpressionError} that tells the model what to change. The options may be left out; if given,
 * they must be an object, or an `InvalidArgumentError` naming them is thrown, as for a bad value.
 * Its type is a {@link TypedTool} (input {@link CalculatorToolInput}, output the answer as text).
 *
 * @example
 * ```ts
 * import { createCalculatorTool } from "@agentrx/tools";
 *
 * const calculator = createCalculatorTool();
 * console.log(await calculator.invoke({ expression: "0.1 + 0.2" })); // 0.3
 * ```
 */
export function createCalculatorTool(options: CalculatorToolOptions = {}): TypedTool<CalculatorToolInput> {
  checkOptionsObject("createCalculatorTool", options, "{ precision: 8 }");
  checkOptionKeys("createCalculatorTool", options, ["name", "precision", ...EVALUATE_OPTION_KEYS]);
  const { name = "calculator", precision = 12, ...limits } = options;
  checkToolName("createCalculatorTool", name);
  checkNumberOption("createCalculatorTool precision", precision, { min: 1, max: 17, integer: true });
  checkNumberOption("createCalculatorTool maxLength", limits.maxLength ?? 500, { min: 1, integer: true });
  checkNumberOption("createCalculatorTool maxNodes", limits.maxNodes ?? 200, { min: 1, integer: true });
  return tool(
    async ({ expression }) => String(Number((await evaluateExpression(expression, limits)).toPrecision(precision))),
    {
      name,
      description:
        "Evaluates one arithmetic expression and returns the number. Supports + - * / ^ % (modulo) ! (factorial), " +
        `parentheses, the constants pi, e, tau, phi and the functions ${CALCULATOR_FUNCTIONS.join(", ")}. ` +
        "Angles are in radians. No variables.",
      schema: z.object({ expression: z.string().describe('The expression, e.g. "(12.5 * 4) / sqrt(16)".') }),
    },
  );
}
