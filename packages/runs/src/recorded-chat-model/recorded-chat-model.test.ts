import { createReactAgent, createReactPrompt, createToolCallingAgent } from "@agentrx/agents";
import { InvalidArgumentError, type AgentStep } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, RunNotFoundError, RunStoreError, digestMessages, type AgentStreamEvent, type RunStore } from "@agentrx/executors";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, type AIMessageChunk } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { DynamicTool, tool } from "@langchain/core/tools";
import { z } from "zod";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/memory-run-store";
import {
  coalesceTokens,
  collect,
  comparable,
  recordResumedRun,
  recordWeatherRun,
  slowTool,
  toolPrompt,
  weatherExecutor,
  weatherScript,
  writeRun,
} from "../replay/replay-test-fixtures";
import { RecordedChatModel } from "./recorded-chat-model";
import { ReplayDivergenceError } from "./replay-divergence-error";

const INPUT = "Weather in Paris and Lyon?";

/** The error `run` rejects with. */
async function failure(run: Promise<unknown>): Promise<unknown> {
  try {
    await run;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

function outputOf(events: readonly AgentStreamEvent[]) {
  const last = events.at(-1);
  if (last?.type !== "output") throw new Error("no output event");
  return last;
}

describe("RecordedChatModel", () => {
  it("re-runs a recorded tool-calling run with live tools: the same steps and output, deterministically", async () => {
    const store = new MemoryRunStore();
    const { events: recorded, toolCalls: recordedToolCalls } = await recordWeatherRun(store, "run-1");

    for (let attempt = 0; attempt < 2; attempt++) {
      const llm = new RecordedChatModel({ store, runId: "run-1" });
      const { executor, toolCalls } = weatherExecutor(llm, { returnIntermediateSteps: true });
      const rerun = await collect(executor.stream({ input: INPUT }, { runId: "run-1" }));
      // The same events (usage included); the recorded text comes back as one token event per model call.
      expect(rerun.map(comparable)).toEqual(coalesceTokens(recorded).map(comparable));
      expect(rerun.filter((event) => event.type === "token").map((event) => event.type === "token" && event.text)).toEqual([
        "Let me check Paris.",
        "Paris is sunny (21 °C) at 10:00; Lyon is rainy.",
      ]);
      expect(toolCalls).toEqual(recordedToolCalls);
      expect(toolCalls).toEqual(["search:Paris", "clock:Paris", "search:Lyon"]);
      expect(llm.callCount).toBe(3);
      expect(outputOf(rerun).usage).toEqual(outputOf(recorded).usage);
    }
  });

  it.each([
    ["stream", "invoke"],
    ["invoke", "invoke"],
    ["invoke", "stream"],
  ] as const)("re-runs a run recorded through %s() through %s()", async (recordedWith, rerunWith) => {
    const store = new MemoryRunStore();
    const { executor: recorder } = weatherExecutor(new ScriptedChatModel({ responses: weatherScript() }), { store, returnIntermediateSteps: true });
    const run = (executor: AgentExecutor, how: "stream" | "invoke") =>
      how === "invoke"
        ? lastValueFrom(executor.invoke({ input: INPUT }, { runId: "r" }))
        : collect(executor.stream({ input: INPUT }, { runId: "r" })).then(outputOf);
    const recorded = await run(recorder, recordedWith);

    const llm = new RecordedChatModel({ store, runId: "r" });
    const { executor, toolCalls } = weatherExecutor(llm, { returnIntermediateSteps: true });
    const rerun = await run(executor, rerunWith);
    expect(rerun.output).toBe("Paris is sunny (21 °C) at 10:00; Lyon is rainy.");
    const steps = (result: { intermediateSteps?: AgentStep[] }) =>
      result.intermediateSteps?.map(({ action, observation }) => [action.tool, action.toolInput, (action as { toolCallId?: string }).toolCallId, observation]);
    expect(steps(rerun)).toEqual(steps(recorded));
    expect(steps(rerun)).toHaveLength(3);
    expect(toolCalls).toHaveLength(3);
  });

  it("answers a resumed run's model calls in the order they were recorded, over its segments", async () => {
    const store = new MemoryRunStore();
    await recordResumedRun(store, "resumed");
    const { slow, state } = slowTool();
    state.gated = false;
    const llm = new RecordedChatModel({ store, runId: "resumed" });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [slow], prompt: toolPrompt }), tools: [slow] });
    const result = await lastValueFrom(executor.invoke({ input: "Find Paris and Lyon" }));
    expect(result.output).toBe("Both found.");
    expect(state.calls).toBe(2);
    expect(llm.callCount).toBe(3);
  });

  it("matches conversations with image data blocks, which callbacks see reformatted", async () => {
    const prompt = ChatPromptTemplate.fromMessages([new MessagesPlaceholder("chat_history"), ["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
    const history = (url: string) => [
      new HumanMessage({
        content: [
          { type: "text", text: "Look:" },
          { type: "image", source_type: "url", url },
          { type: "image", source_type: "base64", mime_type: "image/png", data: "iVBORw0KGgo=" },
        ] as never,
      }),
    ];
    const executor = (llm: ScriptedChatModel | RecordedChatModel, store?: RunStore) =>
      new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], ...(store ? { store } : {}) });
    const store = new MemoryRunStore();
    await lastValueFrom(executor(new ScriptedChatModel({ responses: ["A cat."] }), store).invoke({ input: "What is it?", chat_history: history("https://example.com/cat.png") }, { runId: "img" }));

    const rerun = executor(new RecordedChatModel({ store, runId: "img" }));
    expect((await lastValueFrom(rerun.invoke({ input: "What is it?", chat_history: history("https://example.com/cat.png") }))).output).toBe("A cat.");
    const other = executor(new RecordedChatModel({ store, runId: "img" }));
    const error = await failure(lastValueFrom(other.invoke({ input: "What is it?", chat_history: history("https://example.com/dog.png") })));
    expect(error).toMatchObject({ name: "ReplayDivergenceError", call: 0, reason: "content" });
  });

  it("throws a ReplayDivergenceError naming the first call when the input changed", async () => {
    const store = new MemoryRunStore();
    await recordWeatherRun(store, "run-1");
    const llm = new RecordedChatModel({ store, runId: "run-1" });
    const { executor, toolCalls } = weatherExecutor(llm);
    const error = await failure(lastValueFrom(executor.invoke({ input: "Weather in Nice?" })));

    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    const divergence = error as ReplayDivergenceError;
    const [recordedCall] = await modelCallsOf(store, "run-1");
    expect(divergence).toMatchObject({
      runId: "run-1",
      call: 0,
      iteration: 0,
      reason: "content",
      recordedCalls: 3,
      expected: { inputCount: 2, inputDigest: recordedCall?.["inputDigest"] },
      actual: { inputCount: 2 },
    });
    expect(divergence.actual.inputDigest).not.toBe(divergence.expected?.inputDigest);
    expect(divergence.message).toMatch(/^RecordedChatModel: model call 0 \(0-based, iteration 0\) of the re-run of run "run-1" diverges from the recording: it was sent 2 messages, as the recorded call was, but their content differs/);
    expect(toolCalls).toEqual([]);
  });

  it("throws a ReplayDivergenceError naming the call after a changed tool result", async () => {
    const store = new MemoryRunStore();
    await recordWeatherRun(store, "run-1");
    const llm = new RecordedChatModel({ store, runId: "run-1" });
    const { executor, toolCalls } = weatherExecutor(llm, { weather: { Paris: "Cloudy, 17 °C", Lyon: "Rainy, 14 °C" } });
    const error = await failure(lastValueFrom(executor.invoke({ input: INPUT })));

    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ call: 1, iteration: 1, reason: "content", expected: { inputCount: 5 }, actual: { inputCount: 5 } });
    expect((error as Error).message).toContain("model call 1 (0-based, iteration 1)");
    expect(toolCalls).toEqual(["search:Paris", "clock:Paris"]);
  });

  it("says when a call was sent another number of messages", async () => {
    const store = new MemoryRunStore();
    await recordWeatherRun(store, "run-1");
    const llm = new RecordedChatModel({ store, runId: "run-1" });
    const error = await failure(llm.invoke([["human", INPUT]]));
    expect(error).toMatchObject({ call: 0, reason: "count", expected: { inputCount: 2 }, actual: { inputCount: 1 } });
    expect((error as Error).message).toContain("it was sent 1 message, the recorded call was sent 2");
  });

  it("throws a ReplayDivergenceError past the end of the recording", async () => {
    const store = new MemoryRunStore();
    const { executor: recorder } = weatherExecutor(new ScriptedChatModel({ responses: ["Ask me later."] }), { store });
    await lastValueFrom(recorder.invoke({ input: INPUT }, { runId: "short" }));

    const llm = new RecordedChatModel({ store, runId: "short" });
    const { executor } = weatherExecutor(llm);
    expect((await lastValueFrom(executor.invoke({ input: INPUT }))).output).toBe("Ask me later.");
    const error = await failure(lastValueFrom(executor.invoke({ input: INPUT })));
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ call: 1, iteration: undefined, expected: undefined, reason: "exhausted", recordedCalls: 1 });
    expect((error as Error).message).toContain("the recording has only 1 model call.");
  });

  it("re-runs a recorded ReAct text agent", async () => {
    const store = new MemoryRunStore();
    const lookups: string[] = [];
    const makeTools = () => [
      new DynamicTool({
        name: "lookup",
        description: "Looks a city up.",
        func: async (query: string) => {
          lookups.push(query);
          return `Population of ${query}: 2.1 million`;
        },
      }),
    ];
    const react = (llm: ScriptedChatModel | RecordedChatModel, options: { store?: RunStore } = {}) => {
      const tools = makeTools();
      return new AgentExecutor({ agent: createReactAgent({ llm, tools, prompt: createReactPrompt() }), tools, returnIntermediateSteps: true, ...options });
    };
    const script = new ScriptedChatModel({
      responses: [
        "Thought: I should look it up.\nAction: lookup\nAction Input: Paris",
        "Thought: I know it now.\nFinal Answer: About 2.1 million people live in Paris.",
      ],
    });
    const recorded = await collect(react(script, { store }).stream({ input: "How many people live in Paris?" }, { runId: "react" }));
    expect(lookups).toEqual(["Paris"]);

    const rerun = await collect(react(new RecordedChatModel({ store, runId: "react" })).stream({ input: "How many people live in Paris?" }, { runId: "react" }));
    expect(rerun.map(comparable)).toEqual(coalesceTokens(recorded).map(comparable));
    expect(outputOf(rerun).output).toBe("About 2.1 million people live in Paris.");
    expect(lookups).toEqual(["Paris", "Paris"]);

    const changed = await failure(collect(react(new RecordedChatModel({ store, runId: "react" })).stream({ input: "How many people live in Lyon?" })));
    expect(changed).toMatchObject({ name: "ReplayDivergenceError", call: 0, reason: "content" });
  });

  it("replays the usage of a run whose model was called without streaming (estimated by ScriptedChatModel)", async () => {
    const store = new MemoryRunStore();
    const noop = tool(async () => "ok", { name: "noop", description: "Does nothing.", schema: z.object({}) });
    const executorOf = (llm: BaseChatModel) => new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [noop], prompt: toolPrompt }), tools: [noop], store });
    const live = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "noop", args: {} }] }, "all done here"] });
    const recorded = await lastValueFrom(executorOf(live).invoke({ input: "go" }, { runId: "live" }));
    const replayed = await lastValueFrom(executorOf(new RecordedChatModel({ store, runId: "live" })).invoke({ input: "go" }, { runId: "replay" }));
    expect(recorded.usage?.output_tokens).toBeGreaterThan(0);
    expect(replayed.usage).toEqual(recorded.usage);
  });

  it("streams the recorded reply as one chunk that carries its text, tool calls and usage", async () => {
    const store = new MemoryRunStore();
    const { llm: scripted } = await recordWeatherRun(store, "run-1");
    const sent = scripted.calls[0]!.messages;
    const llm = new RecordedChatModel({ store, runId: "run-1" });
    const bound = llm.bindTools([], { tool_choice: "auto" });
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await bound.stream(sent)) chunks.push(chunk);
    expect(chunks).toHaveLength(1);
    const [chunk] = chunks;
    expect(chunk?.text).toBe("Let me check Paris.");
    expect(chunk?.tool_calls?.map((call) => [call.name, call.args, call.id])).toEqual([
      ["search", { query: "Paris" }, "call_0_0"],
      ["clock", { city: "Paris" }, "call_0_1"],
    ]);
    expect(chunk?.usage_metadata).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(llm._llmType()).toBe("agentrx-recorded");
  });

  it("reads the recording once, on the first call", async () => {
    const store = new MemoryRunStore();
    await recordWeatherRun(store, "run-1");
    let reads = 0;
    const counting: RunStore = Object.assign(Object.create(store) as RunStore, {
      getRun: (runId: string) => store.getRun(runId),
      readEvents: (runId: string, options?: { after?: number; limit?: number }) => {
        reads++;
        return store.readEvents(runId, options);
      },
    });
    const llm = new RecordedChatModel({ store: counting, runId: "run-1" });
    expect(reads).toBe(0);
    const { executor } = weatherExecutor(llm);
    await lastValueFrom(executor.invoke({ input: INPUT }));
    expect(reads).toBe(1);
  });

  it("fails a call with RunNotFoundError for an unknown run, and reads again on the next call", async () => {
    const store = new MemoryRunStore();
    const llm = new RecordedChatModel({ store, runId: "later" });
    const error = await failure(llm.invoke([["human", "hi"]]));
    expect(RunNotFoundError.isInstance(error)).toBe(true);
    expect((error as RunNotFoundError).operation).toBe("RecordedChatModel");

    const { executor } = weatherExecutor(new ScriptedChatModel({ responses: ["Hello."] }), { store });
    await lastValueFrom(executor.invoke({ input: "hi" }, { runId: "later" }));
    const { executor: rerun } = weatherExecutor(llm);
    // The failed call took no position: the next call is answered as call 0 (a retry of a call
    // whose read failed gets its answer).
    expect((await lastValueFrom(rerun.invoke({ input: "hi" }))).output).toBe("Hello.");
    expect(llm.callCount).toBe(1);
  });

  it("fails a call with a RunStoreError naming the event when a recorded model call is corrupt", async () => {
    const store = new MemoryRunStore();
    const at = Date.now();
    await writeRun(store, "bad", [
      { type: "start", runId: "bad", inputs: {}, resumed: false, at },
      { at, data: { type: "model_call", at, call: 0, iteration: 0, inputCount: 1, inputDigest: "x", message: { type: "nope", data: {} } } },
    ]);
    const error = await failure(new RecordedChatModel({ store, runId: "bad" }).invoke([["human", "hi"]]));
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^RecordedChatModel: event 2 of run "bad" is corrupt: the model call cannot be decoded/);
  });

  it("checks each call's messages with digestMessages", async () => {
    const store = new MemoryRunStore();
    const { llm: scripted } = await recordWeatherRun(store, "run-1");
    const [first] = await modelCallsOf(store, "run-1");
    expect(first?.["inputDigest"]).toBe(digestMessages(scripted.calls[0]!.messages));
    const reply = await new RecordedChatModel({ store, runId: "run-1" }).invoke(scripted.calls[0]!.messages);
    expect(reply.tool_calls).toHaveLength(2);
  });

  it("answers a caller's own model calls only: an asTool sub-run's model calls in its record are skipped", async () => {
    const store = new MemoryRunStore();
    const { executor: researcherExecutor } = weatherExecutor(new ScriptedChatModel({ onExhausted: "cycle", responses: weatherScript() }));
    const researcher = researcherExecutor.asTool({ name: "researcher", description: "Finds the weather." });
    const supervisor = (llm: BaseChatModel, withStore: boolean) =>
      new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [researcher], prompt: toolPrompt }), tools: [researcher], ...(withStore ? { store } : {}) });
    const script = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "researcher", args: { input: INPUT }, id: "r1" }] }, (messages) => `Report: ${messages.at(-1)?.text}`] });
    const recorded = await supervisor(script, true).invoke({ input: "Report the weather" }, { runId: "sup" });
    const calls = (await store.readEvents("sup")).filter((event) => event.type === "model_call");
    expect(calls.filter((event) => event.data["subRun"] !== undefined).length).toBeGreaterThan(0);

    const llm = new RecordedChatModel({ store, runId: "sup" });
    const rerun = await supervisor(llm, false).invoke({ input: "Report the weather" });
    expect(rerun.output).toBe(recorded.output);
    expect(llm.callCount).toBe(2);
  });

  it("validates its options", () => {
    const argumentOf = (create: () => unknown) => {
      try {
        create();
      } catch (error) {
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        return (error as InvalidArgumentError).argument;
      }
      return undefined;
    };
    const store = new MemoryRunStore();
    expect(argumentOf(() => new RecordedChatModel({ store: {} as RunStore, runId: "r" }))).toBe("store");
    expect(argumentOf(() => new RecordedChatModel({ store, runId: "" }))).toBe("runId");
    expect(argumentOf(() => new RecordedChatModel({ store, runId: 42 as never }))).toBe("runId");
    expect(argumentOf(() => new RecordedChatModel(undefined as never))).toBe("options");
    expect(argumentOf(() => new RecordedChatModel({ store, runId: "r" }))).toBeUndefined();
  });
});

