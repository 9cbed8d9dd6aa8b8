import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateExpression } from "./evaluate-expression";
import { ExpressionError } from "./expression-error";

describe("evaluateExpression on arbitrary input", () => {
  it("resolves with a finite number or rejects with an ExpressionError, never anything else", async () => {
    const pieces = fc.constantFrom("1", "2.5", "pi", "x", "+", "-", "*", "/", "^", "!", "%", "(", ")", "[", "]", "{", "}", ".", ",", ";", "=", ":", "?", '"a"', "sqrt", "f", "import", "constructor", " ");
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join(""))), async (expression) => {
        try {
          expect(Number.isFinite(await evaluateExpression(expression))).toBe(true);
        } catch (error) {
          expect(ExpressionError.isInstance(error), String(error)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
