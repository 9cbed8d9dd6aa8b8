import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateExpression } from "./evaluate-expression";
import { ExpressionError } from "./expression-error";

describe("evaluateExpression on arbitrary input", () => {
  it("returns a finite number or throws an ExpressionError, never anything else", () => {
    const pieces = fc.constantFrom("1", "2.5", "pi", "x", "+", "-", "*", "/", "^", "!", "%", "(", ")", "[", "]", "{", "}", ".", ",", ";", "=", ":", "?", '"a"', "sqrt", "f", "import", "constructor", " ");
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join(""))), (expression) => {
        try {
          expect(Number.isFinite(evaluateExpression(expression))).toBe(true);
        } catch (error) {
          expect(ExpressionError.isInstance(error), String(error)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
