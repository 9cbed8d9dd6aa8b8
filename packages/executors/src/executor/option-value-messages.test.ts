import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor, type AgentExecutorOptions } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { scriptedAgent } from "./test-helpers";

const { agent } = scriptedAgent([]);

function messageOf(options: Partial<AgentExecutorOptions>): string {
  try {
    new AgentExecutor({ agent, tools: [], ...options });
  } catch (error) {
    if (InvalidArgumentError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error("expected the constructor to throw");
}

describe("AgentExecutor option errors show the value given", () => {
  it.each([
    ["maxExecutionTime", Number.NaN, "got NaN."],
    ["maxExecutionTime", Number.POSITIVE_INFINITY, "got Infinity."],
    ["maxIterations", Number.NEGATIVE_INFINITY, "got -Infinity."],
    ["maxConcurrency", Number.NaN, "got NaN."],
  ])("%s = %s: the message says %s (JSON would say null)", (option, value, shown) => {
    expect(messageOf({ [option]: value })).toContain(shown);
  });

  it("takes maxIterations: Infinity as no limit", () => {
    expect(() => new AgentExecutor({ agent, tools: [], maxIterations: Number.POSITIVE_INFINITY })).not.toThrow();
    expect(messageOf({ maxIterations: 2.5 })).toBe("AgentExecutor: `maxIterations` must be an integer >= 0, or Infinity for no limit, got 2.5.");
  });
});
