// A run's answer is recorded before its thread gets the run's messages; a resume of a run whose
// answer is recorded but which did not end (its memory refused, its process stopped) appends them
// with that answer, once, and calls no model (docs/memory.md). The kill tests are memory-kill.test.ts.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type ConversationMemory, type RunStore } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/index";
import { SqliteRunStore } from "../sqlite/index";
import { ThreadMemory } from "../thread-memory/index";

const prompt = ChatPromptTemplate.fromMessages([["placeholder", "{chat_history}"], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

function executorWith(store: RunStore, memory: ConversationMemory, answer: string) {
  const llm = new ScriptedChatModel({ responses: [answer] });
  return { llm, executor: new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], store, leaseMs: 100, memory: { memory } }) };
}

/** `memory`, failing its first `addMessages` (after `append` was called) as a memory whose store is down does. */
function failingOnce(memory: ConversationMemory): ConversationMemory & { hasRunMessages?: ThreadMemory["hasRunMessages"] } {
  let failed = false;
  return {
    getMessages: (threadId) => memory.getMessages(threadId),
    addMessages: async (threadId, messages, options) => {
      if (!failed) {
        failed = true;
        throw new Error("memory store unreachable");
      }
      return memory.addMessages(threadId, messages, options);
    },
    ...(memory.hasRunMessages ? { hasRunMessages: memory.hasRunMessages.bind(memory) } : {}),
  };
}

const texts = (messages: BaseMessage[]) => messages.map((message) => `${message.getType()}: ${message.text}`);

describe.each([
  ["memory", () => new MemoryRunStore()],
  ["sqlite", () => new SqliteRunStore({ path: ":memory:" })],
] as const)("a run's end and its conversation memory (%s store)", (_name, makeStore) => {
  it("records the answer before the memory refuses it; a resume appends that answer (no model call) and finishes the run", async () => {
    const store = makeStore();
    const memory = new ThreadMemory({ store, maxTokens: 10_000 });
    const first = executorWith(store, failingOnce(memory), "first answer");
    await expect(first.executor.invoke({ input: "hello" }, { runId: "r1", threadId: "t1" })).rejects.toThrow("memory store unreachable");
    const failed = await store.getRun("r1");
    expect(failed).toMatchObject({ status: "failed", error: "the conversation memory refused the run's messages: Error: memory store unreachable" });
    expect((await store.readEvents("r1")).filter((event) => event.type === "output")).toHaveLength(1);
    expect(await memory.getMessages("t1")).toEqual([]);

    const second = executorWith(store, memory, "second answer");
    expect(await second.executor.resume("r1")).toMatchObject({ output: "first answer", stopReason: "finish" });
    expect(second.llm.calls).toHaveLength(0);
    expect(texts(await memory.getMessages("t1"))).toEqual(["human: hello", "ai: first answer"]);
    expect((await store.getRun("r1"))?.status).toBe("finished");
    await store.close();
  });

  it("a resume whose memory refuses again leaves the run failed, saying why, and rejects", async () => {
    const store = makeStore();
    const memory = new ThreadMemory({ store, maxTokens: 10_000 });
    await expect(executorWith(store, failingOnce(memory), "first answer").executor.invoke({ input: "hello" }, { runId: "r1", threadId: "t1" })).rejects.toThrow();
    const broken: ConversationMemory = { getMessages: async () => [], addMessages: async () => Promise.reject(new Error("still down")) };
    const second = executorWith(store, broken, "second answer");
    await expect(second.executor.resume("r1")).rejects.toThrow("still down");
    expect(second.llm.calls).toHaveLength(0);
    expect(await store.getRun("r1")).toMatchObject({ status: "failed", error: "the conversation memory refused the run's messages: Error: still down" });
    expect((await store.getRun("r1"))?.owner).toBeUndefined();
    await store.close();
  });

  it("a memory without hasRunMessages gets the run's messages at the resume too", async () => {
    const store = makeStore();
    const threads = new Map<string, BaseMessage[]>();
    const plain: ConversationMemory = {
      getMessages: async (threadId) => threads.get(threadId) ?? [],
      addMessages: async (threadId, messages) => void threads.set(threadId, [...(threads.get(threadId) ?? []), ...messages]),
    };
    await expect(executorWith(store, failingOnce(plain), "first answer").executor.invoke({ input: "hello" }, { runId: "r1", threadId: "t1" })).rejects.toThrow();
    expect(await executorWith(store, plain, "second answer").executor.resume("r1")).toMatchObject({ output: "first answer" });
    expect(texts(threads.get("t1") ?? [])).toEqual(["human: hello", "ai: first answer"]);
    await store.close();
  });
});

