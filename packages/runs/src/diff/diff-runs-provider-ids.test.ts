import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { AIMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatRunDiff } from "../cli/diff-command";
import { cliStyle } from "../cli/format-runs-table";
import { MemoryRunStore } from "../memory/index";
import { diffRuns, readRunRecord } from "./diff-runs";

const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });

function executorOf(store: RunStore, responses: ScriptedResponse[], system = "You are helpful.", recordPrompts?: boolean) {
  const prompt = ChatPromptTemplate.fromMessages([["system", system], ["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
  const llm = new ScriptedChatModel({ responses, model: "gpt-4o" });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], store, ...(recordPrompts === undefined ? {} : { recordPrompts }) });
}

/** An Anthropic-style reply: text and a `tool_use` block, with the id a provider makes up for each call. */
const anthropicCall = (id: string): ScriptedResponse =>
  new AIMessage({
    content: [
      { type: "text", text: "Let me check." },
      { type: "tool_use", id, name: "weather", input: { city: "Paris" } },
    ],
    tool_calls: [{ id, name: "weather", args: { city: "Paris" } }],
    usage_metadata: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
  });
const callWithId = (id: string): ScriptedResponse => ({ toolCalls: [{ name: "weather", args: { city: "Paris" }, id }], usage: { inputTokens: 5, outputTokens: 2 } });

describe("diffRuns on two independent runs (provider-made tool-call ids)", () => {
  it("compares a reply whose content is an array by its text, not by its tool_use blocks", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, [anthropicCall("toolu_01A"), "Sunny."]).invoke({ input: "Weather in Paris?" }, { runId: "a" });
    await executorOf(store, [anthropicCall("toolu_01B"), "Sunny."]).invoke({ input: "Weather in Paris?" }, { runId: "b" });
    const diff = diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "b"));
    expect(diff.iterations[0]?.reply).toEqual({ a: "Let me check.", b: "Let me check.", same: true });
    expect(diff.firstDivergence).toBeUndefined();
  });

  for (const recordPrompts of [false, true]) {
    it(`finds no divergence in the prompts after tool calls whose ids differ (recordPrompts: ${recordPrompts})`, async () => {
      const store = new MemoryRunStore();
      await executorOf(store, [callWithId("call_a1"), callWithId("call_a2"), "Sunny."], undefined, recordPrompts).invoke({ input: "Weather in Paris?" }, { runId: "a" });
      await executorOf(store, [callWithId("call_b1"), callWithId("call_b2"), "Sunny."], undefined, recordPrompts).invoke({ input: "Weather in Paris?" }, { runId: "b" });
      const diff = diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "b"));
      expect(diff.iterations[1]?.prompt.a).not.toBe(diff.iterations[1]?.prompt.b);
      expect(diff.iterations.map((iteration) => iteration.prompt.same)).toEqual([true, true, true]);
      expect(diff.firstDivergence).toBeUndefined();
      const promptIds = recordPrompts ? "ignored" : "uncompared";
      expect(diff.iterations.map((iteration) => iteration.promptIds)).toEqual([undefined, promptIds, promptIds]);
      const text = formatRunDiff(diff, cliStyle(false));
      expect(text).toContain(recordPrompts ? "prompt = the same but for tool-call ids (digests " : "prompt = not compared: the digests ");
      expect(text).toContain("No divergence");
    });
  }

  it("still finds a prompt that differs besides the ids, when the prompts are recorded", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, [callWithId("call_a1"), "Sunny."], "You are helpful.", true).invoke({ input: "Weather in Paris?" }, { runId: "a" });
    await executorOf(store, [callWithId("call_b1"), "Sunny."], "You are terse.", true).invoke({ input: "Weather in Paris?" }, { runId: "b" });
    const diff = diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "b"));
    expect(diff.iterations.map((iteration) => iteration.prompt.same)).toEqual([false, false]);
    expect(diff.firstDivergence).toMatchObject({ field: "prompt", iteration: 0 });
  });

  it("compares usage by its numbers: a streamed run's empty token details are no difference", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, [callWithId("call_1"), "Sunny."]).invoke({ input: "Weather in Paris?" }, { runId: "a" });
    await lastValueFrom(executorOf(store, [callWithId("call_1"), "Sunny."]).stream({ input: "Weather in Paris?" }, { runId: "b" }));
    const diff = diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "b"));
    expect(diff.a.usage?.total_tokens).toBe(diff.b.usage?.total_tokens);
    expect(diff.usage.same).toBe(true);
    expect(diff.iterations.map((iteration) => iteration.usage.same)).toEqual([true, true]);
    const text = formatRunDiff(diff, cliStyle(false));
    expect(text).not.toMatch(/usage +a:/);
  });
});
