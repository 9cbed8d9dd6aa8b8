import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions, type AgentStreamEvent, type UsageEvent, addCost, costBudget, formatUsd, priceUsage, stopWhenAny, toolCallBudget } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { prompt } from "../operators/executor-fixtures";
import { genaiPriceFunction, priceTableFunction, resolvePrices } from "./cost";

const search = tool(async ({ query }: { query: string }) => `Sunny in ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string() }),
});

function executorOf(responses: ScriptedResponse[], options: Partial<AgentExecutorOptions>, model = "gpt-4o-2024-08-06") {
  const llm = new ScriptedChatModel({ responses, model });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt }), tools: [search], ...options });
}

const call = (query: string): ScriptedResponse => ({ toolCalls: [{ name: "search", args: { query } }], usage: { inputTokens: 1_000, outputTokens: 100 } });
const answer: ScriptedResponse = { content: "Sunny.", usage: { inputTokens: 2_000, outputTokens: 200 } };

describe("priceUsage", () => {
  it("prices cached reads, cache writes and reasoning tokens at their own rates", () => {
    const cost = priceUsage(
      {
        input_tokens: 1_000_000,
        output_tokens: 500_000,
        total_tokens: 1_500_000,
        input_token_details: { cache_read: 600_000, cache_creation: 100_000 },
        output_token_details: { reasoning: 200_000 },
      },
      { input: 2, cacheRead: 0.5, cacheWrite: 2.5, output: 8, reasoning: 10 },
    );
    // 300k uncached at $2, 600k read at $0.5, 100k written at $2.5; 300k output at $8, 200k reasoning at $10.
    expect(cost.input).toBeCloseTo(0.6 + 0.3 + 0.25, 10);
    expect(cost.output).toBeCloseTo(2.4 + 2, 10);
    expect(cost.total).toBeCloseTo(cost.input + cost.output, 10);
    expect(cost.currency).toBe("USD");
  });

  it("defaults the cache and reasoning rates to the input and output rates", () => {
    const cost = priceUsage(
      { input_tokens: 1_000_000, output_tokens: 1_000_000, total_tokens: 2_000_000, input_token_details: { cache_read: 500_000 }, output_token_details: { reasoning: 500_000 } },
      { input: 1, output: 4 },
    );
    expect(cost).toEqual({ input: 1, output: 4, total: 5, currency: "USD" });
  });

  it("a price table matches the exact name, else the longest prefix", () => {
    const price = priceTableFunction({ "gpt-4o": { input: 1, output: 1 }, "gpt-4o-mini": { input: 0.1, output: 0.1 } });
    const usage = { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000 };
    expect(price("gpt-4o-mini-2024-07-18", usage)?.total).toBeCloseTo(0.1);
    expect(price("gpt-4o-2024-08-06", usage)?.total).toBeCloseTo(1);
    expect(price("claude-3", usage)).toBeUndefined();
  });

  it("addCost sums either side", () => {
    expect(addCost(undefined, undefined)).toBeUndefined();
    expect(addCost({ input: 1, output: 2, total: 3, currency: "USD" }, { input: 1, output: 1, total: 2, currency: "USD" })).toEqual({ input: 2, output: 3, total: 5, currency: "USD" });
  });

  it("costs add up as decimal amounts do, without floating-point noise", () => {
    // 1,000 tokens at $0.1 and 500 at $0.4 per million: 0.0001 + 0.0002.
    expect(priceUsage({ input_tokens: 1_000, output_tokens: 500, total_tokens: 1_500 }, { input: 0.1, output: 0.4 })).toEqual({ input: 0.0001, output: 0.0002, total: 0.0003, currency: "USD" });
    const dollars = (total: number) => ({ input: total, output: 0, total, currency: "USD" as const });
    expect(addCost(dollars(0.7), dollars(0.1))?.total).toBe(0.8);
    expect(addCost(dollars(0.1), dollars(0.2))?.total).toBe(0.3);
  });

  it("formatUsd never shows four decimals for an amount that rounds to a dollar", () => {
    expect(formatUsd(0.99996)).toBe("$1.00");
    expect(formatUsd(0.9999)).toBe("$0.9999");
    expect(formatUsd(0.012345)).toBe("$0.0123");
  });

  it('"auto" gives @pydantic/genai-prices the reasoning tokens, for models that price them apart', () => {
    const seen: Record<string, number | undefined>[] = [];
    const price = genaiPriceFunction({
      calcPrice: (usage) => {
        seen.push(usage);
        return null;
      },
    });
    price("o3", { input_tokens: 100, output_tokens: 50, total_tokens: 150, input_token_details: { cache_read: 40 }, output_token_details: { reasoning: 30 } });
    expect(seen).toEqual([{ input_tokens: 100, cache_read_tokens: 40, cache_write_tokens: 0, output_tokens: 50, output_reasoning_tokens: 30 }]);
  });

  it('"auto" prices from @pydantic/genai-prices, cached reads cheaper', async () => {
    const price = await resolvePrices("auto");
    const plain = price("gpt-4o", { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000 });
    const cached = price("gpt-4o", { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000, input_token_details: { cache_read: 1_000_000 } });
    expect(plain?.total).toBeGreaterThan(0);
    expect(cached!.total).toBeLessThan(plain!.total);
    expect(price("no-such-model-xyz", { input_tokens: 1, output_tokens: 1, total_tokens: 2 })).toBeUndefined();
  });
});

describe("the executor's prices option", () => {
  const table = { "gpt-4o": { input: 2.5, output: 10 } };

  it("puts usage.cost on each usage event and sums it into the run's usage", async () => {
    const executor = executorOf([call("Paris"), answer], { prices: table });
    const events = await lastValueFrom(executor.stream({ input: "Weather?" }).pipe(toArray()));
    const usages = events.filter((event): event is UsageEvent => event.type === "usage");
    expect(usages.map((event) => event.usage.cost?.total)).toEqual([0.0025 + 0.001, 0.005 + 0.002]);
    expect(usages[0]?.model).toBe("gpt-4o-2024-08-06");
    const output = events.at(-1) as Extract<AgentStreamEvent, { type: "output" }>;
    expect(output.usage?.cost?.total).toBeCloseTo(0.0105, 10);
    const result = await lastValueFrom(executorOf([call("Paris"), answer], { prices: table }).invoke({ input: "Weather?" }));
    expect(result.usage?.cost).toMatchObject({ input: 0.0075, output: 0.003, currency: "USD" });
  });

  it("leaves a call of an unpriced model without cost, and counts it as unpriced", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      const executor = executorOf([answer], { prices: table }, "mystery-model");
      const result = await lastValueFrom(executor.invoke({ input: "Weather?" }));
      expect(result.usage?.input_tokens).toBe(2_000);
      expect(result.usage?.cost).toBeUndefined();
      expect(result.usage?.unpricedCalls).toBe(1);
      expect(warn).toHaveBeenCalledOnce();
    } finally {
      warn.mockRestore();
    }
  });

  it("takes a function that decides per call", async () => {
    const seen: string[] = [];
    const executor = executorOf([answer], {
      prices: (model, usage) => {
        seen.push(model);
        return { input: usage.input_tokens, output: 0, total: usage.input_tokens, currency: "USD" };
      },
    });
    const result = await lastValueFrom(executor.invoke({ input: "Weather?" }));
    expect(seen).toEqual(["gpt-4o-2024-08-06"]);
    expect(result.usage?.cost?.total).toBe(2_000);
  });

  it("refuses a malformed price table at construction, naming the field", () => {
    expect(() => executorOf([answer], { prices: { "gpt-4o": { input: 1 } } as never })).toThrow(/prices\["gpt-4o"\]\.output/);
    expect(() => executorOf([answer], { prices: "cheap" as never })).toThrow(/`prices` must be "auto"/);
    // The value as given (JSON would show Infinity and NaN as null).
    expect(() => executorOf([answer], { prices: { "gpt-4o": { input: Infinity, output: 1 } } })).toThrow('`prices["gpt-4o"].input` must be a number >= 0 (dollars per million tokens), got Infinity.');
    expect(() => executorOf([answer], { prices: { "gpt-4o": { input: 1, output: Number.NaN } } })).toThrow("got NaN.");
  });

  it("refuses a Map or a class instance as the price table (it has no entries of its own: nothing would be priced)", () => {
    const map = new Map([["gpt-4o", { input: 2.5, output: 10 }]]);
    expect(() => executorOf([answer], { prices: map as never })).toThrow("`prices` must be a plain object ({ [model]: { input, output } }), got a Map (use Object.fromEntries(map)).");
    class Table {
      "gpt-4o" = { input: 2.5, output: 10 };
    }
    expect(() => executorOf([answer], { prices: new Table() as never })).toThrow(/got an instance of Table/);
    // A table without a prototype is a plain one.
    const bare = Object.assign(Object.create(null) as object, table);
    expect(() => executorOf([answer], { prices: bare })).not.toThrow();
  });
});

describe("costBudget", () => {
  it("stops the run before the tools of the call that spent it, with a clear stopReason", async () => {
    const executor = executorOf([call("Paris"), call("Lyon"), answer], { prices: { "gpt-4o": { input: 2.5, output: 10 } } });
    const events = await lastValueFrom(executor.stream({ input: "Weather?" }, { stopWhen: costBudget(0.005) }).pipe(toArray()));
    const output = events.at(-1) as Extract<AgentStreamEvent, { type: "output" }>;
    expect(output.stopReason).toBe("budget");
    expect(output.stoppedBy).toEqual({ budget: "cost", limit: 0.005, used: 0.007 });
    expect(output.output).toBe("Agent stopped because its cost budget was spent ($0.0070 used of $0.0050).");
    expect(events.filter((event) => event.type === "step")).toHaveLength(1);
  });

  it("is refused by an executor without prices, where no call has a cost and it would never fire", async () => {
    const executor = executorOf([call("Paris"), answer], {});
    await expect(lastValueFrom(executor.invoke({ input: "Weather?" }, { stopWhen: costBudget(0.005) }))).rejects.toThrow(
      /`config.stopWhen` is a costBudget, but the executor has no `prices`/,
    );
    // Also inside stopWhenAny, in a list, and as the executor's own condition.
    await expect(lastValueFrom(executor.invoke({ input: "Weather?" }, { stopWhen: [toolCallBudget(3), stopWhenAny(toolCallBudget(2), costBudget(1))] }))).rejects.toThrow(
      /`config.stopWhen\[1\]` is a costBudget/,
    );
    expect(() => executorOf([answer], { stopWhen: costBudget(1) })).toThrow(/`stopWhen` is a costBudget, but the executor has no `prices`/);
    // Conditions that do not read costs are fine without prices.
    await expect(lastValueFrom(executorOf([answer], {}).invoke({ input: "Weather?" }, { stopWhen: stopWhenAny(toolCallBudget(2)) }))).resolves.toMatchObject({ output: "Sunny." });
  });

  it("refuses a budget that is not a positive number", () => {
    expect(() => costBudget(0)).toThrow(/`maxUsd` must be a positive number/);
    expect(() => costBudget(Number.NaN)).toThrow(/`maxUsd`/);
  });
});

describe("checks of prices and budgets", () => {
  const usage = { input_tokens: 1_000, output_tokens: 100, total_tokens: 1_100 };

  it("priceUsage refuses a price it cannot use, naming the field, and a usage that is not one", () => {
    expect(() => priceUsage(usage, { input: 1 } as never)).toThrow("priceUsage: `price.output` must be a number >= 0 (dollars per million tokens), got undefined.");
    expect(() => priceUsage(usage, { input: -1, output: 1 })).toThrow("`price.input` must be a number >= 0");
    expect(() => priceUsage(usage, { input: "2", output: 1 } as never)).toThrow('got "2"');
    expect(() => priceUsage(usage, { input: 1, output: 1, cacheReed: 0 } as never)).toThrow("`price.cacheReed` is not a price field (did you mean `cacheRead`?)");
    expect(() => priceUsage(usage, { input: 1, output: 1, cachedInput: 0 } as never)).toThrow("`price.cachedInput` is not a price field; a model's price has input, output, cacheRead");
    expect(() => priceUsage(null as never, { input: 1, output: 1 })).toThrow("priceUsage: `usage` must be a usage object");
    expect(priceUsage(usage, { input: 1, output: 1 }).total).toBeCloseTo(0.0011, 10);
  });

  it("an executor keeps a copy of its price table: a later change to the caller's object prices nothing differently", async () => {
    const table = { "gpt-4o": { input: 2.5, output: 10 } };
    const executor = executorOf([answer], { prices: table });
    table["gpt-4o"].input = -5;
    const result = await lastValueFrom(executor.invoke({ input: "Weather?" }));
    expect(result.usage?.cost?.input).toBeCloseTo(0.005, 10);
  });

  it("a spent cost budget names the amounts readably, under a cent and over a thousand dollars", async () => {
    const small = executorOf([call("Paris"), answer], { prices: { "gpt-4o": { input: 0.01, output: 0.01 } } });
    const tiny = await lastValueFrom(small.invoke({ input: "Weather?" }, { stopWhen: costBudget(0.00001) }));
    expect(tiny.output).toBe("Agent stopped because its cost budget was spent ($0.0000110 used of $0.0000100).");
    const big = executorOf([call("Paris"), answer], { prices: { "gpt-4o": { input: 3_000_000, output: 0 } } });
    const large = await lastValueFrom(big.invoke({ input: "Weather?" }, { stopWhen: costBudget(2500) }));
    expect(large.output).toBe("Agent stopped because its cost budget was spent ($3000.00 used of $2500.00).");
  });

  it("costBudget names the type of a value that is not a number; an async price function is refused for what it is", async () => {
    expect(() => costBudget("1" as never)).toThrow('costBudget: `maxUsd` must be a positive number of US dollars, got string "1".');
    const executor = executorOf([answer], { prices: (async () => ({ input: 0, output: 0, total: 0, currency: "USD" })) as never });
    await expect(lastValueFrom(executor.invoke({ input: "Weather?" }))).rejects.toThrow(/returned a Promise for model "gpt-4o-2024-08-06": it must return a Cost \(or undefined\) synchronously/);
  });
});