/** The data of a run's `model_call` entries. */
async function modelCallsOf(store: RunStore, runId: string) {
  return (await store.readEvents(runId)).filter((event) => event.type === "model_call").map((event) => event.data);
}


describe("RecordedChatModel, a reply the record holds only in part", () => {
  it("refuses to answer a call whose recorded tool-call arguments were nested too deeply to record, so no tool gets the cut arguments", async () => {
    let value: unknown = "x";
    for (let i = 0; i < 150; i++) value = { a: value }; // deeper than the record keeps (100 levels)
    const queries: unknown[] = [];
    const search = tool(async ({ query }: { query?: unknown }) => (queries.push(query), "found"), { name: "search", description: "Searches.", schema: z.object({ query: z.any() }) });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const store = new MemoryRunStore();
    const llm = new ScriptedChatModel({ responses: [{ content: "Looking.", toolCalls: [{ name: "search", args: { query: value } }] }, "Done."] });
    const recorded = await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt }), tools: [search], store }).invoke({ input: "x" }, { runId: "deep" });
    expect(recorded.output).toBe("Done.");
    // The live run's parser refused arguments that deep (a parsing error the model saw); the record
    // keeps them cut at 100 levels, which a parser would read, and run the tool with.
    expect(queries).toEqual([]);

    const replay = new RecordedChatModel({ store, runId: "deep" });
    const error = await failure(lastValueFrom(new AgentExecutor({ agent: createToolCallingAgent({ llm: replay, tools: [search], prompt }), tools: [search] }).invoke({ input: "x" })));
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: "incomplete", call: 0, iteration: 0, runId: "deep" });
    expect((error as ReplayDivergenceError).leftOut).toMatch(/^\[message\.tool_calls\[0\]\.args\.query\.a\.a.* is nested more than 100 levels deep: left out of the run record\]$/);
    expect((error as Error).message).toMatch(/cannot be answered as recorded: the record holds only part of the model's reply/);
    expect(queries).toEqual([]); // the replay called no tool with the cut argument
  });
});

