import { InvalidArgumentError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { createCalculatorTool } from "./calculator-tool";
import { evaluateExpression } from "./evaluate-expression";
import { ExpressionError } from "./expression-error";

const calculator = createCalculatorTool();

describe("evaluateExpression", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["2 ^ 3 ^ 2", 512],
    ["-2 ^ 2", -4],
    ["10 % 3", 1],
    ["-7 % 3", 2],
    ["mod(7, -3)", -2],
    ["5!", 120],
    ["2 pi", 2 * Math.PI],
    ["sqrt(16) + abs(-3)", 7],
    ["log(8, 2)", 3],
    ["max(1, 7, 3) - min(4, 2)", 5],
    ["round(3.14159, 2)", 3.14],
    ["1e3 / 4", 250],
  ])("evaluates %s", async (expression, expected) => {
    expect(await evaluateExpression(expression)).toBeCloseTo(expected, 10);
  });

  it.each([
    ["a.b", /property and index access are not allowed/],
    ["[1, 2][1]", /not allowed/],
    ['"abc".length', /property and index access/],
    ["x = 5", /assignment is not allowed/],
    ["f(x) = x ^ 2", /defining functions is not allowed/],
    ["1; 2", /only one expression/],
    ["{a: 1}", /objects are not allowed/],
    ["[1, 2, 3]", /matrices and arrays are not allowed/],
    ["1:10", /ranges are not allowed/],
    ["1 < 2", /operator "<" is not allowed/],
    ["1 ? 2 : 3", /conditionals are not allowed/],
    ['"text"', /only numbers are allowed/],
    ["true + 1", /only numbers are allowed/],
    ["x + 1", /unknown name "x"/],
    ["import({}, {})", /unknown function "import"/],
    ['evaluate("1+1")', /unknown function "evaluate"/],
    ['parse("1")', /unknown function "parse"/],
    ['createUnit("foo")', /unknown function "createUnit"/],
    ["constructor(1)", /unknown function "constructor"/],
    ["toString(1)", /unknown function "toString"/],
    ["constructor", /unknown name "constructor"/],
    ["__proto__ + 1", /unknown name "__proto__"/],
    ["hasOwnProperty * 0", /unknown name "hasOwnProperty"/],
    ["2 cm", /unknown name "cm"/],
    ["sqrt(a.b)", /property and index access/],
    ["sqrt(1, 2)", /sqrt takes 1 argument\(s\), got 2/],
    ["1 +", /does not parse/],
    ["", /the expression is empty/],
  ])("refuses %s", async (expression, message) => {
    await expect(evaluateExpression(expression)).rejects.toThrow(message);
    await expect(evaluateExpression(expression)).rejects.toThrow(ExpressionError);
  });

  it("refuses a modulo by zero (it used to give the dividend) and comments (it used to drop what followed)", async () => {
    for (const expression of ["5 % 0", "5 % (2 - 2)", "mod(5, 0)", "-0.5 % (-0)"]) {
      await expect(evaluateExpression(expression), expression).rejects.toThrow(/modulo by zero is undefined/);
    }
    for (const expression of ["1 # comment", "1 + 2 # + 3", "#", "2 * 3#"]) {
      await expect(evaluateExpression(expression), expression).rejects.toThrow(/comments \("#"\) are not allowed; send only the expression/);
    }
  });

  it("reads % as a modulo between operands and a percentage after one, and refuses a % right before a sign, which reads both ways", async () => {
    for (const [expression, expected] of [["50%", 0.5], ["200 + 10%", 220], ["8% * 50", 4], ["10 % 3", 1], ["10 % (-3)", -2], ["mod(10, -3)", -2]] as const) {
      expect(await evaluateExpression(expression), expression).toBeCloseTo(expected, 10);
    }
    // mathjs reads each as a modulo by the signed number: 0, 0 and 0, not 1.5, -0.92 and 13.
    await expect(evaluateExpression("50% + 1")).rejects.toThrow('Cannot evaluate "50% + 1": "50 % +1" is ambiguous: write "50 % (+1)" or "mod(50, +1)" for a modulo, or "50 / 100 + 1" for a percentage.');
    await expect(evaluateExpression("1 + 8% - 2")).rejects.toThrow(/"8 % -2" is ambiguous/);
    await expect(evaluateExpression("10 % -3")).rejects.toThrow(/"10 % -3" is ambiguous/);
    await expect(evaluateExpression("50% -2 pi")).rejects.toThrow(/"50 % -2 pi" is ambiguous/);
  });

  it("computes a modulo of large whole numbers exactly, with the sign of the divisor", async () => {
    // x - y * floor(x / y) lost the remainder once x / y was too large to be exact.
    for (const [expression, expected] of [
      ["2^60 % 10", 6],
      ["1e17 % 7", 5],
      ["mod(1e17, 7)", 5],
      ["100000000000000000 % 7", 5],
      ["-(2^60) % 10", 4],
      ["mod(2^60, -10)", -4],
      ["-7 % 3", 2],
      ["7 % (-3)", -2],
      ["-7 % (-3)", -1],
      ["5.5 % 2", 1.5],
      ["-5.5 % 2", 0.5],
      ["mod(1, 1e17)", 1],
      ["mod(-3, 2^40)", 2 ** 40 - 3],
    ] as const) {
      expect(await evaluateExpression(expression), expression).toBe(expected);
    }
    expect(Object.is(await evaluateExpression("-6 % 3"), 0), "-6 % 3 is 0, not -0").toBe(true);
    await expect(calculator.invoke({ expression: "2^60 % 10" })).resolves.toBe("6");
    await expect(calculator.invoke({ expression: "1e17 % 7" })).resolves.toBe("5");
  });

  it("says NaN is not a number, rather than too large", async () => {
    await expect(evaluateExpression("NaN + 1")).rejects.toThrow('Cannot evaluate "NaN + 1": "NaN" is not a number to compute with.');
    await expect(evaluateExpression("1e400")).rejects.toThrow(/too large to compute with/);
  });

  it("rejects with an ExpressionError for an expression that is not a string", async () => {
    const throwing = { toString: () => { throw new Error("no"); } };
    for (const expression of [undefined, null, 42, Symbol("x"), throwing, ["1 + 1"]]) {
      let error: unknown;
      try {
        await evaluateExpression(expression as never);
      } catch (caught) {
        error = caught;
      }
      expect(ExpressionError.isInstance(error), String(typeof expression)).toBe(true);
      expect((error as ExpressionError).message).toMatch(/: the expression must be a string, got /);
      expect(typeof (error as ExpressionError).expression).toBe("string");
    }
    await expect(evaluateExpression(undefined as never)).rejects.toThrow("Cannot evaluate undefined: the expression must be a string, got undefined.");
  });

  it("bounds huge exponents, factorials and inputs instead of hanging", async () => {
    await expect(evaluateExpression("9 ^ 9 ^ 9 ^ 9")).rejects.toThrow(/not a finite number/);
    await expect(evaluateExpression("1000000000!")).rejects.toThrow(/not a finite number/);
    await expect(evaluateExpression("factorial(1e308)")).rejects.toThrow(/not a finite number/);
    await expect(evaluateExpression("2.5!")).rejects.toThrow(/factorial needs a whole number/);
    await expect(evaluateExpression("1/0")).rejects.toThrow(/not a finite number/);
    await expect(evaluateExpression("1+".repeat(300) + "1")).rejects.toThrow(/longer than 500 characters/);
    await expect(evaluateExpression("1+".repeat(150) + "1")).rejects.toThrow(/more than 200 parts/);
    await expect(evaluateExpression("(".repeat(240) + "1" + ")".repeat(240))).rejects.toThrow(/more than 200 parts/);
  });
});

