// A conversation memory is the user's code: a call of it that never settles must not hang the run
// (docs/cancellation.md: "work that ignores its signal is not waited for"), and what it gives back
// that cannot be a history is refused with an error naming the method (docs/memory.md). The
// resumes of a run whose memory did not take its messages are in runs/src/recording/memory-ending.test.ts.
import { AbortError, EARLY_STOP_OUTPUT, InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor, type ConversationMemory } from "@agentrx/executors";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type ExecutorRun, executorRunProbe } from "./executor-run";
import { collect, finish, scriptedAgent } from "./test-helpers";

afterEach(() => {
  vi.useRealTimers();
});

const never = <T>() => new Promise<T>(() => undefined);
const texts = (messages: readonly BaseMessage[]) => messages.map((message) => `${message.getType()}: ${message.text}`);

/** A memory over a Map whose methods `overrides` replace; `added` holds what `addMessages` was given. */
function memoryWith(overrides: Partial<Record<keyof ConversationMemory, unknown>> = {}) {
  const added: BaseMessage[][] = [];
  const memory = {
    getMessages: async () => [] as BaseMessage[],
    addMessages: async (_threadId: string, messages: readonly BaseMessage[]) => void added.push([...messages]),
    ...overrides,
  } as ConversationMemory;
  return { memory, added };
}

