import { InvalidArgumentError } from "@agentrx/core";
import type { UsageMetadata } from "@langchain/core/messages";

/**
 * What a model call (or a whole run) cost, in US dollars: `input` covers the prompt (cached reads
 * and cache writes included), `output` the completion (reasoning included), `total` their sum.
 *
 * @example
 * ```ts
 * import type { Cost } from "@agentrx/executors";
 *
 * const cost: Cost = { input: 0.0025, output: 0.01, total: 0.0125, currency: "USD" };
 * ```
 */
export interface Cost {
  input: number;
  output: number;
  total: number;
  currency: "USD";
}

/**
 * A model call's usage as the executor reports it: LangChain's `UsageMetadata` plus its `cost`,
 * set when the executor's `prices` option knows the model. A run's total usage sums the costs of
 * the calls that have one.
 *
 * @example
 * ```ts
 * import type { RunUsage } from "@agentrx/executors";
 *
 * declare const usage: RunUsage;
 * console.log(usage.cost?.total ?? "unpriced");
 * ```
 */
export type RunUsage = UsageMetadata & { cost?: Cost };

/**
 * One model's prices in US dollars per million tokens. `input` is the price of an uncached prompt
 * token and `output` of a completion token; `cacheRead` (a prompt token read from the provider's
 * cache), `cacheWrite` (a prompt token written to it) and `reasoning` (a reasoning token) default
 * to `input`, `input` and `output`.
 *
 * @example
 * ```ts
 * import type { ModelPrice } from "@agentrx/executors";
 *
 * const gpt4o: ModelPrice = { input: 2.5, cacheRead: 1.25, output: 10 };
 * ```
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/**
 * Prices by model name. A model is priced by its exact name, else by the longest name in the
 * table that its name starts with (`"gpt-4o"` prices `"gpt-4o-2024-08-06"`).
 *
 * @example
 * ```ts
 * import type { PriceTable } from "@agentrx/executors";
 *
 * const prices: PriceTable = { "gpt-4o": { input: 2.5, cacheRead: 1.25, output: 10 } };
 * ```
 */
export type PriceTable = Record<string, ModelPrice>;

/**
 * Prices a model call: its cost, or `undefined` when the model has no known price.
 *
 * @example
 * ```ts
 * import type { PriceFunction } from "@agentrx/executors";
 *
 * const flat: PriceFunction = (_model, usage) => {
 *   const total = usage.total_tokens / 1_000_000;
 *   return { input: 0, output: total, total, currency: "USD" };
 * };
 * ```
 */
export type PriceFunction = (model: string, usage: UsageMetadata) => Cost | undefined;

/**
 * The executor's `prices` option: `"auto"` (the `@pydantic/genai-prices` list, an optional peer
 * dependency imported on first use), a {@link PriceTable}, or a {@link PriceFunction}.
 *
 * @example
 * ```ts
 * import type { Prices } from "@agentrx/executors";
 *
 * const prices: Prices = "auto";
 * ```
 */
export type Prices = "auto" | PriceTable | PriceFunction;

/**
 * What `usage` costs at `price` (dollars per million tokens). LangChain counts cached reads and
 * cache writes inside `input_tokens` and reasoning inside `output_tokens`; each part is priced at
 * its own rate.
 *
 * @example
 * ```ts
 * import { priceUsage } from "@agentrx/executors";
 *
 * const cost = priceUsage(
 *   { input_tokens: 1_000, output_tokens: 100, total_tokens: 1_100, input_token_details: { cache_read: 800 } },
 *   { input: 2.5, cacheRead: 1.25, output: 10 },
 * );
 * console.log(cost.total); // 0.0025
 * ```
 */
export function priceUsage(usage: UsageMetadata, price: ModelPrice): Cost {
  const cacheRead = count(usage.input_token_details?.cache_read);
  const cacheWrite = count(usage.input_token_details?.cache_creation);
  const reasoning = count(usage.output_token_details?.reasoning);
  const uncached = Math.max(0, count(usage.input_tokens) - cacheRead - cacheWrite);
  const plain = Math.max(0, count(usage.output_tokens) - reasoning);
  const input = (uncached * price.input + cacheRead * (price.cacheRead ?? price.input) + cacheWrite * (price.cacheWrite ?? price.input)) / 1e6;
  const output = (plain * price.output + reasoning * (price.reasoning ?? price.output)) / 1e6;
  return usd(input, output, input + output);
}

/**
 * A cost with its amounts rounded to 12 significant digits: binary floating point adds noise to
 * decimal sums (0.7 + 0.1 is 0.7999999999999999), which a budget of $0.80 would not see as spent.
 */
function usd(input: number, output: number, total: number): Cost {
  return { input: roundUsd(input), output: roundUsd(output), total: roundUsd(total), currency: "USD" };
}

/** `amount` rounded to 12 significant digits: decimal amounts then add up as they do on paper. @internal */
export function roundUsd(amount: number): number {
  return Number.isFinite(amount) && amount !== 0 ? Number(amount.toPrecision(12)) : amount;
}

