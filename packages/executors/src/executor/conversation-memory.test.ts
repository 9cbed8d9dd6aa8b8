import type { AgentStep } from "@agentrx/core";
import { AIMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { AgentExecutor } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runMessages } from "./conversation-memory";
import { scriptedAgent } from "./test-helpers";

/** Steps of one turn of calls `ids`; `copies`: each with its own copy of the message (a run rebuilt from its record). */
function turn(ids: string[], copies: boolean): AgentStep[] {
  const make = () => new AIMessage({ content: "", tool_calls: ids.map((id) => ({ id, name: "weather", args: {} })) });
  const shared = make();
  return ids.map((id) => ({ action: { tool: "weather", toolInput: {}, log: "", toolCallId: id, messageLog: [copies ? make() : shared] }, observation: `sunny ${id}` }) as AgentStep);
}

describe("runMessages", () => {
  it.each([
    ["live (one message object)", false],
    ["rebuilt from its record (a copy per step, no id)", true],
  ])("puts each turn's model message in once, before its results: %s", (_, copies) => {
    const steps = [...turn(["a1", "a2"], copies), ...turn(["b1"], copies)];
    const messages = runMessages({ input: "Weather?" }, "input", steps, "Sunny.");
    expect(messages.map((message) => `${message.getType()}${(message as AIMessage).tool_calls?.length ? `:${(message as AIMessage).tool_calls?.length}` : ""}`)).toEqual([
      "human",
      "ai:2",
      "tool",
      "tool",
      "ai:1",
      "tool",
      "ai",
    ]);
  });
});

describe("runMessages of an input that is not a string", () => {
  const image = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } };

  it("content blocks (text and an image) become one human message with that content, not their JSON", () => {
    const [message] = runMessages({ input: [{ type: "text", text: "What is this?" }, image] }, "input", [], "A cat.");
    expect(message?.getType()).toBe("human");
    expect(message?.content).toEqual([{ type: "text", text: "What is this?" }, image]);
  });

  it("a message, or a list of messages (a MessagesPlaceholder's input), goes in as it is", () => {
    const question = new HumanMessage({ content: [{ type: "text", text: "And this?" }, image] });
    expect(runMessages({ input: question }, "input", [], "A dog.")[0]).toBe(question);
    const both = runMessages({ input: [new HumanMessage("First."), question] }, "input", [], "Both.");
    expect(both.map((message) => message.getType())).toEqual(["human", "human", "ai"]);
    expect(both[1]).toBe(question);
  });

  it("a list of objects that are not content blocks is data: kept as its JSON text", () => {
    const [message] = runMessages({ input: [{ type: "bug", title: "Crash on save" }] }, "input", [], "Filed.");
    expect(message?.content).toBe('[{"type":"bug","title":"Crash on save"}]');
  });

  it("any other value is kept as its JSON text", () => {
    const [message] = runMessages({ input: { city: "Rome", days: 2 } }, "input", [], "Sunny.");
    expect(message?.content).toBe('{"city":"Rome","days":2}');
  });
});

