import { UnsupportedModelError, createToolCallingAgent } from "@agentrx/agents";
import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentExecutor } from "../executor/agent-executor";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { createAgentExecutor } from "./create-agent-executor";

const weather = tool(async ({ city }) => (city === "Paris" ? "sunny, 21°C" : "clear, 26°C"), {
  name: "get_weather",
  description: "Current weather for a city.",
  schema: z.object({ city: z.string() }),
});

describe("createAgentExecutor", () => {
  it("gives a tool-calling model the tool-calling agent, with the system message, the input and the tool results", async () => {
    const model = new ScriptedChatModel({
      responses: [{ toolCalls: [{ name: "get_weather", args: { city: "Paris" } }, { name: "get_weather", args: { city: "Rome" } }] }, "Sunny in Paris, clear in Rome."],
    });
    const executor = createAgentExecutor({ model, tools: [weather], system: "Answer briefly {not a variable}." });
    expect(executor).toBeInstanceOf(AgentExecutor);

    const result = await executor.invoke({ input: "Weather in Paris and Rome?" });
    expect(result).toMatchObject({ input: "Weather in Paris and Rome?", output: "Sunny in Paris, clear in Rome.", stopReason: "finish" });
    expect(model.calls.map((call) => call.toolNames)).toEqual([["get_weather"], ["get_weather"]]);
    const [first, second] = model.calls;
    expect(first!.messages.map((message) => [message.getType(), message.text])).toEqual([
      ["system", "Answer briefly {not a variable}."],
      ["human", "Weather in Paris and Rome?"],
    ]);
    expect(second!.messages.map((message) => message.getType())).toEqual(["system", "human", "ai", "tool", "tool"]);
    expect(second!.messages.slice(3).map((message) => message.text)).toEqual(["sunny, 21°C", "clear, 26°C"]);
  });

  it("gives a model without tool calling the ReAct agent", async () => {
    const model = new ScriptedChatModel({
      responses: [
        'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}',
        "Thought: I now know the final answer\nFinal Answer: Sunny in Paris.",
      ],
    });
    const executor = createAgentExecutor({ model, tools: [weather], toolCalling: false, returnIntermediateSteps: true });
    const result = await executor.invoke({ input: "Weather in Paris?" });
    expect(result.output).toBe("Sunny in Paris.");
    expect(result.intermediateSteps.map((step) => step.observation)).toEqual(["sunny, 21°C"]);
    expect(model.calls[0]!.toolNames).toEqual([]);
    expect(model.calls[0]!.stop).toEqual(["\nObservation:"]);
    const [system, human] = model.calls[1]!.messages;
    expect(system!.text).toContain("You are a helpful assistant.");
    expect(system!.text).toContain("get_weather: Current weather for a city.");
    expect(human!.text).toMatch(/^Question: Weather in Paris\?\nThought: Thought: I need the weather\.[\s\S]*Observation: sunny, 21°C/);
  });

  it("passes the executor's options on: a store records the run, history fills the prompt", async () => {
    const store = new InProcessRunStore();
    const model = new ScriptedChatModel({ responses: ["Hello again."] });
    const executor = createAgentExecutor({ model, tools: [], store, maxIterations: 3 });
    const { runId } = await executor.invoke({ input: "Hi", chat_history: [["human", "Hi"], ["ai", "Hello."]] });
    expect((await store.getRun(runId))?.status).toBe("finished");
    expect(model.calls[0]!.messages.map((message) => message.text)).toEqual(["You are a helpful assistant. Use the tools when they help you answer.", "Hi", "Hello.", "Hi"]);
  });

  it("reads the history and the user's message where memory's historyKey and inputKey put them, for both agent types", async () => {
    for (const toolCalling of [true, false]) {
      const threads = new Map<string, BaseMessage[]>([["t1", [new HumanMessage("My name is Ada."), new AIMessage("Hello Ada.")]]]);
      const memory = { getMessages: async (threadId: string) => threads.get(threadId) ?? [], addMessages: async () => undefined };
      const model = new ScriptedChatModel({ responses: [toolCalling ? "You are Ada." : "Thought: I know.\nFinal Answer: You are Ada."] });
      const executor = createAgentExecutor({ model, tools: [], toolCalling, memory: { memory, historyKey: "history", inputKey: "question" } });
      const result = await executor.invoke({ question: "What is my name?" }, { threadId: "t1" });
      expect(result.output).toBe("You are Ada.");
      const texts = model.calls[0]!.messages.map((message) => message.text);
      expect(texts.slice(1, 3), `toolCalling: ${toolCalling}`).toEqual(["My name is Ada.", "Hello Ada."]);
      expect(texts.at(-1), `toolCalling: ${toolCalling}`).toMatch(/What is my name\?/);
    }
  });

  it("answers through the final_answer tool with an outputSchema", async () => {
    const model = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: 21 } }] }] });
    const executor = createAgentExecutor({ model, tools: [weather], outputSchema: z.object({ city: z.string(), celsius: z.number() }) });
    const result = await executor.invoke({ input: "Weather in Paris?" });
    expect(result.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    expect(model.calls[0]!.toolNames).toEqual(["get_weather", "final_answer"]);
  });

  it("with an outputSchema and earlyStoppingMethod \"generate\", the final call forces final_answer: a stopped run still ends typed", async () => {
    const answer = (_messages: unknown, call: { toolChoice?: unknown }) =>
      call.toolChoice === "final_answer" ? { toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: 21 } }] } : "Sunny and 21 degrees.";
    const model = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "get_weather", args: { city: "Paris" } }] }, answer] });
    const executor = createAgentExecutor({ model, tools: [weather], outputSchema: z.object({ city: z.string(), celsius: z.number() }), maxIterations: 1, earlyStoppingMethod: "generate" });
    const result = await executor.invoke({ input: "Weather in Paris?" });
    expect(result.stopReason).toBe("max_iterations");
    expect(result.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    expect(model.calls[1]!.toolNames).toEqual(["final_answer"]);
    expect(model.calls[1]!.toolChoice).toBe("final_answer");
  });

  it("refuses a run whose inputs lack the user's message before it starts: no event, no record, no model call", async () => {
    for (const toolCalling of [true, false]) {
      const model = new ScriptedChatModel({ responses: ["unused"] });
      const store = new InProcessRunStore();
      const executor = createAgentExecutor({ model, tools: [weather], toolCalling, store });
      const error = await executor.invoke({ question: "Weather in Paris?", lang: "en" } as never).then(() => undefined, (e: unknown) => e);
      expect(InvalidArgumentError.isInstance(error), `toolCalling: ${toolCalling}`).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe("inputs");
      expect((error as Error).message).toBe(
        'createAgentExecutor: the inputs have no `input` (the user\'s message, which the agent\'s prompt reads); the inputs given are `question`, `lang`. Call executor.invoke({ input: "..." }).',
      );
      // stream: the error is the observable's first and only notification.
      const seen: string[] = [];
      const streamed = await new Promise<unknown>((resolve) => {
        executor.stream({ question: "Weather in Paris?" } as never).subscribe({ next: (event) => seen.push(event.type), error: resolve, complete: () => resolve(undefined) });
      });
      expect((streamed as Error).message).toMatch(/^createAgentExecutor: the inputs have no `input` /);
      expect(seen).toEqual([]);
      expect(await store.listRuns()).toEqual([]);
      expect(model.calls).toHaveLength(0);
    }
    const undefinedInput = await createAgentExecutor({ model: new ScriptedChatModel({ responses: ["unused"] }), tools: [] }).invoke({ input: undefined } as never).then(() => undefined, (e: unknown) => e);
    expect((undefinedInput as Error).message).toMatch(/^createAgentExecutor: the inputs have no `input` .*; `input` is undefined\./);
    const memory = { getMessages: async () => [], addMessages: async () => undefined };
    const renamed = createAgentExecutor({ model: new ScriptedChatModel({ responses: ["unused"] }), tools: [], memory: { memory, inputKey: "question" } });
    const noKeys = await renamed.invoke({} as never, { threadId: "t1" }).then(() => undefined, (e: unknown) => e);
    expect((noKeys as Error).message).toMatch(/^createAgentExecutor: the inputs have no `question` \(the user's message, which the agent's prompt reads; `memory.inputKey` names it\); no inputs were given\. Call executor.invoke\(\{ question: "\.\.\." \}\)\.$/);
  });

  it("returns an AgentExecutor; only its own runs require the user's message, not a plain AgentExecutor's", async () => {
    const created = createAgentExecutor({ model: new ScriptedChatModel({ responses: ["unused"] }), tools: [] });
    expect(created).toBeInstanceOf(AgentExecutor);
    await expect(created.invoke({ question: "Hi" } as never)).rejects.toThrow(/the inputs have no `input`/);
    const llm = new ScriptedChatModel({ responses: ["Hello!"] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{question}"], new MessagesPlaceholder("agent_scratchpad")]);
    const plain = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [] });
    expect((await plain.invoke({ question: "Hi" })).output).toBe("Hello!");
  });

  it("refuses fork's replacement inputs without the user's message before the fork starts; a fork that keeps the source's inputs is not checked", async () => {
    const model = new ScriptedChatModel({ responses: ["Sunny.", "Rainy.", "Windy."] });
    const store = new InProcessRunStore();
    const executor = createAgentExecutor({ model, tools: [weather], store });
    const first = await executor.invoke({ input: "Weather in Paris?" });
    const thrown = (() => {
      try {
        executor.fork(first.runId as string, { at: 0, inputs: { question: "Weather in Rome?" } });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(InvalidArgumentError.isInstance(thrown)).toBe(true);
    expect((thrown as InvalidArgumentError).argument).toBe("inputs");
    expect((thrown as Error).message).toBe(
      'createAgentExecutor: the fork\'s inputs have no `input` (the user\'s message, which the agent\'s prompt reads); the inputs given are `question`. Call executor.fork(runId, { inputs: { input: "..." } }).',
    );
    expect(() => executor.fork(first.runId as string, { at: 0, inputs: { input: undefined } })).toThrow(/fork's inputs have no `input` .*; `input` is undefined\./);
    expect((await store.listRuns()).map((run) => run.runId)).toEqual([first.runId]);
    expect(model.calls).toHaveLength(1);
    // With the message, or without replacement inputs, the fork runs.
    expect((await executor.fork(first.runId as string, { at: 0, inputs: { input: "Weather in Rome?" } })).output).toBe("Rainy.");
    expect((await executor.fork(first.runId as string, { at: 0 })).output).toBe("Windy.");
  });

  it("names createAgentExecutor, not the agent it builds, for tools and a model it cannot take", () => {
    const model = () => new ScriptedChatModel({ responses: [] });
    const schema = z.object({ city: z.string() });
    const named = (name: string) => tool(async () => "x", { name, description: "d", schema: z.object({}) });
    for (const toolCalling of [true, false]) {
      expect(() => createAgentExecutor({ model: model(), tools: [weather, named("other"), weather], toolCalling })).toThrow(
        'createAgentExecutor: `tools[0]` and `tools[2]` are both named "get_weather"; tool names must be unique. Rename one of them.',
      );
      expect(() => createAgentExecutor({ model: model(), tools: [{ name: "x" } as never], toolCalling })).toThrow(
        'createAgentExecutor: `tools[0]` is not a @langchain/core tool: "x" has no `invoke` method. Every tool needs a non-empty string `name` and an `invoke` method (tool() from @langchain/core/tools makes one).',
      );
      expect(() => createAgentExecutor({ model: model(), tools: "weather" as never, toolCalling })).toThrow(
        "createAgentExecutor: `tools` must be an array of @langchain/core tools (use [] for none), got a string.",
      );
      expect(() => createAgentExecutor({ model: model(), tools: [named("final_answer")], toolCalling, outputSchema: schema })).toThrow(
        /^createAgentExecutor: `tools\[0\]` is named "final_answer", the tool the model answers through with `outputSchema`/,
      );
    }
    const noBind = model();
    (noBind as { bindTools?: unknown }).bindTools = undefined;
    let error: unknown;
    try {
      createAgentExecutor({ model: noBind, tools: [], toolCalling: true });
    } catch (e) {
      error = e;
    }
    expect(UnsupportedModelError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^createAgentExecutor: `toolCalling: true`, but the model has no bindTools method/);
    expect(() => createAgentExecutor({ model: { invoke: () => undefined } as never, tools: [] })).toThrow(/^createAgentExecutor: `model` must be a @langchain\/core chat model/);
  });

  it("names the option at fault", () => {
    expect(() => createAgentExecutor({ model: undefined as never, tools: [] })).toThrow(/`model` must be a @langchain\/core chat model/);
    expect(() => createAgentExecutor({ model: new ScriptedChatModel({ responses: [] }), tools: undefined as never })).toThrow(/`tools` must be an array/);
    expect(() => createAgentExecutor({ model: new ScriptedChatModel({ responses: [] }), tools: [], system: 1 as never })).toThrow(/`system` must be a string/);
    // A Promise (a model or tools not awaited) says so.
    const model = new ScriptedChatModel({ responses: [] });
    expect(() => createAgentExecutor({ model: Promise.resolve(model) as never, tools: [] })).toThrow(/`model` must be a @langchain\/core chat model .*, got a Promise \(did you forget to `await` it\?\)\.$/);
    expect(() => createAgentExecutor({ model, tools: Promise.resolve([]) as never })).toThrow(/`tools` must be an array of @langchain\/core tools \(use \[\] for none\), got a Promise \(did you forget to `await` it\?\)\.$/);
    expect(() => createAgentExecutor({ model: new ScriptedChatModel({ responses: [] }), tools: [], maxIterations: -1 })).toThrow(/maxIterations/);
    expect(() => createAgentExecutor({ model: new ScriptedChatModel({ responses: [] }), tools: [], toolCalling: "no" as never })).toThrow(/`toolCalling` must be true \(the tool-calling agent\), false \(ReAct\) or left out.*got "no"/);
  });

  it("refuses a wrapped model (bindTools, withConfig, withRetry) rather than quietly making a ReAct agent of it", () => {
    const model = new ScriptedChatModel({ responses: [] });
    for (const wrapped of [model.bindTools([weather]), model.withConfig({ tags: ["x"] }), model.withRetry()]) {
      expect(() => createAgentExecutor({ model: wrapped as never, tools: [weather] })).toThrow(/`model` is a wrapped model \(made by bindTools, withConfig or withRetry\).*pass the chat model/);
    }
  });

  it("sends an input of content blocks (an image with a question) as one human message with that content, as the thread keeps it", async () => {
    const model = new ScriptedChatModel({ responses: ["A cat.", "Still a cat."] });
    const threads = new Map<string, BaseMessage[]>();
    const memory = {
      getMessages: async (threadId: string) => threads.get(threadId) ?? [],
      addMessages: async (threadId: string, messages: readonly BaseMessage[]) => void threads.set(threadId, [...(threads.get(threadId) ?? []), ...messages]),
    };
    const executor = createAgentExecutor({ model, tools: [], memory: { memory } });
    const input = [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }];
    await executor.invoke({ input }, { threadId: "t" });
    await executor.invoke({ input: "And now?" }, { threadId: "t" });
    const first = model.calls[0]?.messages.at(-1) as HumanMessage;
    expect(first.getType()).toBe("human");
    expect(first.content).toEqual(input);
    // The same message, read back from the thread on the next run.
    expect((model.calls[1]?.messages.find((message) => Array.isArray(message.content)) as HumanMessage | undefined)?.content).toEqual(input);
    expect(model.calls[1]?.messages.at(-1)?.content).toBe("And now?");
  });
});