describe("a conversation memory that never settles, or answers what cannot be an answer", () => {
  const never = <T>() => new Promise<T>(() => undefined);

  it("a run cancelled by its signal while its memory's write hangs is recorded cancelled, with its answer: a resume appends that answer and finishes it", async () => {
    const store = new MemoryRunStore();
    const memory = new ThreadMemory({ store, maxTokens: 10_000 });
    const hanging: ConversationMemory = { getMessages: (threadId) => memory.getMessages(threadId), addMessages: () => never() };
    const first = executorWith(store, hanging, "first answer");
    const controller = new AbortController();
    const done = first.executor.invoke({ input: "hello" }, { runId: "r1", threadId: "t1", signal: controller.signal }).catch((caught: unknown) => caught);
    for (let i = 0; i < 100 && (await store.readEvents("r1")).every((event) => event.type !== "output"); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort("user pressed stop");
    expect((await done) as Error).toMatchObject({ name: "AbortError", reason: "user pressed stop" });
    const cancelled = await store.getRun("r1");
    expect(cancelled?.status).toBe("cancelled");
    expect(cancelled?.error).toMatch(/^The run was aborted: user pressed stop \(while the conversation memory took the run's messages/);
    expect(cancelled?.owner).toBeUndefined();

    const second = executorWith(store, memory, "second answer");
    expect(await second.executor.resume("r1")).toMatchObject({ output: "first answer", stopReason: "finish" });
    expect(second.llm.calls).toHaveLength(0);
    expect(texts(await memory.getMessages("t1"))).toEqual(["human: hello", "ai: first answer"]);
    expect((await store.getRun("r1"))?.status).toBe("finished");
  });

  it("a resume whose memory's hasRunMessages hangs ends when its signal aborts: the run is given back as it was, and the next resume completes it", async () => {
    const store = new MemoryRunStore();
    const memory = new ThreadMemory({ store, maxTokens: 10_000 });
    await expect(executorWith(store, failingOnce(memory), "first answer").executor.invoke({ input: "hello" }, { runId: "r1", threadId: "t1" })).rejects.toThrow();
    const before = await store.getRun("r1");
    let added = 0;
    const hanging: ConversationMemory = { getMessages: async () => [], addMessages: async () => void added++, hasRunMessages: () => never() };
    const controller = new AbortController();
    const resuming = executorWith(store, hanging, "second answer").executor.resume("r1", { signal: controller.signal }).catch((caught: unknown) => caught);
    for (let i = 0; i < 100 && (await store.getRun("r1"))?.owner === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort("gave up");
    expect((await resuming) as Error).toMatchObject({ name: "AbortError", reason: "gave up" });
    expect(added).toBe(0);
    const after = await store.getRun("r1");
    expect(after).toMatchObject({ status: "failed", error: before?.error });
    expect(after?.owner).toBeUndefined();
    expect(await executorWith(store, memory, "third answer").executor.resume("r1")).toMatchObject({ output: "first answer" });
    expect(texts(await memory.getMessages("t1"))).toEqual(["human: hello", "ai: first answer"]);
  });

  it.each([
    ["42", 42],
    ["an object", {}],
  ])("a hasRunMessages resolving %s is refused with an InvalidArgumentError naming it (a truthy value would skip the messages)", async (_, answer) => {
    const store = new MemoryRunStore();
    const memory = new ThreadMemory({ store, maxTokens: 10_000 });
    await expect(executorWith(store, failingOnce(memory), "first answer").executor.invoke({ input: "hello" }, { runId: "r1", threadId: "t1" })).rejects.toThrow();
    let added = 0;
    const odd: ConversationMemory = { getMessages: async () => [], addMessages: async () => void added++, hasRunMessages: async () => answer as boolean };
    const error = await executorWith(store, odd, "second answer").executor.resume("r1").catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: "InvalidArgumentError", argument: "memory.hasRunMessages" });
    expect((error as Error).message).toContain(`the conversation memory's hasRunMessages("t1", "r1") must resolve with true or false, got ${JSON.stringify(answer)}`);
    expect(added).toBe(0);
    expect((await store.getRun("r1"))?.status).toBe("failed");
  });
});

describe("ThreadMemory.hasRunMessages", () => {
  it("finds a run's messages among many, newest first, a page at a time, and stops at `since`", async () => {
    const store = new MemoryRunStore();
    const memory = new ThreadMemory({ store, maxTokens: 10_000 });
    const { HumanMessage } = await import("@langchain/core/messages");
    await store.appendThreadMessages("t", [{ message: { type: "human", data: { content: "old" } }, tokens: 1, runId: "old-run", at: 1_000 }]);
    // 250 newer messages of other runs: three pages back to the old run's.
    for (let i = 0; i < 5; i++) {
      await store.appendThreadMessages("t", Array.from({ length: 50 }, (_, j) => ({ message: { type: "human", data: { content: `m${i}-${j}` } }, tokens: 1, runId: `run-${i}`, at: 2_000 + i })));
    }
    await memory.addMessages("t", [new HumanMessage("newest")], { runId: "new-run" });
    expect(await memory.hasRunMessages("t", "old-run")).toBe(true);
    expect(await memory.hasRunMessages("t", "new-run")).toBe(true);
    expect(await memory.hasRunMessages("t", "run-2", { since: 2_000 })).toBe(true);
    expect(await memory.hasRunMessages("t", "old-run", { since: 1_500 })).toBe(false); // older than since: not looked at
    expect(await memory.hasRunMessages("t", "never")).toBe(false);
    expect(await memory.hasRunMessages("other-thread", "old-run")).toBe(false);
    await expect(memory.hasRunMessages("t", "")).rejects.toThrow(/runId/);
    await expect(memory.hasRunMessages("t", "x", { sinec: 1 } as never)).rejects.toThrow(/unknown option `options.sinec`; did you mean `since`\?/);
  });
});