describe("runMessages of a turn cut short", () => {
  it("keeps only the calls that have a result in the turn's model message (providers refuse a call without one)", () => {
    // A limit halted a turn of two calls after the first finished: the run keeps only that step.
    const [first] = turn(["a1", "a2"], false);
    const messages = runMessages({ input: "Weather?" }, "input", [first as AgentStep], "Stopped.");
    expect(messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect((messages[1] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["a1"]);
    expect((messages[2] as ToolMessage).tool_call_id).toBe("a1");
  });

  it("a tool call without its model message goes in as its result alone, never as something the user said", () => {
    const step = { action: { tool: "search", toolInput: {}, log: "", toolCallId: "c1" }, observation: "sunny" } as unknown as AgentStep;
    const messages = runMessages({ input: "weather" }, "input", [step], "Sunny.");
    expect(messages.map((message) => `${message.getType()}:${message.text}`)).toEqual(["human:weather", "tool:sunny", "ai:Sunny."]);
  });

  it("a run whose parallel turn a time limit cut short leaves the thread without a call that has no result", async () => {
    const fast = tool(async () => "fast done", { name: "fast", description: "Fast.", schema: z.object({}) });
    // Never finishes: the time limit halts the turn while it runs.
    const slow = tool((_input, config) => new Promise<string>((_, reject) => config.signal?.addEventListener("abort", () => reject(config.signal?.reason))), {
      name: "slow",
      description: "Slow.",
      schema: z.object({}),
    });
    const message = new AIMessage({ content: "", tool_calls: [{ id: "f1", name: "fast", args: {} }, { id: "s1", name: "slow", args: {} }] });
    const { agent } = scriptedAgent([
      [
        { tool: "fast", toolInput: {}, log: "", toolCallId: "f1", messageLog: [message] },
        { tool: "slow", toolInput: {}, log: "", toolCallId: "s1", messageLog: [message] },
      ] as never,
    ]);
    const threads = new Map<string, BaseMessage[]>();
    const memory = {
      getMessages: async (threadId: string) => threads.get(threadId) ?? [],
      addMessages: async (threadId: string, messages: readonly BaseMessage[]) => void threads.set(threadId, [...(threads.get(threadId) ?? []), ...messages]),
    };
    const executor = new AgentExecutor({ agent, tools: [fast, slow], memory: { memory }, maxExecutionTime: 1000 }); // room for the fast call on a loaded machine
    const result = await executor.invoke({ input: "Go" }, { threadId: "t1" });
    expect(result.stopReason).toBe("max_execution_time");
    const saved = threads.get("t1") ?? [];
    expect(saved.map((each) => each.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect((saved[1] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["f1"]);
  });
});

describe("the answer a thread keeps", () => {
  it("is the model's own message when it is the answer, with what the provider sent with it (reasoning, metadata)", async () => {
    const { createToolCallingAgent } = await import("@agentrx/agents");
    const { ScriptedChatModel } = await import("@agentrx/core/testing");
    const { ChatPromptTemplate } = await import("@langchain/core/prompts");
    const details = [{ type: "reasoning.text", text: "They asked for the weather.", signature: "sig-1" }];
    const answer = new AIMessage({ content: "Sunny.", additional_kwargs: { reasoning_details: details } });
    const llm = new ScriptedChatModel({ responses: [answer] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const threads = new Map<string, BaseMessage[]>();
    const memory = {
      getMessages: async (threadId: string) => threads.get(threadId) ?? [],
      addMessages: async (threadId: string, messages: readonly BaseMessage[]) => void threads.set(threadId, [...(threads.get(threadId) ?? []), ...messages]),
    };
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], memory: { memory } });
    expect((await executor.invoke({ input: "Weather?" }, { threadId: "t1" })).output).toBe("Sunny.");
    const kept = threads.get("t1")?.at(-1) as AIMessage;
    expect(kept.text).toBe("Sunny.");
    expect(kept.additional_kwargs["reasoning_details"]).toEqual(details);
  });

  it("is a message of the output's text when the model's message is not the answer itself", () => {
    // A text agent's `Final Answer:`, or a structured answer given through a tool call.
    const react = new AIMessage("Thought: done.\nFinal Answer: Sunny.");
    const viaTool = new AIMessage({ content: "", tool_calls: [{ id: "f1", name: "final_answer", args: { answer: "Sunny." } }] });
    for (const log of [[react], [viaTool], [new AIMessage("Sunny."), new AIMessage("Sunny.")], undefined]) {
      const last = runMessages({ input: "Weather?" }, "input", [], "Sunny.", log).at(-1) as AIMessage;
      expect(last.content).toBe("Sunny.");
      expect(last.tool_calls ?? []).toEqual([]);
    }
  });
});

describe("the input a thread keeps the user's message from", () => {
  const threads = new Map<string, BaseMessage[]>();
  const memory = {
    getMessages: async (threadId: string) => threads.get(threadId) ?? [],
    addMessages: async (threadId: string, messages: readonly BaseMessage[]) => void threads.set(threadId, [...(threads.get(threadId) ?? []), ...messages]),
  };

  it("missing from a run on a thread: the run is refused, naming it, and the thread is left as it was", async () => {
    const { agent, inputs } = scriptedAgent([{ returnValues: { output: "Nice to meet you." }, log: "" }]);
    const executor = new AgentExecutor({ agent, tools: [], memory: { memory } });
    const error = await executor.invoke({ question: "Hi, I'm Ada." }, { threadId: "t-missing" }).then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toMatchObject({ name: "InvalidArgumentError", argument: "inputs.input" });
    expect((error as Error).message).toContain('the inputs have no "input" (they have "question")');
    expect(inputs).toHaveLength(0);
    expect(threads.get("t-missing")).toBeUndefined();
  });

  it("given through memory.inputKey, or a run without a thread: the run goes on", async () => {
    const { agent } = scriptedAgent([{ returnValues: { output: "Hello Ada." }, log: "" }, { returnValues: { output: "No thread." }, log: "" }]);
    const executor = new AgentExecutor({ agent, tools: [], memory: { memory, inputKey: "question" } });
    expect((await executor.invoke({ question: "Hi, I'm Ada." }, { threadId: "t-question" })).output).toBe("Hello Ada.");
    expect(threads.get("t-question")?.map((message) => message.getType())).toEqual(["human", "ai"]);
    expect((await executor.invoke({ other: "x" })).output).toBe("No thread.");
  });
});
