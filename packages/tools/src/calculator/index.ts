export { createCalculatorTool } from "./calculator-tool";
export type { CalculatorToolInput, CalculatorToolOptions } from "./calculator-tool";
export { CALCULATOR_FUNCTIONS, evaluateExpression } from "./evaluate-expression";
export type { EvaluateExpressionOptions } from "./evaluate-expression";
export { ExpressionError } from "./expression-error";
