import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions, type RunStore } from "@agentrx/executors";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { diffRuns, readRunRecord } from "../diff/diff-runs";
import { MemoryRunStore } from "../memory/index";
import { readPrompts } from "./read-prompts";

const lookup = tool(async ({ i }: { i: number }) => `Record ${i}: ${"details ".repeat(20)}`, { name: "lookup", description: "Looks a record up.", schema: z.object({ i: z.number() }) });

function executorOf(store: RunStore, system: string, steps: number, options: Partial<AgentExecutorOptions> = {}) {
  const prompt = ChatPromptTemplate.fromMessages([["system", system], ["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
  const responses: ScriptedResponse[] = [...Array.from({ length: steps }, (_, i): ScriptedResponse => ({ toolCalls: [{ name: "lookup", args: { i }, id: `c${i}` }] })), "Done."];
  const llm = new ScriptedChatModel({ responses, model: "gpt-4o" });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store, ...options });
}

const bytesOf = async (store: RunStore, runId: string) => (await store.readEvents(runId)).reduce((sum, event) => sum + JSON.stringify(event.data).length, 0);

describe("recordPrompts", () => {
  it("stream() records each model call's messages, tools and settings, each part once", async () => {
    const store = new MemoryRunStore();
    await lastValueFrom(executorOf(store, "You are careful.", 3).stream({ input: "Look up 3 records." }, { runId: "r" }).pipe(toArray()));
    const prompts = await readPrompts(store, "r");
    expect(prompts.map((prompt) => [prompt.call, prompt.iteration, prompt.messages.length])).toEqual([[0, 0, 2], [1, 1, 4], [2, 2, 6], [3, 3, 8]]);
    expect(prompts[0]?.messages[0]).toMatchObject({ type: "system", data: { content: "You are careful." } });
    expect(prompts[3]?.messages.at(-1)).toMatchObject({ type: "tool", data: { tool_call_id: "c2" } });
    expect(JSON.stringify(prompts[0]?.tools)).toContain('"name":"lookup"');
    expect(new Set(prompts.map((prompt) => prompt.hash)).size).toBe(4);
    // Content-addressed: the system message is stored once, in the first call's blobs.
    const events = await store.readEvents("r");
    const withSystem = events.filter((event) => event.type === "model_call" && JSON.stringify(event.data["blobs"] ?? {}).includes("You are careful."));
    expect(withSystem).toHaveLength(1);
  });

  it("is off for invoke() unless asked, and refused without recordModelCalls", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, "S", 1).invoke({ input: "x" }, { runId: "quiet" });
    expect(await readPrompts(store, "quiet")).toEqual([]);
    await executorOf(store, "S", 1, { recordPrompts: true }).invoke({ input: "x" }, { runId: "loud" });
    expect(await readPrompts(store, "loud")).toHaveLength(2);
    await lastValueFrom(executorOf(store, "S", 1, { recordPrompts: false }).stream({ input: "x" }, { runId: "off" }).pipe(toArray()));
    expect(await readPrompts(store, "off")).toEqual([]);
    expect(() => executorOf(store, "S", 1, { recordPrompts: true, recordModelCalls: false })).toThrow(/`recordPrompts: true` needs `recordModelCalls`/);
    await expect(readPrompts(store, "nope")).rejects.toThrow(/nope/);
  });

  it("recordModelCalls: false keeps model calls out of the record, for stream() too (whose model is watched through callbacks)", async () => {
    const store = new MemoryRunStore();
    await executorOf(store, "S", 2, { recordModelCalls: false }).invoke({ input: "x" }, { runId: "invoked" });
    await lastValueFrom(executorOf(store, "S", 2, { recordModelCalls: false }).stream({ input: "x" }, { runId: "streamed" }).pipe(toArray()));
    for (const runId of ["invoked", "streamed"]) {
      const types = (await store.readEvents(runId)).map((event) => event.type);
      expect(types).toContain("step");
      expect(types).not.toContain("model_call");
    }
    // With the default, both record them.
    await lastValueFrom(executorOf(store, "S", 2).stream({ input: "x" }, { runId: "default" }).pipe(toArray()));
    expect((await store.readEvents("default")).filter((event) => event.type === "model_call")).toHaveLength(3);
  });

  it("costs each distinct message once: bytes grow with the run, not with its square", async () => {
    const store = new MemoryRunStore();
    for (const [runId, recordPrompts] of [["with", true], ["without", false]] as const) {
      await executorOf(store, `You are careful. ${"House rules. ".repeat(50)}`, 10, { recordPrompts }).invoke({ input: "Look up 10 records." }, { runId });
    }
    const extra = (await bytesOf(store, "with")) - (await bytesOf(store, "without"));
    const prompts = await readPrompts(store, "with");
    const everySent = prompts.reduce((sum, prompt) => sum + JSON.stringify(prompt.messages).length, 0);
    // Every message once (the last call's messages) plus hashes, far less than every call's whole prompt.
    const lastPrompt = JSON.stringify(prompts.at(-1)?.messages).length;
    expect(extra).toBeGreaterThan(lastPrompt);
    expect(extra).toBeLessThan(everySent / 3);
  });

  it("diffRuns tells prompts apart when the system prompt changed", async () => {
    const store = new MemoryRunStore();
    await lastValueFrom(executorOf(store, "Be brief.", 1).stream({ input: "x" }, { runId: "a" }).pipe(toArray()));
    await lastValueFrom(executorOf(store, "Be thorough.", 1).stream({ input: "x" }, { runId: "b" }).pipe(toArray()));
    const diff = diffRuns(await readRunRecord(store, "a"), await readRunRecord(store, "b"));
    expect(diff.firstDivergence).toMatchObject({ field: "prompt", iteration: 0 });
  });
});