describe("evaluateExpression on the way to the answer", () => {
  it("refuses an infinity or NaN in any step, not only in the result", async () => {
    for (const [expression, step] of [
      ["1 / (1 / 0)", "1 / 0"],
      ["sqrt(-1) ^ 0", "sqrt(-1)"],
      ["sign(1 / 0)", "1 / 0"],
      ["atan(10 ^ 400)", "10 ^ 400"],
      ["1 / 171!", "171!"],
      ["hypot(1 / 0, sqrt(-1))", "1 / 0"],
    ] as const) {
      const error = await evaluateExpression(expression).catch((caught: unknown) => caught);
      expect(ExpressionError.isInstance(error), expression).toBe(true);
      expect((error as Error).message, expression).toContain(`"${step}" is not a finite number`);
    }
    await expect(evaluateExpression("0 * 1e400")).rejects.toThrow(/a number in it is too large to compute with/);
    await expect(evaluateExpression("1e-400 + 1")).resolves.toBe(1);
  });

  it("refuses a logarithm whose own steps are not finite, such as the log of a base 0", async () => {
    // log(x, 0) is log(x) / log(0) = log(x) / -Infinity: it used to answer 0.
    for (const expression of ["log(8, 0)", "log(1000, 0)", "log(0.5, 0)", "log(0, 2)", "log(0)", "log(8, 1)"]) {
      const error = await evaluateExpression(expression).catch((caught: unknown) => caught);
      expect(ExpressionError.isInstance(error), expression).toBe(true);
      expect((error as Error).message, expression).toMatch(/is not a finite number/);
    }
    await expect(evaluateExpression("log(8, 0)")).rejects.toThrow('Cannot evaluate "log(8, 0)": "log(0)" is not a finite number (-Infinity).');
    await expect(calculator.invoke({ expression: "log(1000, 0)" })).rejects.toThrow(ExpressionError);
    expect(await evaluateExpression("log(8, 2)")).toBeCloseTo(3, 12);
    expect(await evaluateExpression("log(0.25, 0.5)")).toBeCloseTo(2, 12);
  });

  it("refuses options that are not limits, and misspelt ones", async () => {
    await expect(evaluateExpression("1 + 1", { maxLength: Number.NaN })).rejects.toThrow(/evaluateExpression maxLength must be an integer >= 1, got NaN/);
    await expect(evaluateExpression("1 + 1", { maxNodes: "5" as never })).rejects.toThrow(InvalidArgumentError);
    await expect(evaluateExpression("1 + 1", { maxlength: 5 } as never)).rejects.toThrow(/unknown option `maxlength`; did you mean `maxLength`\?/);
    expect(() => createCalculatorTool({ maxnodes: 5 } as never)).toThrow(/createCalculatorTool: unknown option `maxnodes`; did you mean `maxNodes`\?/);
  });
});

describe("createCalculatorTool", () => {

  it("answers with the rounded number as text", async () => {
    await expect(calculator.invoke({ expression: "0.1 + 0.2" })).resolves.toBe("0.3");
    await expect(calculator.invoke({ expression: "2 ^ 10" })).resolves.toBe("1024");
  });

  it("rejects missing and wrong-typed arguments", async () => {
    await expect(calculator.invoke({} as never)).rejects.toThrow(/did not match expected schema/);
    await expect(calculator.invoke({ expression: 42 } as never)).rejects.toThrow(/did not match expected schema/);
  });

  it("reports a refused expression with a message for the model", async () => {
    await expect(calculator.invoke({ expression: "process.exit(1)" })).rejects.toThrow(
      /Cannot evaluate "process.exit\(1\)": unknown function "process.exit"/,
    );
  });

  it("validates its options", () => {
    expect(() => createCalculatorTool({ precision: 40 })).toThrow(InvalidArgumentError);
    expect(() => createCalculatorTool({ maxLength: 0 })).toThrow(/maxLength must be an integer >= 1/);
  });
});