describe("RecordedChatModel, a refused call", () => {
  it("takes no position: the same call again is checked against the same recorded call, and a retry of it with the recorded conversation is answered", async () => {
    const store = new MemoryRunStore();
    const { llm: scripted } = await recordWeatherRun(store, "run-1");
    const llm = new RecordedChatModel({ store, runId: "run-1" });
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await failure(llm.invoke([["human", INPUT]]));
      expect(error).toMatchObject({ name: "ReplayDivergenceError", call: 0, reason: "count", expected: { inputCount: 2 }, actual: { inputCount: 1 } });
      expect(llm.callCount).toBe(0);
    }
    const reply = await llm.invoke(scripted.calls[0]!.messages);
    expect(reply.tool_calls?.map((call) => call.id)).toEqual(["call_0_0", "call_0_1"]);
    expect(llm.callCount).toBe(1);
  });

  it("past the end of the recording takes no position either", async () => {
    const store = new MemoryRunStore();
    const { executor: recorder } = weatherExecutor(new ScriptedChatModel({ responses: ["Ask me later."] }), { store });
    await lastValueFrom(recorder.invoke({ input: INPUT }, { runId: "short" }));
    const llm = new RecordedChatModel({ store, runId: "short" });
    const { executor } = weatherExecutor(llm);
    await lastValueFrom(executor.invoke({ input: INPUT }));
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await failure(lastValueFrom(executor.invoke({ input: INPUT })))).toMatchObject({ call: 1, reason: "exhausted" });
      expect(llm.callCount).toBe(1);
    }
  });
});