describe("a memory whose getMessages never settles", () => {
  it("maxExecutionTime ends the run with the force output, without calling the agent (not even the generate call, which would answer without the history)", async () => {
    vi.useFakeTimers();
    const { memory, added } = memoryWith({ getMessages: never });
    const { agent, inputs } = scriptedAgent([finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [], memory: { memory }, maxExecutionTime: 100, earlyStoppingMethod: "generate" });
    const done = collect(executor.stream({ input: "hi" }, { threadId: "t1" }));
    await vi.advanceTimersByTimeAsync(100);
    const events = await done;
    expect(events.map((event) => event.type)).toEqual(["start", "output"]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: EARLY_STOP_OUTPUT, stopReason: "max_execution_time" });
    expect(inputs).toHaveLength(0);
    // No history was read: the run's inputs have none, and the thread gets the run as any early stop's.
    expect(events[0]?.type === "start" && "chat_history" in events[0].inputs).toBe(false);
    expect(added.map(texts)).toEqual([["human: hi", `ai: ${EARLY_STOP_OUTPUT}`]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("config.signal ends the run with an AbortError", async () => {
    const { memory, added } = memoryWith({ getMessages: never });
    const { agent, inputs } = scriptedAgent([finish("never")]);
    const controller = new AbortController();
    const done = new AgentExecutor({ agent, tools: [], memory: { memory } }).invoke({ input: "hi" }, { threadId: "t1", signal: controller.signal }).catch((caught: unknown) => caught);
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort("stop");
    const error = await done;
    expect(AbortError.isInstance(error)).toBe(true);
    expect(inputs).toHaveLength(0);
    expect(added).toEqual([]);
  });

  it("a run whose limit passed before it began (maxExecutionTime: 0) still reads the history for its generate call", async () => {
    const { memory } = memoryWith({ getMessages: async () => [new HumanMessage("I am Ada."), new AIMessage("Hello Ada.")] });
    const { agent, inputs } = scriptedAgent([finish("You are Ada.")]);
    const executor = new AgentExecutor({ agent, tools: [], memory: { memory }, maxExecutionTime: 0, earlyStoppingMethod: "generate" });
    const result = await executor.invoke({ input: "Who am I?" }, { threadId: "t1" });
    expect(result).toMatchObject({ output: "You are Ada.", stopReason: "max_execution_time" });
    expect(texts(inputs[0]?.["chat_history"] as BaseMessage[])).toEqual(["human: I am Ada.", "ai: Hello Ada."]);
  });
});

describe("a memory whose addMessages never settles (the run has its answer)", () => {
  it("config.signal ends the run with an AbortError, at once", async () => {
    let added = 0;
    const { memory } = memoryWith({ addMessages: () => ((added += 1), never()) });
    const { agent } = scriptedAgent([finish("the answer")]);
    const controller = new AbortController();
    const done = new AgentExecutor({ agent, tools: [], memory: { memory } }).invoke({ input: "hi" }, { threadId: "t1", signal: controller.signal }).catch((caught: unknown) => caught);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(added).toBe(1); // the write is in flight
    controller.abort("user pressed stop");
    const error = await done;
    expect(AbortError.isInstance(error) && error.reason).toBe("user pressed stop");
  });

  it("unsubscribing ends the run silently, at once: it is cancelled", async () => {
    const { memory } = memoryWith({ addMessages: never });
    const { agent } = scriptedAgent([finish("the answer")]);
    const runs: ExecutorRun[] = [];
    executorRunProbe.made = (run) => runs.push(run);
    const seen: string[] = [];
    const subscription = new AgentExecutor({ agent, tools: [], memory: { memory } }).stream({ input: "hi" }, { threadId: "t1" }).subscribe({
      next: (event) => seen.push(event.type),
      error: () => seen.push("error"),
      complete: () => seen.push("complete"),
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(runs[0]?.state.phase).toBe("done"); // it has its answer; the write is in flight
    subscription.unsubscribe();
    executorRunProbe.made = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(["start"]);
    expect(runs[0]?.state.phase).toBe("cancelled");
  });

  it("maxExecutionTime does not cut the write short: a run that has its answer is not stopped by the limit (as the generate call is not)", async () => {
    vi.useFakeTimers();
    const { memory, added } = memoryWith({
      addMessages: async (_threadId: string, messages: readonly BaseMessage[]) => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        added.push([...messages]);
      },
    });
    const { agent } = scriptedAgent([finish("the answer")]);
    const done = new AgentExecutor({ agent, tools: [], memory: { memory }, maxExecutionTime: 100 }).invoke({ input: "hi" }, { threadId: "t1" }).then((result) => result);
    await vi.advanceTimersByTimeAsync(500);
    expect(await done).toMatchObject({ output: "the answer", stopReason: "finish" });
    expect(added.map(texts)).toEqual([["human: hi", "ai: the answer"]]);
  });
});

describe("what a memory gives back is checked", () => {
  const run = (memory: ConversationMemory) => new AgentExecutor({ agent: scriptedAgent([finish("ok")]).agent, tools: [], memory: { memory } }).invoke({ input: "hi" }, { threadId: "t1" });

  it.each([
    ["42", async () => 42, /memory's getMessages\("t1"\) must resolve with an array of @langchain\/core messages \(BaseMessage\), got 42/],
    ["undefined", async () => undefined, /got undefined/],
    ["a list with something else", async () => [new HumanMessage("hi"), 1], /got 1 at index 1/],
  ])("getMessages resolving %s fails the run with an InvalidArgumentError naming it", async (_, getMessages, message) => {
    const error = await run(memoryWith({ getMessages }).memory).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe("memory.getMessages");
    expect((error as Error).message).toMatch(message);
  });

  it("a getMessages written without async (it returns the array itself) works", async () => {
    const { agent, inputs } = scriptedAgent([finish("ok")]);
    const { memory } = memoryWith({ getMessages: () => [new HumanMessage("earlier")] });
    expect((await new AgentExecutor({ agent, tools: [], memory: { memory } }).invoke({ input: "hi" }, { threadId: "t1" })).output).toBe("ok");
    expect(texts(inputs[0]?.["chat_history"] as BaseMessage[])).toEqual(["human: earlier"]);
  });

  it("an addMessages written without async works too", async () => {
    const added: BaseMessage[][] = [];
    const { memory } = memoryWith({ addMessages: (_threadId: string, messages: readonly BaseMessage[]) => void added.push([...messages]) });
    expect((await run(memory)).output).toBe("ok");
    expect(added.map(texts)).toEqual([["human: hi", "ai: ok"]]);
  });
});
