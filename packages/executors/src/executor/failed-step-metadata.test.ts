import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, echoTool, finish, scriptedAgent } from "./test-helpers";

const broken = tool(
  async () => {
    throw new Error("service down");
  },
  { name: "broken", description: "Always fails.", schema: z.object({}) },
);

async function stepsOf(actions: ReturnType<typeof act>[]) {
  const { agent } = scriptedAgent([actions, finish("done")]);
  const events = await lastValueFrom(new AgentExecutor({ agent, tools: [echoTool, broken] }).stream({ input: "go" }).pipe(toArray()));
  return events.filter((event): event is Extract<AgentStreamEvent, { type: "step" }> => event.type === "step");
}

describe("a failed tool call's step", () => {
  it("is marked failed in its metadata when the tool threw, its input did not fit, or no tool has its name; a call that worked is not", async () => {
    const steps = await stepsOf([act("broken"), act("echo", { text: 42 }), act("nope"), act("echo", { text: "hi" })]);
    // The calls run in parallel: their steps come as they finish.
    const marked = steps.map((step) => [step.step.action.tool, JSON.stringify(step.step.action.toolInput), step.metadata?.failed === true]);
    expect(marked.sort()).toEqual([
      ["broken", "{}", true],
      ["echo", '{"text":"hi"}', false],
      ["echo", '{"text":42}', true],
      ["nope", "{}", true],
    ]);
    expect(steps.find((step) => step.step.action.tool === "broken")?.step.observation).toMatch(/service down/);
  });
});