describe("RecordedChatModel, what a divergence says", () => {
  it("names the first message that differs, its role and both texts, when the run was recorded with its prompts (stream())", async () => {
    const store = new MemoryRunStore();
    await recordWeatherRun(store, "run-1"); // through stream(): recordPrompts is on
    const { executor } = weatherExecutor(new RecordedChatModel({ store, runId: "run-1" }), { weather: { Paris: "Cloudy, 17 °C", Lyon: "Rainy, 14 °C" } });
    const error = (await failure(lastValueFrom(executor.invoke({ input: INPUT })))) as ReplayDivergenceError;
    expect(error).toMatchObject({ call: 1, reason: "content" });
    expect(error.firstDifference).toEqual({ index: 3, actual: { role: "tool", text: "Cloudy, 17 °C" }, recorded: { role: "tool", text: "Sunny, 21 °C" } });
    expect(error.message).toContain('but their content differs: message 3 (tool) is "Cloudy, 17 °C", the recorded call\'s was "Sunny, 21 °C".');
  });

  it("names the first message that differs when a call was sent another number of messages", async () => {
    const store = new MemoryRunStore();
    await recordWeatherRun(store, "run-1");
    const error = (await failure(new RecordedChatModel({ store, runId: "run-1" }).invoke([["human", INPUT]]))) as ReplayDivergenceError;
    expect(error).toMatchObject({ call: 0, reason: "count" });
    expect(error.firstDifference).toEqual({ index: 0, actual: { role: "human", text: INPUT }, recorded: { role: "system", text: "You are a weather assistant." } });
    expect(error.message).toContain(`the recorded call was sent 2. The first message that differs: message 0 (human) is "${INPUT}", the recorded call's message 0 (system) was "You are a weather assistant.".`);
  });

  it("says how to see the difference when the record keeps only a digest of the messages (invoke(), without recordPrompts)", async () => {
    const store = new MemoryRunStore();
    const { executor: recorder } = weatherExecutor(new ScriptedChatModel({ responses: weatherScript() }), { store });
    await lastValueFrom(recorder.invoke({ input: INPUT }, { runId: "digest-only" }));
    const { executor } = weatherExecutor(new RecordedChatModel({ store, runId: "digest-only" }));
    const error = (await failure(lastValueFrom(executor.invoke({ input: "Weather in Nice?" })))) as ReplayDivergenceError;
    expect(error).toMatchObject({ call: 0, reason: "content", firstDifference: undefined });
    expect(error.message).toMatch(/their content differs \(digest \w+, recorded \w+\)\. The record keeps only a digest of the messages sent: record the run with `recordPrompts: true` \(on by default for stream\(\), resume and fork\) for this error to name the message that differs, and readPrompts\(store, runId\) to read them\./);
  });
});