/**
 * The sum of two costs (either may be absent), rounded to 12 significant digits so that decimal
 * amounts add up as they do on paper.
 *
 * @example
 * ```ts
 * import { addCost } from "@agentrx/executors";
 *
 * addCost({ input: 1, output: 2, total: 3, currency: "USD" }, undefined)?.total; // 3
 * ```
 */
export function addCost(a: Cost | undefined, b: Cost | undefined): Cost | undefined {
  if (a === undefined) return b === undefined ? undefined : { ...b };
  if (b === undefined) return { ...a };
  return usd(a.input + b.input, a.output + b.output, a.total + b.total);
}

/** A price table as a function: exact name, else the longest key the name starts with. */
export function priceTableFunction(table: PriceTable): PriceFunction {
  const keys = Object.keys(table).sort((a, b) => b.length - a.length);
  return (model, usage) => {
    const price = table[model] ?? table[keys.find((key) => model.startsWith(key)) ?? ""];
    return price === undefined ? undefined : priceUsage(usage, price);
  };
}

/** Checks a `prices` option once, at construction. @internal */
export function validatePrices(prices: unknown): void {
  if (prices === undefined || prices === "auto" || typeof prices === "function") return;
  const fail = (message: string): never => {
    throw new InvalidArgumentError({ argument: "prices", value: prices, message });
  };
  if (typeof prices !== "object" || prices === null || Array.isArray(prices)) {
    fail(`AgentExecutor: \`prices\` must be "auto", a price table ({ [model]: { input, output } } in dollars per million tokens) or a function (model, usage) => Cost | undefined, got ${JSON.stringify(prices)}.`);
  }
  for (const [model, price] of Object.entries(prices as Record<string, unknown>)) {
    const fields = price as Record<string, unknown> | null;
    for (const key of ["input", "output", "cacheRead", "cacheWrite", "reasoning"]) {
      const value = typeof fields === "object" && fields !== null ? fields[key] : undefined;
      const required = key === "input" || key === "output";
      if ((value === undefined && !required) || (typeof value === "number" && Number.isFinite(value) && value >= 0)) continue;
      fail(`AgentExecutor: \`prices["${model}"].${key}\` must be a number >= 0 (dollars per million tokens), got ${JSON.stringify(value)}.`);
    }
  }
}

type GenaiPrices = typeof import("@pydantic/genai-prices");
const SPECIFIER = "@pydantic/genai-prices";
let autoPrices: Promise<PriceFunction> | undefined;

/**
 * The `prices` option as one function. `"auto"` imports `@pydantic/genai-prices` the first time
 * (a missing package rejects with an error that says to install it). @internal
 */
export function resolvePrices(prices: Prices): Promise<PriceFunction> | PriceFunction {
  if (typeof prices === "function") return prices;
  if (prices !== "auto") return priceTableFunction(prices);
  return (autoPrices ??= (import(/* webpackIgnore: true */ /* @vite-ignore */ SPECIFIER) as Promise<GenaiPrices>).then(
    (module) => genaiPriceFunction(module),
    (cause: unknown) => {
      autoPrices = undefined;
      throw new InvalidArgumentError({
        argument: "prices",
        value: "auto",
        message: `AgentExecutor: \`prices: "auto"\` needs the optional package @pydantic/genai-prices (npm install @pydantic/genai-prices), which could not be imported: ${cause instanceof Error ? cause.message : String(cause)}. Or give a price table.`,
      });
    },
  ));
}

/**
 * `@pydantic/genai-prices` as a price function: LangChain's usage in its terms (cached reads, cache
 * writes and reasoning tokens counted inside the input and output tokens, as LangChain counts
 * them), priced by `calcPrice`. @internal
 */
export function genaiPriceFunction(module: Pick<GenaiPrices, "calcPrice">): PriceFunction {
  return (model, usage) => {
    const result = module.calcPrice(
      {
        input_tokens: count(usage.input_tokens),
        cache_read_tokens: count(usage.input_token_details?.cache_read),
        cache_write_tokens: count(usage.input_token_details?.cache_creation),
        output_tokens: count(usage.output_tokens),
        output_reasoning_tokens: count(usage.output_token_details?.reasoning),
      },
      model,
    );
    if (result === null) return undefined;
    return usd(result.input_price, result.output_price, result.total_price);
  };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * A dollar amount for people: `$0` for nothing, `<$0.0001` for less than that, four decimals
 * under a dollar (`$0.0123`), else two (`$12.50`).
 *
 * @example
 * ```ts
 * import { formatUsd } from "@agentrx/executors";
 *
 * formatUsd(0.012345); // "$0.0123"
 * ```
 */
export function formatUsd(amount: number): string {
  if (!Number.isFinite(amount) || amount <= 0) return "$0";
  if (amount < 0.0001) return "<$0.0001";
  // Under a dollar to four decimals, unless that rounds up to one ($0.99996 is "$1.00").
  const cents = amount.toFixed(4);
  return `$${cents.startsWith("0.") ? cents : amount.toFixed(2)}`;
}
