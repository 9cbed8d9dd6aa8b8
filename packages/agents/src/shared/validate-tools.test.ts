import { InvalidArgumentError } from "@agentrx/core";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { assertTools } from "./validate-tools";

const named = (name: string) => tool(async () => "x", { name, description: "d", schema: z.object({}) });
const EVERY = "Every tool needs a non-empty string `name` and an `invoke` method (tool() from @langchain/core/tools makes one).";

function messageOf(run: () => void): string | undefined {
  try {
    run();
  } catch (error) {
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe("tools");
    return (error as Error).message;
  }
  return undefined;
}

describe("assertTools", () => {
  it("takes an array of tools with unique names, each message naming the caller and the problem", () => {
    expect(messageOf(() => assertTools([named("a"), named("b")], "myAgent"))).toBeUndefined();
    expect(messageOf(() => assertTools({ a: named("a") }, "myAgent"))).toBe("myAgent: `tools` must be an array of @langchain/core tools (use [] for none), got an object.");
    expect(messageOf(() => assertTools([named("a"), named("b"), named("a")], "myAgent"))).toBe(
      'myAgent: `tools[0]` and `tools[2]` are both named "a"; tool names must be unique. Rename one of them.',
    );
    expect(messageOf(() => assertTools([named("a"), "b"], "myAgent"))).toBe(`myAgent: \`tools[1]\` is not a @langchain/core tool: it is a string. ${EVERY}`);
    expect(messageOf(() => assertTools([{ description: "d", invoke: () => "" }], "myAgent"))).toBe(`myAgent: \`tools[0]\` is not a @langchain/core tool: it has no \`name\`. ${EVERY}`);
    expect(messageOf(() => assertTools([{ name: "", invoke: () => "" }], "myAgent"))).toBe(`myAgent: \`tools[0]\` is not a @langchain/core tool: its \`name\` is empty. ${EVERY}`);
    // A name alone is not a tool (the agent constructors took one before; the executor then refused it).
    expect(messageOf(() => assertTools([{ name: "search", description: "d" }], "myAgent"))).toBe(
      `myAgent: \`tools[0]\` is not a @langchain/core tool: "search" has no \`invoke\` method. ${EVERY}`,
    );
  });

  it("counts the tools against `min`", () => {
    expect(messageOf(() => assertTools([], "createSelfAsk", { min: 1 }))).toBe("createSelfAsk: `tools` must hold at least 1 tool, got 0.");
    expect(messageOf(() => assertTools([named("a")], "x", { min: 2 }))).toBe("x: `tools` must hold at least 2 tools, got 1.");
    expect(messageOf(() => assertTools("a", "x", { min: 1 }))).toBe("x: `tools` must be an array of @langchain/core tools, got a string.");
  });

  it("refuses a reserved name unless the reservation allows that tool", () => {
    const own = named("final_answer");
    const reserved = [{ name: "final_answer", reason: "the caller's own tool", allows: (candidate: object) => candidate === own }];
    expect(messageOf(() => assertTools([named("a"), named("final_answer")], "AgentExecutor", { reserved }))).toBe(
      'AgentExecutor: `tools[1]` is named "final_answer", the caller\'s own tool. Rename it.',
    );
    expect(messageOf(() => assertTools([named("a"), own], "AgentExecutor", { reserved }))).toBeUndefined();
    expect(messageOf(() => assertTools([named("final_answer")], "AgentExecutor"))).toBeUndefined();
  });
});
