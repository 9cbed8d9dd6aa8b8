import type { AgentStep } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentMiddleware, COMPACTED_STEPS_TOOL, compactSteps } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { act, echoTool, finish, scriptedAgent } from "../executor/test-helpers";

const noise = tool(async () => "static ".repeat(20), { name: "noise", description: "Makes noise.", schema: z.object({}) });
const dropNoise: AgentMiddleware = { name: "dropNoise", prepareStep: ({ steps }) => ({ steps: steps.filter((step) => step.action.tool !== "noise") }) };

/** The agent's turns: `echo` and `noise` by turns, `turns` of them, then an answer. */
function alternating(count: number) {
  const turns = Array.from({ length: count }, (_, i) => (i % 2 === 0 ? act("echo", { text: `echo ${i} ${"x".repeat(40)}` }) : act("noise", {})));
  return { ...scriptedAgent([...turns, finish("done")]), turns };
}

const toolsOf = (steps: readonly AgentStep[] | undefined) => (steps ?? []).map((step) => step.action.tool);

describe("compactSteps after another middleware's prepareStep", () => {
  it("compacts the steps the middleware before it returned, and never brings back a step it left out", async () => {
    const { agent, inputs } = alternating(8);
    const summarizer = new ScriptedChatModel({ responses: ["the earlier echoes"], onExhausted: "repeat-last" });
    const executor = new AgentExecutor({ agent, tools: [echoTool, noise], maxIterations: 20, middleware: [dropNoise, compactSteps({ model: summarizer, maxTokens: 60, keep: 2 })] });
    expect((await executor.invoke({ input: "go" })).output).toBe("done");
    expect(summarizer.calls.length).toBeGreaterThan(0);
    for (const input of inputs) expect(toolsOf(input.steps)).not.toContain("noise");
    const last = inputs.at(-1)?.steps;
    expect(toolsOf(last)[0]).toBe(COMPACTED_STEPS_TOOL);
    // Only the steps the agent would have seen are summarized: no noise step among them.
    const summarized = summarizer.calls.map((call) => String(call.messages.at(-1)?.content)).join("\n");
    expect(summarized).not.toMatch(/noise\(/);
    expect(summarized).toMatch(/echo\(/);
  });

  it("reads a recorded compaction the same way when the run is resumed", async () => {
    const store = new InProcessRunStore();
    // The first process fails at its 7th agent call (after compactions were recorded).
    const failing = scriptedAgent([...alternating(6).turns, new Error("model down")]);
    const summarizer = new ScriptedChatModel({ responses: ["the earlier echoes"], onExhausted: "repeat-last" });
    const middleware = [dropNoise, compactSteps({ model: summarizer, maxTokens: 60, keep: 2 })];
    const first = new AgentExecutor({ agent: failing.agent, tools: [echoTool, noise], maxIterations: 20, store, middleware });
    await expect(first.invoke({ input: "go" }, { runId: "compacted" })).rejects.toThrow("model down");
    const summaries = summarizer.calls.length;
    expect(summaries).toBeGreaterThan(0);
    const resumed = scriptedAgent([finish("done")]);
    const second = new AgentExecutor({ agent: resumed.agent, tools: [echoTool, noise], maxIterations: 20, store, middleware: [dropNoise, compactSteps({ model: summarizer, maxTokens: 10_000, keep: 2 })] });
    expect((await second.resume("compacted")).output).toBe("done");
    const seen = resumed.inputs[0]?.steps;
    expect(toolsOf(seen)[0]).toBe(COMPACTED_STEPS_TOOL);
    expect(toolsOf(seen)).not.toContain("noise");
    expect(toolsOf(seen)).toContain("echo");
    // The recorded summary is read, not written again.
    expect(summarizer.calls.length).toBe(summaries);
  });
});
