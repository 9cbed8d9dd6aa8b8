import { createToolCallingAgent } from "@agentrx/agents";
import { MODEL_CALL_OBSERVER_KEY, observesModelCalls, type AgentStep } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** A handler that counts the chat-model starts it sees (were callbacks attached to the agent?). */
class ModelStarts extends BaseCallbackHandler {
  name = "model_starts";
  count = 0;
  override handleChatModelStart(): void {
    this.count++;
  }
}

async function recordedModelCalls(store: MemoryRunStore) {
  const [run] = await store.listRuns({ limit: 1 });
  const events = await store.readEvents(run!.runId);
  return events.filter((event) => event.type === "model_call").map((event) => event.data as { inputCount: number; iteration: number; call: number });
}

describe("recording model calls without callbacks", () => {
  it("a built-in agent reports each model call to the executor's observer, and a model inside a tool never does", async () => {
    const inner = new ScriptedChatModel({ responses: [{ content: "inner answer" }] });
    const ask = tool(async ({ q }: { q: string }) => String((await inner.invoke(q)).content), {
      name: "ask",
      description: "Asks another model.",
      schema: z.object({ q: z.string() }),
    });
    const model = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "ask", args: { q: "hi" } }] }, { content: "done" }] });
    const agent = createToolCallingAgent({ llm: model, tools: [ask], prompt });
    expect(observesModelCalls(agent)).toBe(true);
    expect(observesModelCalls(agent.withConfig({ runName: "bound" }))).toBe(true);
    const store = new MemoryRunStore();
    const result = await lastValueFrom(new AgentExecutor({ agent, tools: [ask], store }).invoke({ input: "go" }));
    expect(result.output).toBe("done");
    const calls = await recordedModelCalls(store);
    // The agent's two calls, with what each was sent (one message, then three), and not the inner model's.
    expect(calls.map(({ call, iteration, inputCount }) => ({ call, iteration, inputCount }))).toEqual([
      { call: 0, iteration: 0, inputCount: 1 },
      { call: 1, iteration: 1, inputCount: 3 },
    ]);
    // The observer never leaks into what the model saw in its config.
    expect(JSON.stringify(model.calls)).not.toContain(MODEL_CALL_OBSERVER_KEY);
  });

  it("attaches no callback handler to the agent for it (a handler given by the caller sees the agent's models, and nothing is doubled)", async () => {
    const model = new ScriptedChatModel({ responses: [{ content: "done" }] });
    const agent = createToolCallingAgent({ llm: model, tools: [], prompt });
    const store = new MemoryRunStore();
    const starts = new ModelStarts();
    await lastValueFrom(new AgentExecutor({ agent, tools: [], store }).invoke({ input: "go" }, { callbacks: [starts] }));
    expect(starts.count).toBe(1);
    expect(await recordedModelCalls(store)).toHaveLength(1);
  });

  it("a custom agent that does not report its model calls is still recorded, through callbacks", async () => {
    const model = new ScriptedChatModel({ responses: [{ content: "custom done" }] });
    const agent = RunnableLambda.from(async (input: { input: string; steps: AgentStep[] }, config) => {
      const message: BaseMessage = await model.invoke(input.input, config);
      return { returnValues: { output: String(message.content) }, log: "" };
    });
    expect(observesModelCalls(agent)).toBe(false);
    const store = new MemoryRunStore();
    await lastValueFrom(new AgentExecutor({ agent, tools: [], store }).invoke({ input: "go" }));
    const calls = await recordedModelCalls(store);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.inputCount).toBe(1);
  });
});
