// How prices treat audio tokens, usage whose details do not add up, table lookups by name and
// malformed price tables.
import { ScriptedChatModel } from "@agentrx/core/testing";
import { createAgentExecutor, priceUsage } from "@agentrx/executors";
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { InvalidArgumentError } from "@agentrx/core";
import { unhandledDuring } from "../executor/test-helpers";
import { priceTableFunction, resolvePrices } from "./cost";

const million = 1_000_000;

describe("audio tokens", () => {
  it("are priced at the audio rates of a price table, defaulting to the text rates", () => {
    const usage = {
      input_tokens: million,
      output_tokens: million,
      total_tokens: 2 * million,
      input_token_details: { audio: 400_000 },
      output_token_details: { audio: 250_000 },
    };
    // 600k text at $2.5 and 400k audio at $40; 750k text at $10 and 250k audio at $80.
    expect(priceUsage(usage, { input: 2.5, inputAudio: 40, output: 10, outputAudio: 80 })).toEqual({ input: 17.5, output: 27.5, total: 45, currency: "USD" });
    expect(priceUsage(usage, { input: 2.5, output: 10 })).toEqual({ input: 2.5, output: 10, total: 12.5, currency: "USD" });
  });

  it("cached prompt tokens keep their cache rate alongside audio ones", () => {
    // 1M prompt tokens: 500k read from the cache, 300k audio (so none of the audio was cached), 200k text.
    const usage = { input_tokens: million, output_tokens: 0, total_tokens: million, input_token_details: { cache_read: 500_000, audio: 300_000 } };
    expect(priceUsage(usage, { input: 4, cacheRead: 0.4, inputAudio: 32, output: 16 }).input).toBe(0.8 + 0.2 + 9.6);
  });

  it('are priced by "auto" at the model\'s audio rates', async () => {
    const price = await resolvePrices("auto");
    const text = price("gpt-audio", { input_tokens: million, output_tokens: million, total_tokens: 2 * million });
    const audio = price("gpt-audio", {
      input_tokens: million,
      output_tokens: million,
      total_tokens: 2 * million,
      input_token_details: { audio: million },
      output_token_details: { audio: million },
    });
    expect(audio!.input).toBeGreaterThan(text!.input);
    expect(audio!.output).toBeGreaterThan(text!.output);
  });

  it('"auto" prices audio and cached prompt tokens together', async () => {
    const price = await resolvePrices("auto");
    const usage = { input_tokens: 100, output_tokens: 10, total_tokens: 110, input_token_details: { cache_read: 20, audio: 50 } };
    expect(price("gpt-audio", usage)?.total).toBeGreaterThan(0);
    expect(price("gpt-realtime", { ...usage, input_token_details: { cache_read: 80, audio: 50 } })?.total).toBeGreaterThan(0);
  });
});

describe("usage whose details exceed its counts", () => {
  const inconsistent = {
    input_tokens: 100,
    output_tokens: 10,
    total_tokens: 110,
    // An integration that counts cached tokens outside input_tokens, and reasoning outside output_tokens.
    input_token_details: { cache_read: 300, cache_creation: 50, audio: 400 },
    output_token_details: { reasoning: 40, audio: 30 },
  };

  it('is priced by "auto" instead of failing the run', async () => {
    const price = await resolvePrices("auto");
    expect(() => price("gpt-4o", inconsistent)).not.toThrow();
    expect(price("gpt-4o", inconsistent)?.total).toBeGreaterThan(0);
    expect(price("gpt-realtime", inconsistent)?.total).toBeGreaterThan(0);
    expect(price("claude-3-5-sonnet-20241022", inconsistent)?.total).toBeGreaterThan(0);
  });

  it('keeps a run with prices: "auto" going', async () => {
    const reply = new AIMessage({ content: "Hi.", usage_metadata: inconsistent });
    const executor = createAgentExecutor({ model: new ScriptedChatModel({ model: "gpt-4o", responses: [reply] }), tools: [], prices: "auto" });
    const result = await executor.invoke({ input: "Hi" });
    expect(result.output).toBe("Hi.");
    expect(result.usage?.cost?.total).toBeGreaterThan(0);
  });
});

