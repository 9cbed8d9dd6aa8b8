// Test-only (not exported by the package): the ThreadMemory tests, run against every store by
// thread-memory.test.ts, as the run store conformance suite is.
import { InvalidArgumentError } from "@agentrx/core";
import { RunStoreError, type RunStore } from "@agentrx/executors";
import { AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { convertMessagesToResponsesInput, convertResponsesMessageToAIMessage } from "@langchain/openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { estimateMessageTokens } from "./estimate-message-tokens";
import { FIRST_PAGE } from "./select-window";
import { ThreadMemory, type ThreadMemoryOptions } from "./thread-memory";

export interface ThreadMemorySuiteOptions {
  name: string;
  create: () => Promise<RunStore>;
  skip?: boolean;
}

/** Messages whose token counts the tests choose: each message's id says which one it is. */
function conversation() {
  const costs = new Map<string, number>();
  const cost = <T extends BaseMessage>(message: T, tokens: number): T => (costs.set(message.id!, tokens), message);
  return {
    countTokens: (message: BaseMessage) => {
      const tokens = costs.get(message.id ?? "");
      if (tokens === undefined) throw new Error(`no cost for message ${message.id}`);
      return tokens;
    },
    human: (id: string, tokens = 10) => cost(new HumanMessage({ id, content: `human ${id}` }), tokens),
    ai: (id: string, tokens = 10) => cost(new AIMessage({ id, content: `answer ${id}` }), tokens),
    system: (id: string, tokens = 10) => cost(new SystemMessage({ id, content: `system ${id}` }), tokens),
    chat: (id: string, role: string, tokens = 10) => cost(new ChatMessage({ id, role, content: `${role} ${id}` }), tokens),
    calls: (id: string, callIds: string[], tokens = 5) =>
      cost(new AIMessage({ id, content: "", tool_calls: callIds.map((callId) => ({ id: callId, name: "lookup", args: { q: callId } })) }), tokens),
    result: (id: string, callId: string, tokens = 20) => cost(new ToolMessage({ id, content: `result ${callId}`, tool_call_id: callId }), tokens),
  };
}

/** A store whose thread reads are counted: calls and rows returned. */
function countingReads(inner: RunStore) {
  const reads = { calls: 0, rows: 0 };
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name === "readThreadMessages") {
        return async (...args: Parameters<RunStore["readThreadMessages"]>) => {
          const rows = await target.readThreadMessages(...args);
          reads.calls++;
          reads.rows += rows.length;
          return rows;
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, reads };
}

export function threadMemorySuite(options: ThreadMemorySuiteOptions): void {
  describe.skipIf(options.skip === true)(`ThreadMemory on ${options.name}`, () => {
    let opened: RunStore | undefined;
    let threads = 0;
    const suite = Math.random().toString(36).slice(2, 8);
    const thread = () => `memory-${suite}-${++threads}`;
    const store = () => opened!;
    const memoryOf = (rest: Omit<ThreadMemoryOptions, "store">, on: RunStore = store()) => new ThreadMemory({ store: on, ...rest });
    const ids = (messages: BaseMessage[]) => messages.map((message) => message.id);

    beforeAll(async () => {
      opened = await options.create();
    });
    afterAll(async () => {
      await opened?.close();
    });

    it("returns the newest messages that fit in maxTokens, oldest first, and stops at the first that does not", async () => {
      const c = conversation();
      const threadId = thread();
      // startOn "any": the budget's cut itself (the default's start on a user's message has its own test).
      const memory = memoryOf({ maxTokens: 35, countTokens: c.countTokens, startOn: "any" });
      expect(await memory.getMessages(threadId)).toEqual([]);
      await memory.addMessages(threadId, [c.human("h1"), c.ai("a1", 2), c.human("h2", 20), c.ai("a2", 4), c.human("h3", 11), c.ai("a3", 10)]);
      // a3 + h3 + a2 = 25; h2 (20) does not fit in the 10 left. a1 (2) would, but the window is the newest messages.
      expect(ids(await memory.getMessages(threadId))).toEqual(["a2", "h3", "a3"]);
      expect(ids(await memoryOf({ maxTokens: 25, countTokens: c.countTokens, startOn: "any" }).getMessages(threadId))).toEqual(["a2", "h3", "a3"]);
      expect(ids(await memoryOf({ maxTokens: 45, countTokens: c.countTokens, startOn: "any" }).getMessages(threadId))).toEqual(["h2", "a2", "h3", "a3"]);
      expect(ids(await memoryOf({ maxTokens: 1000, countTokens: c.countTokens, startOn: "any" }).getMessages(threadId))).toEqual(["h1", "a1", "h2", "a2", "h3", "a3"]);
      expect(ids(await memoryOf({ maxTokens: 9, countTokens: c.countTokens, startOn: "any" }).getMessages(threadId))).toEqual([]);
      const [first] = await memory.getMessages(threadId);
      expect(first).toBeInstanceOf(AIMessage);
      expect(first?.text).toBe("answer a2");
      // By default the cut window starts on h3, a2's question h2 being cut off.
      expect(ids(await memoryOf({ maxTokens: 35, countTokens: c.countTokens }).getMessages(threadId))).toEqual(["h3", "a3"]);
    });

    it("starts a window the budget cuts on a user's message by default, never on an answer whose question was cut off", async () => {
      const c = conversation();
      const window = (threadId: string, maxTokens: number, rest: Omit<ThreadMemoryOptions, "store" | "maxTokens" | "countTokens"> = {}) =>
        memoryOf({ maxTokens, countTokens: c.countTokens, ...rest }).getMessages(threadId).then(ids);

      // Alternating turns, the budget cutting in the middle of one (a1 fits, h1 does not).
      const turns = thread();
      await memoryOf({ maxTokens: 10, countTokens: c.countTokens }).addMessages(turns, [c.human("h1"), c.ai("a1"), c.human("h2"), c.ai("a2"), c.human("h3"), c.ai("a3")]);
      expect(await window(turns, 50)).toEqual(["h2", "a2", "h3", "a3"]);
      expect(await window(turns, 50, { startOn: "human" })).toEqual(["h2", "a2", "h3", "a3"]);
      expect(await window(turns, 50, { startOn: "any" })).toEqual(["a1", "h2", "a2", "h3", "a3"]);
      expect(await window(turns, 40)).toEqual(["h2", "a2", "h3", "a3"]);
      expect(await window(turns, 60)).toEqual(["h1", "a1", "h2", "a2", "h3", "a3"]);
      // The newest turn's answer alone fits: no user's message is left, so the window is empty.
      expect(await window(turns, 15)).toEqual([]);
      expect(await window(turns, 15, { startOn: "any" })).toEqual(["a3"]);

      // A leading system message stays, before the first user's message.
      const withSystem = thread();
      await memoryOf({ maxTokens: 10, countTokens: c.countTokens }).addMessages(withSystem, [c.system("s", 30), c.human("h1"), c.ai("a1"), c.human("h2"), c.ai("a2")]);
      expect(await window(withSystem, 65)).toEqual(["s", "h2", "a2"]);
      expect(await window(withSystem, 65, { startOn: "any" })).toEqual(["s", "a1", "h2", "a2"]);
      expect(await window(withSystem, 45)).toEqual(["s"]);

      // A tool call and its results whose question was cut off go too; a ChatMessage with role "user" is a user's message.
      const tools = thread();
      await memoryOf({ maxTokens: 10, countTokens: c.countTokens, includeToolMessages: true }).addMessages(tools, [
        c.human("h1"),
        c.calls("a1", ["c1"]),
        c.result("t1", "c1"),
        c.ai("a2"),
        c.chat("u2", "user"),
        c.chat("b2", "assistant"),
      ]);
      expect(await window(tools, 55)).toEqual(["u2", "b2"]);
      expect(await window(tools, 55, { startOn: "any" })).toEqual(["a1", "t1", "a2", "u2", "b2"]);
      const [user] = await memoryOf({ maxTokens: 55, countTokens: c.countTokens }).getMessages(tools);
      expect(user).toBeInstanceOf(ChatMessage);

      // A window that holds the whole thread is the whole thread, even when it opens on an answer.
      const greeting = thread();
      await memoryOf({ maxTokens: 10, countTokens: c.countTokens }).addMessages(greeting, [c.ai("hello"), c.human("h1"), c.ai("a1")]);
      expect(await window(greeting, 30)).toEqual(["hello", "h1", "a1"]);
      expect(await window(greeting, 30, { cutEvery: 2 })).toEqual(["hello", "h1", "a1"]);
      expect(await window(greeting, 29)).toEqual(["h1", "a1"]);
    });

    it("with cutEvery, starts the window on the first user's message at or after the step's boundary", async () => {
      const c = conversation();
      const threadId = thread();
      // Seqs 1 to 10; the second turn has two answers (a2a at seq 4, a2b at seq 5).
      await memoryOf({ maxTokens: 10, countTokens: c.countTokens }).addMessages(threadId, [c.human("h1"), c.ai("a1"), c.human("h2"), c.ai("a2a"), c.ai("a2b"), c.human("h3"), c.ai("a3"), c.human("h4"), c.ai("a4"), c.human("h5")]);
      // The budget takes seq 4 to 10; the step of 4 moves the start to seq 5 (a2b), the default on to seq 6.
      expect(ids(await memoryOf({ maxTokens: 70, countTokens: c.countTokens, cutEvery: 4 }).getMessages(threadId))).toEqual(["h3", "a3", "h4", "a4", "h5"]);
      expect(ids(await memoryOf({ maxTokens: 70, countTokens: c.countTokens, cutEvery: 4, startOn: "any" }).getMessages(threadId))).toEqual(["a2b", "h3", "a3", "h4", "a4", "h5"]);
      // The budget takes seq 2 to 10, the step of 2 moves the start to seq 3 (h2): a user's message, kept.
      expect(ids(await memoryOf({ maxTokens: 90, countTokens: c.countTokens, cutEvery: 2 }).getMessages(threadId))).toEqual(["h2", "a2a", "a2b", "h3", "a3", "h4", "a4", "h5"]);
    });

    it("keeps an AI message with tool calls and their results together, or leaves them all out", async () => {
      const c = conversation();
      const threadId = thread();
      const messages = [c.human("h1"), c.calls("a1", ["c1", "c2"]), c.result("t1", "c1"), c.result("t2", "c2"), c.ai("a2"), c.human("h2"), c.ai("a3")];
      await memoryOf({ maxTokens: 10, countTokens: c.countTokens, includeToolMessages: true }).addMessages(threadId, messages);
      // startOn "any": the windows that open on the group (a1) show it whole.
      const window = (maxTokens: number) => memoryOf({ maxTokens, countTokens: c.countTokens, includeToolMessages: true, startOn: "any" }).getMessages(threadId).then(ids);
      // a3 + h2 + a2 = 30; the group a1 + t1 + t2 costs 45.
      expect(await window(74)).toEqual(["a2", "h2", "a3"]);
      expect(await window(50)).toEqual(["a2", "h2", "a3"]);
      expect(await window(75)).toEqual(["a1", "t1", "t2", "a2", "h2", "a3"]);
      expect(await window(84)).toEqual(["a1", "t1", "t2", "a2", "h2", "a3"]);
      expect(await window(85)).toEqual(["h1", "a1", "t1", "t2", "a2", "h2", "a3"]);
      const full = await memoryOf({ maxTokens: 85, countTokens: c.countTokens }).getMessages(threadId);
      expect((full[1] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["c1", "c2"]);
      expect((full[2] as ToolMessage).tool_call_id).toBe("c1");
      expect(full[2]).toBeInstanceOf(ToolMessage);
    });

    it("never starts on, or includes, a tool message without its call, nor a call without all its results", async () => {
      const c = conversation();
      const threadId = thread();
      const messages = [
        c.result("t0", "orphan-at-start"),
        c.human("h1"),
        c.result("t1", "orphan-in-the-middle"),
        c.ai("a1"),
        c.calls("a2", ["c1", "c2"]),
        c.result("t2", "c1"), // c2 never answered
        c.human("h2"),
        c.calls("a3", ["c3"]),
        c.result("t3", "c3"),
        c.result("t4", "not-c3"), // answers no call of a3
        c.ai("a4"),
      ];
      await memoryOf({ maxTokens: 10, countTokens: c.countTokens, includeToolMessages: true }).addMessages(threadId, messages);
      // startOn "any": the windows that open on an answer or a call show what is left out around them.
      const window = (maxTokens: number) => memoryOf({ maxTokens, countTokens: c.countTokens, startOn: "any" }).getMessages(threadId).then(ids);
      expect(await window(1000)).toEqual(["h1", "a1", "h2", "a3", "t3", "a4"]);
      // a4 (10), then the group a3 + t3 (25): t4 alone (20) would fit in 34, but answers no call.
      expect(await window(34)).toEqual(["a4"]);
      expect(await window(35)).toEqual(["a3", "t3", "a4"]);
      // h2 (10), then a2 and t2 are left out without using the budget, then a1 (10), then h1 (10).
      expect(await window(45)).toEqual(["h2", "a3", "t3", "a4"]);
      expect(await window(55)).toEqual(["a1", "h2", "a3", "t3", "a4"]);
      expect(await window(65)).toEqual(["h1", "a1", "h2", "a3", "t3", "a4"]);
    });

    it("keeps the answers of an AI message's invalid and raw provider calls with it (a model sends them back as calls)", async () => {
      const threadId = thread();
      const memory = memoryOf({ maxTokens: 10_000, includeToolMessages: true });
      await memory.addMessages(threadId, [
        new HumanMessage({ id: "h", content: "Weather?" }),
        new AIMessage({ id: "bad", content: "", invalid_tool_calls: [{ id: "x1", name: "weather", args: '{"c', error: "bad JSON", type: "invalid_tool_call" }] }),
        new ToolMessage({ id: "r1", content: "error: bad JSON", tool_call_id: "x1" }),
        new AIMessage({
          id: "raw",
          content: "",
          tool_calls: [{ id: "y1", name: "weather", args: { city: "Paris" } }],
          additional_kwargs: { tool_calls: [{ id: "y1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }, { id: "y2", type: "function", function: { name: "time", arguments: "{}" } }] },
        }),
        new ToolMessage({ id: "r2", content: "sunny", tool_call_id: "y1" }),
        new ToolMessage({ id: "r3", content: "noon", tool_call_id: "y2" }),
        new AIMessage({ id: "done", content: "Sunny at noon." }),
      ]);
      expect(ids(await memory.getMessages(threadId))).toEqual(["h", "bad", "r1", "raw", "r2", "r3", "done"]);
      // An invalid call whose answer is missing leaves its message out, as a valid one does.
      const other = thread();
      await memory.addMessages(other, [
        new HumanMessage({ id: "h", content: "Weather?" }),
        new AIMessage({ id: "bad", content: "", invalid_tool_calls: [{ id: "x1", name: "weather", args: '{"c', error: "bad JSON", type: "invalid_tool_call" }] }),
        new AIMessage({ id: "done", content: "Sorry." }),
      ]);
      expect(ids(await memory.getMessages(other))).toEqual(["h", "done"]);
    });

    it("answers calls without an id by position, leaving out the tool messages past their number", async () => {
      const threadId = thread();
      const memory = memoryOf({ maxTokens: 10_000, includeToolMessages: true });
      await memory.addMessages(threadId, [
        new HumanMessage({ id: "h", content: "Look it up." }),
        new AIMessage({ id: "call", content: "", tool_calls: [{ name: "lookup", args: { q: "x" } }] }),
        new ToolMessage({ id: "r1", content: "found", tool_call_id: "" }),
        new ToolMessage({ id: "r2", content: "stray", tool_call_id: "" }),
        new AIMessage({ id: "done", content: "done" }),
      ]);
      const window = await memory.getMessages(threadId);
      expect(ids(window)).toEqual(["h", "call", "r1", "done"]);
      expect(window.filter((message) => message.type === "tool")).toHaveLength(1);
    });

    it("always keeps the thread's leading system message, counting it first", async () => {
      const c = conversation();
      const threadId = thread();
      const memory = memoryOf({ maxTokens: 55, countTokens: c.countTokens });
      await memory.addMessages(threadId, [c.system("s", 30), c.human("h1"), c.ai("a1")]);
      await memory.addMessages(threadId, [c.human("h2"), c.ai("a2")]);
      expect(ids(await memory.getMessages(threadId))).toEqual(["s", "h2", "a2"]);
      expect(ids(await memoryOf({ maxTokens: 1000, countTokens: c.countTokens }).getMessages(threadId))).toEqual(["s", "h1", "a1", "h2", "a2"]);
      // Larger than the budget on its own: kept, alone.
      expect(ids(await memoryOf({ maxTokens: 20, countTokens: c.countTokens }).getMessages(threadId))).toEqual(["s"]);
      const [system] = await memory.getMessages(threadId);
      expect(system).toBeInstanceOf(SystemMessage);

      // Only the first message counts as leading: a later system message is an ordinary one.
      const other = thread();
      await memory.addMessages(other, [c.human("x1"), c.system("s2", 30), c.human("x2"), c.ai("x3")]);
      expect(ids(await memoryOf({ maxTokens: 30, countTokens: c.countTokens }).getMessages(other))).toEqual(["x2", "x3"]);
    });

    it("finds the leading system message of a thread longer than a page, reading it alone", async () => {
      const c = conversation();
      const threadId = thread();
      const memory = memoryOf({ maxTokens: 40, countTokens: c.countTokens });
      await memory.addMessages(threadId, [c.system("s", 20)]);
      await memory.addMessages(threadId, Array.from({ length: 3 * FIRST_PAGE }, (_, index) => c.human(`m${index}`, 1)));
      const counting = countingReads(store());
      const window = await memoryOf({ maxTokens: 40, countTokens: c.countTokens }, counting.store).getMessages(threadId);
      expect(ids(window)).toEqual(["s", ...Array.from({ length: 20 }, (_, index) => `m${3 * FIRST_PAGE - 20 + index}`)]);
      expect(counting.reads).toEqual({ calls: 2, rows: FIRST_PAGE + 1 });
    });

    it("reads a bounded number of messages from a 10,000-message thread", { timeout: 60_000 }, async () => {
      const threadId = thread();
      const writer = memoryOf({ maxTokens: 1, countTokens: () => 10, includeToolMessages: true });
      const at = (index: number) => (index % 2 === 0 ? new HumanMessage(`question ${index}`) : new AIMessage(`answer ${index}`));
      for (let from = 0; from < 10_000; from += 1000) await writer.addMessages(threadId, Array.from({ length: 1000 }, (_, index) => at(from + index)));

      const counting = countingReads(store());
      const small = await memoryOf({ maxTokens: 200 }, counting.store).getMessages(threadId);
      expect(small).toHaveLength(20);
      expect(small.at(-1)?.text).toBe("answer 9999");
      expect(counting.reads).toEqual({ calls: 2, rows: FIRST_PAGE + 1 });

      // A window of 700 messages reads pages of 50, 100, 200, 400: at most twice the window.
      counting.reads.calls = counting.reads.rows = 0;
      const large = await memoryOf({ maxTokens: 7000 }, counting.store).getMessages(threadId);
      expect(large).toHaveLength(700);
      expect(large[0]?.text).toBe("question 9300");
      expect(counting.reads).toEqual({ calls: 5, rows: 50 + 100 + 200 + 400 + 1 });
    });

    it("counts each message's tokens once, when it is written, and stores the count with it", async () => {
      const threadId = thread();
      const countTokens = vi.fn((message: BaseMessage) => message.text.length / 2);
      const memory = memoryOf({ maxTokens: 100, countTokens });
      await memory.addMessages(threadId, [new HumanMessage("abc"), new AIMessage("abcdefgh")], { runId: "run-7" });
      expect(countTokens).toHaveBeenCalledTimes(2);
      await memory.getMessages(threadId);
      await memory.getMessages(threadId);
      expect(countTokens).toHaveBeenCalledTimes(2);
      const stored = await store().readThreadMessages(threadId);
      expect(stored.map((message) => [message.tokens, message.runId])).toEqual([[2, "run-7"], [4, "run-7"]]);

      const estimated = thread();
      const message = new HumanMessage("What's the weather like in Paris today?");
      await memoryOf({ maxTokens: 100 }).addMessages(estimated, [message]);
      expect((await store().readThreadMessages(estimated))[0]?.tokens).toBe(estimateMessageTokens(message));
    });

    it("without includeToolMessages, keeps the user's input and the answers, and what an AI message says besides its calls", async () => {
      const threadId = thread();
      const memory = memoryOf({ maxTokens: 10_000 });
      await memory.addMessages(threadId, [
        new HumanMessage({ id: "h", content: "Weather in Paris and Rome?" }),
        new AIMessage({ id: "calls", content: "", tool_calls: [{ id: "c1", name: "weather", args: { city: "Paris" } }] }),
        new ToolMessage({ id: "t1", content: "sunny", tool_call_id: "c1" }),
        new AIMessage({
          id: "says",
          content: "Paris is sunny; checking Rome.",
          tool_calls: [{ id: "c2", name: "weather", args: { city: "Rome" } }],
          additional_kwargs: { tool_calls: [{ id: "c2", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } }], other: 1 },
        }),
        new ToolMessage({ id: "t2", content: "rainy", tool_call_id: "c2" }),
        new AIMessage({ id: "answer", content: "Sunny in Paris, rainy in Rome." }),
      ]);
      const window = await memory.getMessages(threadId);
      expect(ids(window)).toEqual(["h", "says", "answer"]);
      const says = window[1] as AIMessage;
      expect(says.text).toBe("Paris is sunny; checking Rome.");
      expect(says.tool_calls ?? []).toEqual([]);
      expect(says.additional_kwargs).toEqual({ other: 1 });
      expect(await memory.addMessages(threadId, [new ToolMessage({ content: "x", tool_call_id: "c9" })])).toBeUndefined();
      expect(await store().readThreadMessages(threadId)).toHaveLength(3);
    });

    it("without includeToolMessages, takes tool_use content blocks for calls also when the message has no tool_calls", async () => {
      const threadId = thread();
      const memory = memoryOf({ maxTokens: 10_000 });
      await memory.addMessages(threadId, [
        new HumanMessage({ id: "h", content: "q" }),
        new AIMessage({ id: "only-calls", content: [{ type: "tool_use", id: "tu1", name: "f", input: {} }] }),
        new ToolMessage({ id: "t1", content: "r", tool_call_id: "tu1" }),
        new AIMessage({ id: "says", content: [{ type: "text", text: "Checking." }, { type: "tool_use", id: "tu2", name: "f", input: {} }] }),
        new ToolMessage({ id: "t2", content: "r", tool_call_id: "tu2" }),
        new AIMessage({ id: "answer", content: "done" }),
      ]);
      const window = await memory.getMessages(threadId);
      expect(ids(window)).toEqual(["h", "says", "answer"]);
      expect((window[1] as AIMessage).content).toEqual([{ type: "text", text: "Checking." }]);
    });

    it("without includeToolMessages, sends an OpenAI Responses API message's text back without its function call", async () => {
      const response = (output: unknown[]) =>
        convertResponsesMessageToAIMessage({ id: "resp_1", model: "gpt-4.1", created_at: 1, object: "response", status: "completed", output } as never);
      const text = { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Let me check the weather.", annotations: [] }] };
      const call = { type: "function_call", id: "fc_1", call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}', status: "completed" };
      const reasoning = { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Weather needs a tool." }] };
      const inputOf = async (messages: BaseMessage[], zdrEnabled = false) => {
        const threadId = thread();
        const memory = memoryOf({ maxTokens: 10_000 });
        await memory.addMessages(threadId, [new HumanMessage("Weather?"), ...messages]);
        return convertMessagesToResponsesInput({ messages: await memory.getMessages(threadId), zdrEnabled, model: "gpt-4.1" }) as { type?: string; id?: string }[];
      };

      const plain = await inputOf([response([text, call])]);
      expect(plain.filter((item) => item.type === "function_call")).toEqual([]);
      expect(plain).toEqual([expect.objectContaining({ role: "user" }), expect.objectContaining({ type: "message", id: "msg_1", role: "assistant" })]);

      // The reasoning that led to the call goes with it, and the message goes back as a new item.
      const reasoned = await inputOf([response([reasoning, text, call])]);
      expect(reasoned.map((item) => item.type)).toEqual(["message", "message"]);
      expect(reasoned[1]).not.toHaveProperty("id");
      const zdr = await inputOf([response([reasoning, text, call])], true);
      expect(zdr.filter((item) => item.type === "function_call" || item.type === "reasoning")).toEqual([]);
    });

    it("clears a thread, and stores messages exactly as @langchain/core serializes them", async () => {
      const threadId = thread();
      const memory = memoryOf({ maxTokens: 10_000, includeToolMessages: true });
      const messages = [
        new SystemMessage("You are terse."),
        new HumanMessage({ content: [{ type: "text", text: "NUL \u0000 and 🎉 日本語" }], id: "h" }),
        new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "lookup", args: { q: "ü" } }], usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } }),
        new ToolMessage({ content: "found", tool_call_id: "c1", name: "lookup" }),
      ];
      await memory.addMessages(threadId, messages);
      const window = await memory.getMessages(threadId);
      expect(window.map((message) => message.toDict())).toEqual(JSON.parse(JSON.stringify(messages.map((message) => message.toDict()))));
      expect(await memory.clear(threadId)).toBe(4);
      expect(await memory.getMessages(threadId)).toEqual([]);
    });

    it("names the thread and the seq of a stored message @langchain/core cannot read", async () => {
      const threadId = thread();
      const memory = memoryOf({ maxTokens: 1000 });
      await memory.addMessages(threadId, [new HumanMessage("fine")]);
      await store().appendThreadMessages(threadId, [{ message: { type: "martian", data: { content: "?" } }, tokens: 1, at: 1 }]);
      const error = await memory.getMessages(threadId).then(
        () => undefined,
        (caught: unknown) => caught as RunStoreError,
      );
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error?.message).toContain(`message 2 of thread "${threadId}"`);
      expect(error?.message).toMatch(/martian/);
    });

    it("rejects bad options and arguments with an InvalidArgumentError naming them, and writes nothing", async () => {
      const argumentOf = (make: () => unknown) => {
        try {
          make();
        } catch (error) {
          expect(InvalidArgumentError.isInstance(error)).toBe(true);
          return (error as InvalidArgumentError).argument;
        }
        return undefined;
      };
      expect(argumentOf(() => new ThreadMemory(undefined as never))).toBe("options");
      expect(argumentOf(() => new ThreadMemory({ store: {} as RunStore, maxTokens: 10 }))).toBe("store");
      expect(argumentOf(() => new ThreadMemory({ store: null as never, maxTokens: 10 }))).toBe("store");
      for (const maxTokens of [0, 1.5, -3, "100", Number.NaN]) expect(argumentOf(() => memoryOf({ maxTokens: maxTokens as number }))).toBe("maxTokens");
      expect(argumentOf(() => memoryOf({ maxTokens: 10, countTokens: "tiktoken" as never }))).toBe("countTokens");
      expect(argumentOf(() => memoryOf({ maxTokens: 10, includeToolMessages: "yes" as never }))).toBe("includeToolMessages");
      for (const startOn of ["user", "Human", "", null, true]) expect(argumentOf(() => memoryOf({ maxTokens: 10, startOn: startOn as never }))).toBe("startOn");
      expect(() => memoryOf({ maxTokens: 10, startOn: "user" as never })).toThrow('ThreadMemory: startOn must be "human" or "any", got "user".');
      expect(memoryOf({ maxTokens: 10 }).startOn).toBe("human");

      const threadId = thread();
      const memory = memoryOf({ maxTokens: 10 });
      const rejected = async (promise: Promise<unknown>) => {
        const error = await promise.then(() => undefined, (caught: unknown) => caught);
        expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
        return (error as InvalidArgumentError).argument;
      };
      expect(await rejected(memory.getMessages(""))).toBe("threadId");
      expect(await rejected(memory.addMessages(42 as never, []))).toBe("threadId");
      expect(await rejected(memory.addMessages(threadId, "hi" as never))).toBe("messages");
      expect(await rejected(memory.addMessages(threadId, [new HumanMessage("ok"), { role: "user", content: "hi" } as never]))).toBe("messages[1]");
      expect(await rejected(memory.addMessages(threadId, [], { runId: "" }))).toBe("runId");
      expect(await rejected(memory.clear(""))).toBe("threadId");
      for (const bad of [Number.NaN, -1, Number.POSITIVE_INFINITY, "3", 2 ** 60]) {
        const counting = memoryOf({ maxTokens: 10, countTokens: (message) => (message.text === "second" ? (bad as number) : 1) });
        expect(await rejected(counting.addMessages(threadId, [new HumanMessage("first"), new HumanMessage("second")]))).toBe("countTokens");
      }
      expect(await store().readThreadMessages(threadId)).toEqual([]);
    });
  });
}
