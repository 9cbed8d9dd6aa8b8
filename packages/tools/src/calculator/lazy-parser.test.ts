import { describe, expect, it, vi } from "vitest";

// Counts when mathjs is loaded: importing @agentrx/tools must not load it (it takes about a second).
const loads = vi.hoisted(() => ({ mathjs: 0 }));
vi.mock("mathjs", async (importOriginal) => {
  loads.mathjs += 1;
  return importOriginal();
});

describe("the calculator's parser", () => {
  it("is loaded on the calculator's first use, not when the package is imported", async () => {
    const tools = await import("../index");
    expect(loads.mathjs).toBe(0);
    const calculator = tools.createCalculatorTool();
    expect(loads.mathjs).toBe(0);
    expect(await calculator.invoke({ expression: "6 * 7" })).toBe("42");
    expect(await tools.evaluateExpression("2 ^ 10")).toBe(1024);
    expect(loads.mathjs).toBe(1);
  });
});