describe("price table lookups", () => {
  const usage = { input_tokens: million, output_tokens: 0, total_tokens: million };
  const price = priceTableFunction({
    "gpt-4": { input: 30, output: 60 },
    "gpt-4o": { input: 2.5, output: 10 },
    "claude-3-5-sonnet": { input: 3, output: 15 },
  });

  it("price a dated or versioned name by its model's entry", () => {
    expect(price("gpt-4o-2024-08-06", usage)?.total).toBe(2.5);
    expect(price("gpt-4-0613", usage)?.total).toBe(30);
    expect(price("claude-3-5-sonnet-20241022", usage)?.total).toBe(3);
    expect(price("claude-3-5-sonnet@20240620", usage)?.total).toBe(3);
  });

  it("do not price a different model whose name merely starts with a known one", () => {
    // gpt-4o is not gpt-4 (twelve times cheaper); gpt-4.1 is another model again.
    expect(price("gpt-4o", usage)?.total).toBe(2.5);
    expect(price("gpt-4.1", usage)).toBeUndefined();
    expect(price("gpt-4omni", usage)).toBeUndefined();
    expect(priceTableFunction({ "gpt-4": { input: 30, output: 60 } })("gpt-4o", usage)).toBeUndefined();
  });

  it("price a name with a provider prefix by the model's entry", () => {
    expect(price("openai/gpt-4o", usage)?.total).toBe(2.5);
    expect(price("openai/gpt-4o-2024-08-06", usage)?.total).toBe(2.5);
    // An entry for the prefixed name wins.
    expect(priceTableFunction({ "gpt-4o": { input: 2.5, output: 10 }, "openrouter/gpt-4o": { input: 3, output: 12 } })("openrouter/gpt-4o", usage)?.total).toBe(3);
  });
});

describe("malformed price tables", () => {
  const build = (prices: unknown) => () => createAgentExecutor({ model: new ScriptedChatModel({ responses: ["Hi."] }), tools: [], prices: prices as never });

  it("refuse a price field they do not know, naming it and the fields they do", () => {
    expect(build({ "gpt-4o": { input: 2.5, output: 10, cachedInput: 1.25 } })).toThrow(/prices\["gpt-4o"\]\.cachedInput.*not a price field.*cacheRead/s);
  });

  it("refuse a model's price that is not an object", () => {
    expect(build({ "gpt-4o": 2.5 })).toThrow(/prices\["gpt-4o"\]` must be an object \{ input, output/);
  });

  it("refuse an empty model name", () => {
    expect(build({ "": { input: 1, output: 1 } })).toThrow(/model names must not be empty/);
  });

  it("accept the audio prices", () => {
    expect(build({ "gpt-audio": { input: 2.5, inputAudio: 32, output: 10, outputAudio: 64 } })).not.toThrow();
    expect(build({ "gpt-audio": { input: 2.5, inputAudio: -1, output: 10 } })).toThrow(/prices\["gpt-audio"\]\.inputAudio/);
  });
});

describe("a prices function", () => {
  const run = (prices: unknown) =>
    createAgentExecutor({ model: new ScriptedChatModel({ model: "gpt-4o", responses: ["Hi."] }), tools: [], prices: prices as never }).invoke({ input: "Hi" });

  it("that returns a malformed cost fails the run with an error naming the model and the field", async () => {
    await expect(run(() => ({ input: 1, output: Number.NaN, total: Number.NaN, currency: "USD" }))).rejects.toThrow(/`prices` function returned a cost for model "gpt-4o" whose `output` is NaN/);
    await expect(run(() => 0.5)).rejects.toThrow(/`prices` function must return a Cost \{ input, output, total, currency: "USD" \} or undefined, got 0.5 for model "gpt-4o"/);
    await expect(run(() => ({ input: 1, output: 1, total: 2, currency: "EUR" }))).rejects.toThrow(/`currency` is "EUR"/);
  });

  it("that throws fails the run under stream() as under invoke(), rather than dropping the call's usage", async () => {
    const { lastValueFrom, toArray } = await import("rxjs");
    const streamed = (prices: unknown) =>
      lastValueFrom(createAgentExecutor({ model: new ScriptedChatModel({ model: "gpt-4o", streaming: true, responses: ["Hi."] }), tools: [], prices: prices as never }).stream({ input: "Hi" }).pipe(toArray()));
    const broken = () => {
      throw new Error("price service down");
    };
    await expect(run(broken)).rejects.toThrow("price service down");
    await expect(streamed(broken)).rejects.toThrow("price service down");
    await expect(streamed(() => 0.5)).rejects.toThrow(/`prices` function must return a Cost/);
  });

  it("that returns a rejected promise (an async function that throws) fails the run naming `prices`, without an unhandled rejection", async () => {
    const { unhandled, error } = await unhandledDuring(() => run(() => Promise.reject(new Error("price service down"))));
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("prices");
    expect((error as Error).message).toMatch(/`prices` function returned a Promise for model "gpt-4o"/);
    expect(unhandled).toEqual([]);
  });

  it("that returns a cost or undefined prices the run as it says", async () => {
    expect((await run(() => ({ input: 0.1, output: 0.2, total: 0.3, currency: "USD" }))).usage?.cost?.total).toBe(0.3);
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      const unpriced = await run(() => undefined);
      expect(unpriced.usage?.cost).toBeUndefined();
      expect(unpriced.usage?.unpricedCalls).toBe(1);
    } finally {
      warn.mockRestore();
    }
  });
});
