import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AbortError } from "../errors/abort-error";
import { AgentRxError } from "../errors/agentrx-error";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { ScriptExhaustedError } from "./script-exhausted-error";
import { ScriptedChatModel } from "./scripted-chat-model";

const search = tool(async ({ query }) => `results for ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string() }),
});
const calculator = tool(async ({ expression }) => expression, {
  name: "calculator",
  description: "Evaluate an expression.",
  schema: z.object({ expression: z.string() }),
});

async function collect(model: { stream: ScriptedChatModel["stream"] }, input: string): Promise<AIMessageChunk[]> {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of await model.stream(input)) chunks.push(chunk);
  return chunks;
}

function aggregate(chunks: AIMessageChunk[]): AIMessageChunk {
  return chunks.reduce((all, chunk) => all.concat(chunk));
}

class TokenRecorder extends BaseCallbackHandler {
  name = "token-recorder";
  lc_prefer_streaming = true;
  tokens: string[] = [];
  override handleLLMNewToken(token: string): void {
    this.tokens.push(token);
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe("ScriptedChatModel", () => {
  it("plays scripted text in order and records each call's messages", async () => {
    const model = new ScriptedChatModel({ responses: ["first", "second"] });
    const one = await model.invoke([new SystemMessage("be brief"), new HumanMessage("hi")]);
    const two = await model.invoke("again");
    expect([one.content, two.content]).toEqual(["first", "second"]);
    expect(model.calls.map((call) => call.messages.map((message) => message.text))).toEqual([
      ["be brief", "hi"],
      ["again"],
    ]);
    expect(model.calls.map((call) => call.index)).toEqual([0, 1]);
    expect(model.remaining).toBe(0);
  });

  it("returns scripted tool calls with ids, and invalid JSON arguments as invalid tool calls", async () => {
    const model = new ScriptedChatModel({
      responses: [
        {
          content: "let me look",
          toolCalls: [
            { name: "search", args: { query: "paris" }, id: "call_a" },
            { name: "calculator", args: '{"expression": "1+' },
          ],
        },
      ],
    });
    const message = await model.invoke("go");
    expect(message.tool_calls).toEqual([{ name: "search", args: { query: "paris" }, id: "call_a", type: "tool_call" }]);
    expect(message.invalid_tool_calls).toHaveLength(1);
    expect(message.invalid_tool_calls?.[0]).toMatchObject({ name: "calculator", args: '{"expression": "1+', id: "call_0_1" });
    expect(message.response_metadata.finish_reason).toBe("tool_calls");
  });

  it("computes responses from the messages received", async () => {
    const model = new ScriptedChatModel({
      responses: [(messages, call) => `call ${call.index} saw ${messages.length} message(s): ${messages.at(-1)?.text}`],
    });
    expect((await model.invoke("hello")).content).toBe("call 0 saw 1 message(s): hello");
  });

  it("accepts an AIMessage as a response", async () => {
    const model = new ScriptedChatModel({
      responses: [new AIMessage({ content: "", tool_calls: [{ name: "search", args: { query: "x" }, id: "t1" }] })],
    });
    expect((await model.invoke("go")).tool_calls?.[0]).toMatchObject({ name: "search", id: "t1" });
  });

  it("replays an AIMessage from a real transcript with its reasoning, metadata and usage details, streamed or not", async () => {
    const usage = {
      input_tokens: 1_200,
      output_tokens: 80,
      total_tokens: 1_280,
      input_token_details: { cache_read: 1_000, cache_creation: 150 },
      output_token_details: { reasoning: 60 },
    };
    const transcript = () =>
      new AIMessage({
        content: [
          { type: "thinking", thinking: "Look it up.", signature: "sig==" },
          { type: "tool_use", id: "t1", name: "search", input: { query: "x" } },
        ],
        tool_calls: [{ name: "search", args: { query: "x" }, id: "t1" }],
        additional_kwargs: { reasoning_content: "Look it up." },
        response_metadata: { model_name: "claude-sonnet-4-5", stop_reason: "tool_use" },
        usage_metadata: usage,
      });
    for (const streaming of [false, true]) {
      const model = new ScriptedChatModel({ responses: [transcript()], streaming });
      const message = await model.invoke("go");
      expect(message.additional_kwargs).toEqual({ reasoning_content: "Look it up." });
      expect(message.usage_metadata).toEqual(usage);
      expect(message.response_metadata).toMatchObject({ model_name: "claude-sonnet-4-5", stop_reason: "tool_use" });
      expect(message.content).toEqual(transcript().content);
    }
    const streamed = aggregate(await collect(new ScriptedChatModel({ responses: [transcript()] }), "go"));
    expect(streamed.additional_kwargs).toEqual({ reasoning_content: "Look it up." });
    expect(streamed.usage_metadata).toEqual(usage);
  });

  it("streams text word by word, or by a number of characters", async () => {
    const words = await collect(new ScriptedChatModel({ responses: ["The sky is blue."] }), "q");
    expect(words.map((chunk) => chunk.content).filter(Boolean)).toEqual(["The ", "sky ", "is ", "blue."]);
    const chars = await collect(new ScriptedChatModel({ responses: ["abcdefg"], chunkSize: 3 }), "q");
    expect(chars.map((chunk) => chunk.content).filter(Boolean)).toEqual(["abc", "def", "g"]);
    expect(aggregate(chars).content).toBe("abcdefg");
  });

  it("streams tool calls as chunks whose aggregate reproduces the tool calls exactly", async () => {
    const toolCalls = [
      { name: "search", args: { query: "weather in Paris", days: 3, units: { temp: "C" } }, id: "call_1" },
      { name: "calculator", args: { expression: "(1 + 2) * 3" }, id: "call_2" },
    ];
    const model = new ScriptedChatModel({ responses: [{ toolCalls }], toolCallChunkSize: 5 });
    const chunks = await collect(model, "go");
    const argumentChunks = chunks.flatMap((chunk) => chunk.tool_call_chunks ?? []);
    expect(argumentChunks.length).toBeGreaterThan(4);
    expect(argumentChunks.every((chunk) => (chunk.args ?? "").length <= 5)).toBe(true);
    const message = aggregate(chunks);
    expect(message.tool_calls).toEqual(toolCalls.map((call) => ({ ...call, type: "tool_call" })));
    expect(message.response_metadata.finish_reason).toBe("tool_calls");
    expect(model.calls[0]?.streamed).toBe(true);
  });

  it("streams tool calls whose arguments are nested 100,000 levels deep (too deep for JSON.stringify)", async () => {
    const levels = 100_000;
    let args: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < levels; level++) args = { next: args };
    expect(() => JSON.stringify(args)).toThrow(RangeError);
    const model = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args }] }], toolCallChunkSize: 65_536 });
    let text = "";
    for await (const chunk of await model.stream("go")) text += chunk.tool_call_chunks?.map((part) => part.args ?? "").join("") ?? "";
    expect(text).toBe(`${'{"next":'.repeat(levels)}{"leaf":true}${"}".repeat(levels)}`);
    const streamed = await new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args }] }], streaming: true, toolCallChunkSize: 65_536 }).invoke("go");
    let inner: unknown = streamed.tool_calls?.[0]?.args;
    for (let level = 0; level < levels; level++) inner = (inner as { next: unknown }).next;
    expect(inner).toEqual({ leaf: true });
  });

  it("records the bound tools and tool choice of every call", async () => {
    const model = new ScriptedChatModel({ responses: ["a", "b"] });
    await model.bindTools([search, calculator], { tool_choice: "search" }).invoke("x");
    await model.invoke("y");
    expect(model.calls[0]?.toolNames).toEqual(["search", "calculator"]);
    expect(model.calls[0]?.tools).toEqual([search, calculator]);
    expect(model.calls[0]?.toolChoice).toBe("search");
    expect(model.calls[1]?.toolNames).toEqual([]);
    expect(model.calls[1]?.toolChoice).toBeUndefined();
  });

  it("names OpenAI-format tools", async () => {
    const model = new ScriptedChatModel({ responses: ["a"] });
    await model
      .bindTools([{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }])
      .invoke("x");
    expect(model.calls[0]?.toolNames).toEqual(["lookup"]);
  });

  it("waits its latency (fake timers) and can be aborted while waiting", async () => {
    vi.useFakeTimers();
    const model = new ScriptedChatModel({ responses: ["slow", "slower"], latencyMs: 1_000 });
    let settled = false;
    const pending = model.invoke("x").then((message) => {
      settled = true;
      return message;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).content).toBe("slow");

    const controller = new AbortController();
    const aborted = model.invoke("y", { signal: controller.signal });
    const outcome = aborted.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new AbortError({ reason: "stop" }));
    const error = await outcome;
    expect(AbortError.isInstance(error) || (error as Error).name === "AbortError").toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("uses a per-response latency over the model's", async () => {
    vi.useFakeTimers();
    const model = new ScriptedChatModel({ responses: [{ content: "quick", latencyMs: 5 }], latencyMs: 10_000 });
    const pending = model.invoke("x");
    await vi.advanceTimersByTimeAsync(5);
    expect((await pending).content).toBe("quick");
  });

  it("fails on cue with the scripted error, then carries on", async () => {
    const boom = new Error("rate limited");
    const model = new ScriptedChatModel({ responses: [boom, "recovered"] });
    await expect(model.invoke("x")).rejects.toBe(boom);
    expect((await model.invoke("x")).content).toBe("recovered");
  });

  it("throws ScriptExhaustedError when the script runs out", async () => {
    const model = new ScriptedChatModel({ responses: ["only"] });
    await model.invoke("x");
    const error = await model.invoke("x").catch((caught: unknown) => caught);
    expect(ScriptExhaustedError.isInstance(error)).toBe(true);
    expect(AgentRxError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ callIndex: 1, scriptLength: 1 });
    expect((error as Error).message).toContain("onExhausted");
  });

  it("shares one script position between callers: calls made at the same time take the responses in the order they arrive", async () => {
    const shared = new ScriptedChatModel({ responses: ["for A", "for B"], latencyMs: 0 });
    // B's call arrives first, and gets the response scripted for A.
    const [b, a] = await Promise.all([shared.invoke("B"), shared.invoke("A")]);
    expect([a.content, b.content]).toEqual(["for B", "for A"]);
    // A function entry played by every call answers from what each call is sent.
    const byMessage = new ScriptedChatModel({ responses: [(messages) => `for ${messages.at(-1)?.text}`], onExhausted: "repeat-last" });
    const [b2, a2] = await Promise.all([byMessage.invoke("B"), byMessage.invoke("A")]);
    expect([a2.content, b2.content]).toEqual(["for A", "for B"]);
  });

  it("repeats the last response or cycles when told to", async () => {
    const repeat = new ScriptedChatModel({ responses: ["a", "b"], onExhausted: "repeat-last" });
    const cycle = new ScriptedChatModel({ responses: ["a", "b"], onExhausted: "cycle" });
    const played = async (model: ScriptedChatModel) => {
      const out: unknown[] = [];
      for (let i = 0; i < 4; i++) out.push((await model.invoke("x")).content);
      return out;
    };
    expect(await played(repeat)).toEqual(["a", "b", "b", "b"]);
    expect(await played(cycle)).toEqual(["a", "b", "a", "b"]);
  });

  it("cuts text at the first stop sequence and records the stop sequences", async () => {
    const model = new ScriptedChatModel({ responses: ["Thought: search\nObservation: nothing", "no stop here"] });
    const message = await model.invoke("x", { stop: ["\nObservation:"] });
    expect(message.content).toBe("Thought: search");
    expect(model.calls[0]?.stop).toEqual(["\nObservation:"]);
    expect((await model.invoke("y")).content).toBe("no stop here");
  });

  it("calls handleLLMNewToken for each token when a handler prefers streaming", async () => {
    const recorder = new TokenRecorder();
    const model = new ScriptedChatModel({ responses: ["one two three"] });
    const message = await model.invoke("x", { callbacks: [recorder] });
    expect(recorder.tokens.filter(Boolean)).toEqual(["one ", "two ", "three"]);
    expect(message.content).toBe("one two three");
    expect(model.calls[0]?.streamed).toBe(true);
  });

  it("streams through invoke with `streaming: true`", async () => {
    const recorder = new TokenRecorder();
    recorder.lc_prefer_streaming = false;
    const model = new ScriptedChatModel({ responses: [{ content: "a b", toolCalls: [{ name: "search", args: { query: "q" } }] }], streaming: true });
    const message = await model.invoke("x", { callbacks: [recorder] });
    expect(recorder.tokens.filter(Boolean)).toEqual(["a ", "b"]);
    expect(message.content).toBe("a b");
    expect(message.tool_calls).toEqual([{ name: "search", args: { query: "q" }, id: "call_0_0", type: "tool_call" }]);
  });

  it("keeps truncated streamed arguments invalid, as without streaming", async () => {
    const response = { toolCalls: [{ name: "calculator", args: '{"expression": "1+' }] };
    for (const streaming of [false, true]) {
      const message = await new ScriptedChatModel({ responses: [response], streaming }).invoke("x");
      expect(message.tool_calls).toEqual([]);
      expect(message.invalid_tool_calls).toMatchObject([{ name: "calculator", args: '{"expression": "1+', id: "call_0_0" }]);
    }
  });

  it("waits tokenDelayMs between chunks and stops streaming when aborted", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const model = new ScriptedChatModel({ responses: ["a b c d"], tokenDelayMs: 100 });
    const seen: unknown[] = [];
    const done = (async () => {
      for await (const chunk of await model.stream("x", { signal: controller.signal })) seen.push(chunk.content);
    })().catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual(["a "]);
    await vi.advanceTimersByTimeAsync(100);
    expect(seen).toEqual(["a ", "b "]);
    controller.abort();
    expect(await done).toBeInstanceOf(Error);
    expect(seen).toEqual(["a ", "b "]);
  });

  it.each([
    ["per-chunk", [350, 450]],
    ["fixed-rate", [250, 300]],
  ] as const)("paces chunks %s: when a reader 250 ms late gets the next two", async (pacing, expected) => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
    const model = new ScriptedChatModel({ responses: ["a b c d"], tokenDelayMs: 100, pacing });
    const stream = (await model.stream("x"))[Symbol.asyncIterator]();
    const start = Date.now();
    const at = async () => {
      const next = stream.next();
      let ready = false;
      void next.then(() => (ready = true));
      await vi.advanceTimersByTimeAsync(0);
      while (!ready) await vi.advanceTimersByTimeAsync(1);
      return Date.now() - start;
    };
    expect(await at()).toBe(0); // "a "
    await vi.advanceTimersByTimeAsync(250); // the reader is busy
    // "b " is due at 100 and "c " at 200 with a fixed rate; each waits 100 ms after its read otherwise.
    await at();
    const second = await at();
    const third = await at();
    expect([second, third]).toEqual(expected);
    vi.useRealTimers();
  });

  it("refuses an unknown pacing", () => {
    expect(() => new ScriptedChatModel({ responses: [], pacing: "fast" as never })).toThrow(/`pacing` must be "per-chunk" or "fixed-rate", got fast/);
  });

  it("reports usage, scripted or estimated", async () => {
    const scripted = new ScriptedChatModel({ responses: [{ content: "x", usage: { inputTokens: 7, outputTokens: 3 } }] });
    expect((await scripted.invoke("q")).usage_metadata).toEqual({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
    const estimated = new ScriptedChatModel({ responses: ["two words"] });
    expect((await estimated.invoke("three words here")).usage_metadata).toEqual({ input_tokens: 3, output_tokens: 2, total_tokens: 5 });
    // Every message's text counts, whether its content is a string or blocks (an image counts nothing).
    const history = [
      new HumanMessage({ content: [{ type: "text", text: "two words" }, { type: "image_url", image_url: { url: "https://example.com/a.png" } }] }),
      new AIMessage("one"),
      new HumanMessage("and four more words"),
    ];
    expect((await new ScriptedChatModel({ responses: ["ok"] }).invoke(history)).usage_metadata).toEqual({ input_tokens: 7, output_tokens: 1, total_tokens: 8 });
  });

  it("keeps estimated usage in a message's serialised form (what a run's record stores)", async () => {
    const model = new ScriptedChatModel({ responses: ["two words", { toolCalls: [{ name: "t", args: {} }] }] });
    const usageOf = (message: AIMessage) => (JSON.parse(JSON.stringify(message)) as { kwargs: { usage_metadata?: unknown } }).kwargs.usage_metadata;
    expect(usageOf(await model.invoke("three words here"))).toEqual({ input_tokens: 3, output_tokens: 2, total_tokens: 5 });
    expect(usageOf(await model.invoke("one"))).toEqual({ input_tokens: 1, output_tokens: 1, total_tokens: 2 });
  });

  it.each([
    [{ responses: "nope" }, "responses"],
    [{ responses: [], latencyMs: -1 }, "latencyMs"],
    [{ responses: [], tokenDelayMs: Number.NaN }, "tokenDelayMs"],
    [{ responses: [], chunkSize: 0 }, "chunkSize"],
    [{ responses: [], toolCallChunkSize: 1.5 }, "toolCallChunkSize"],
    [{ responses: [], onExhausted: "loop" }, "onExhausted"],
  ])("rejects bad options %#", (options, argument) => {
    let error: unknown;
    try {
      new ScriptedChatModel(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe(argument);
    expect((error as Error).message).toContain(argument);
  });
});
