import { InvalidArgumentError, nearMissOf, refusePromise, showValue } from "@agentrx/core";
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
 * set when the executor's `prices` option knows the model, or, when the executor has `prices` and
 * they cannot price the call (a model they do not know, a model that reports no name),
 * `unpricedCalls: 1`. A run's total usage sums the costs of the calls that have one and counts in
 * `unpricedCalls` those that have none, so a `cost` that leaves calls out says so (see
 * docs/cost.md#calls-without-a-price).
 *
 * @example
 * ```ts
 * import type { RunUsage } from "@agentrx/executors";
 *
 * declare const usage: RunUsage;
 * console.log(usage.cost?.total ?? "unpriced", usage.unpricedCalls ?? 0);
 * ```
 */
export type RunUsage = UsageMetadata & {
  cost?: Cost;
  /** How many model calls the executor's `prices` could not price (absent: none, or no `prices`). */
  unpricedCalls?: number;
};

/**
 * One model's prices in US dollars per million tokens. `input` is the price of an uncached prompt
 * token and `output` of a completion token; `cacheRead` (a prompt token read from the provider's
 * cache), `cacheWrite` (a prompt token written to it), `inputAudio` (an audio prompt token),
 * `reasoning` (a reasoning token) and `outputAudio` (an audio completion token) default to
 * `input`, `input`, `input`, `output` and `output`.
 *
 * @example
 * ```ts
 * import type { ModelPrice } from "@agentrx/executors";
 *
 * const gpt4o: ModelPrice = { input: 2.5, cacheRead: 1.25, output: 10 };
 * const gptAudio: ModelPrice = { input: 2.5, inputAudio: 32, output: 10, outputAudio: 64 };
 * ```
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  inputAudio?: number;
  reasoning?: number;
  outputAudio?: number;
}

/** Every field of a {@link ModelPrice}, in the order error messages list them. */
const PRICE_FIELDS = Object.keys({
  input: true,
  output: true,
  cacheRead: true,
  cacheWrite: true,
  inputAudio: true,
  reasoning: true,
  outputAudio: true,
} satisfies Record<keyof ModelPrice, true>);

/**
 * Prices by model name. A model is priced by its exact name, else by the longest name in the
 * table that its name starts with followed by `-`, `@` or `:` (`"gpt-4o"` prices
 * `"gpt-4o-2024-08-06"`, but `"gpt-4"` does not price `"gpt-4o"` or `"gpt-4.1"`), else, for a name
 * with a provider prefix (`"openai/gpt-4o"`), by the name after its last `/` in the same way.
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
 * Prices a model call: its cost, or `undefined` when the model has no known price. The answer is
 * checked: anything but `undefined` or a `Cost` of finite amounts >= 0 in `"USD"`, or an error the
 * function throws, fails the run (an `InvalidArgumentError` naming the model and the field).
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
 * What `usage` costs at `price` (dollars per million tokens). LangChain counts cached reads, cache
 * writes and audio inside `input_tokens`, and reasoning and audio inside `output_tokens`; each part
 * is priced at its own rate. Prompt tokens are taken as cached first and audio tokens as uncached
 * (providers do not say which cached tokens were audio), and a detail larger than its count is
 * capped at what is left of the count.
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
  if (typeof usage !== "object" || usage === null || Array.isArray(usage)) {
    throw new InvalidArgumentError({ argument: "usage", value: usage, message: `priceUsage: \`usage\` must be a usage object ({ input_tokens, output_tokens, ... }, a message's usage_metadata), got ${showValue(usage)}.` });
  }
  checkModelPrice("priceUsage: ", "price", "price", price);
  return priceOf(usage, price);
}

/** {@link priceUsage} of a usage and a price already checked. */
function priceOf(usage: UsageMetadata, price: ModelPrice): Cost {
  const parts = usageParts(usage);
  const uncached = parts.input - parts.cacheRead - parts.cacheWrite;
  const audioIn = Math.min(parts.inputAudio, uncached);
  const plain = parts.output - parts.reasoning;
  const audioOut = Math.min(parts.outputAudio, plain);
  const input =
    ((uncached - audioIn) * price.input +
      audioIn * (price.inputAudio ?? price.input) +
      parts.cacheRead * (price.cacheRead ?? price.input) +
      parts.cacheWrite * (price.cacheWrite ?? price.input)) /
    1e6;
  const output = ((plain - audioOut) * price.output + audioOut * (price.outputAudio ?? price.output) + parts.reasoning * (price.reasoning ?? price.output)) / 1e6;
  return usd(input, output, input + output);
}

/**
 * A usage's counts, made consistent: each detail at most what is left of its count (cached reads,
 * then cache writes, of the input; audio at most the input; reasoning at most the output; audio at
 * most the output). Some integrations count cached or reasoning tokens outside the totals.
 */
function usageParts(usage: UsageMetadata): { input: number; cacheRead: number; cacheWrite: number; inputAudio: number; output: number; reasoning: number; outputAudio: number } {
  const input = count(usage.input_tokens);
  const cacheRead = Math.min(count(usage.input_token_details?.cache_read), input);
  const cacheWrite = Math.min(count(usage.input_token_details?.cache_creation), input - cacheRead);
  const inputAudio = Math.min(count(usage.input_token_details?.audio), input);
  const output = count(usage.output_tokens);
  const reasoning = Math.min(count(usage.output_token_details?.reasoning), output);
  const outputAudio = Math.min(count(usage.output_token_details?.audio), output);
  return { input, cacheRead, cacheWrite, inputAudio, output, reasoning, outputAudio };
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

/**
 * A price table as a function: the exact name, else the longest key the name starts with followed
 * by `-`, `@` or `:` (a date or version suffix: `"gpt-4o"` prices `"gpt-4o-2024-08-06"`, `"gpt-4"`
 * does not price `"gpt-4o"`), else the same for the name after its last `/` (a provider prefix).
 */
export function priceTableFunction(table: PriceTable): PriceFunction {
  const keys = Object.keys(table).sort((a, b) => b.length - a.length);
  const lookup = (model: string): ModelPrice | undefined => {
    if (Object.hasOwn(table, model)) return table[model];
    const key = keys.find((candidate) => candidate !== "" && model.startsWith(candidate) && "-@:".includes(model.charAt(candidate.length)));
    return key === undefined ? undefined : table[key];
  };
  return (model, usage) => {
    const slash = model.lastIndexOf("/");
    const price = lookup(model) ?? (slash === -1 ? undefined : lookup(model.slice(slash + 1)));
    return price === undefined ? undefined : priceOf(usage, price);
  };
}

/**
 * Checks a `prices` option once, at construction, and returns what the executor keeps: a price
 * table copied (a later change to the caller's object would bypass the checks: a negative price, a
 * misspelt field), anything else as it is. @internal
 */
export function validatePrices(prices: unknown): Prices | undefined {
  if (prices === undefined || prices === "auto" || typeof prices === "function") return prices as Prices | undefined;
  const fail = (message: string): never => {
    throw new InvalidArgumentError({ argument: "prices", value: prices, message });
  };
  if (typeof prices !== "object" || prices === null || Array.isArray(prices)) {
    fail(`AgentExecutor: \`prices\` must be "auto", a price table ({ [model]: { input, output } } in dollars per million tokens) or a function (model, usage) => Cost | undefined, got ${JSON.stringify(prices)}.`);
  }
  // A Map (or another class's instance) has no entries of its own: every model would go unpriced.
  const proto = Object.getPrototypeOf(prices) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    const kind = prices instanceof Map ? "a Map" : `an instance of ${(prices as object).constructor?.name ?? "a class"}`;
    fail(`AgentExecutor: \`prices\` must be a plain object ({ [model]: { input, output } }), got ${kind}${prices instanceof Map ? " (use Object.fromEntries(map))" : ""}.`);
  }
  const copy: PriceTable = {};
  for (const [model, price] of Object.entries(prices as Record<string, unknown>)) {
    if (model === "") fail("AgentExecutor: `prices` model names must not be empty.");
    checkModelPrice("AgentExecutor: ", `prices["${model}"]`, "prices", price, prices);
    Object.defineProperty(copy, model, { value: { ...(price as ModelPrice) }, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/**
 * Checks one model's price: an object of {@link PRICE_FIELDS}, `input` and `output` required, each
 * a number >= 0. Messages start with `owner` and name `label` (`prices["gpt-4o"]`, `price`);
 * `value` is the error's value (the whole table, for a table's entry).
 */
function checkModelPrice(owner: string, label: string, argument: string, price: unknown, value: unknown = price): asserts price is ModelPrice {
  const fail = (message: string): never => {
    throw new InvalidArgumentError({ argument, value, message: `${owner}${message}` });
  };
  if (typeof price !== "object" || price === null || Array.isArray(price)) {
    fail(`\`${label}\` must be an object { input, output } (dollars per million tokens), got ${showValue(price)}.`);
  }
  const fields = price as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!PRICE_FIELDS.includes(key)) {
      const meant = nearMissOf(key, PRICE_FIELDS);
      fail(`\`${label}.${key}\` is not a price field${meant === undefined ? "" : ` (did you mean \`${meant}\`?)`}; a model's price has ${PRICE_FIELDS.join(", ")}.`);
    }
  }
  for (const key of PRICE_FIELDS) {
    const field = fields[key];
    const required = key === "input" || key === "output";
    if ((field === undefined && !required) || (typeof field === "number" && Number.isFinite(field) && field >= 0)) continue;
    fail(`\`${label}.${key}\` must be a number >= 0 (dollars per million tokens), got ${showValue(field)}.`);
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
  if (typeof prices === "function") return checkedPriceFunction(prices);
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
 * A user's price function whose every answer is checked: `undefined`, or a `Cost` of finite amounts
 * >= 0 in USD. Anything else would make the run's cost `NaN` or a sum of currencies, so it fails
 * the run with an error naming the model and the fault.
 */
function checkedPriceFunction(price: PriceFunction): PriceFunction {
  return (model, usage) => {
    const cost: unknown = price(model, usage);
    if (cost === undefined) return undefined;
    const fail = (message: string): never => {
      throw new InvalidArgumentError({ argument: "prices", value: cost, message: `AgentExecutor: ${message}` });
    };
    if (refusePromise(cost)) {
      fail(`the \`prices\` function returned a Promise for model "${model}": it must return a Cost (or undefined) synchronously, as each call is priced when it ends. Look prices up before the run (or use "auto").`);
    }
    if (typeof cost !== "object" || cost === null || Array.isArray(cost)) {
      fail(`the \`prices\` function must return a Cost { input, output, total, currency: "USD" } or undefined, got ${String(JSON.stringify(cost) ?? cost)} for model "${model}".`);
    }
    const fields = cost as Record<string, unknown>;
    for (const key of ["input", "output", "total"]) {
      const value = fields[key];
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        fail(`the \`prices\` function returned a cost for model "${model}" whose \`${key}\` is ${typeof value === "number" ? String(value) : JSON.stringify(value) ?? "undefined"}; it must be a number of US dollars >= 0.`);
      }
    }
    if (fields["currency"] !== "USD") fail(`the \`prices\` function returned a cost for model "${model}" whose \`currency\` is ${JSON.stringify(fields["currency"]) ?? "undefined"}; costs are in "USD".`);
    return cost as Cost;
  };
}

/**
 * `@pydantic/genai-prices` as a price function: LangChain's usage in its terms (cached reads, cache
 * writes and audio counted inside the input tokens, reasoning and audio inside the output tokens,
 * as LangChain counts them), made consistent first (`calcPrice` throws on a detail larger than its
 * count, which some integrations report), priced by `calcPrice`. @internal
 */
export function genaiPriceFunction(module: Pick<GenaiPrices, "calcPrice">): PriceFunction {
  return (model, usage) => {
    const parts = usageParts(usage);
    // Audio tokens that cannot all be uncached were read from the cache; `calcPrice` needs that
    // overlap whenever a prompt has both.
    const cachedAudio = Math.min(parts.cacheRead, Math.max(0, parts.inputAudio - (parts.input - parts.cacheRead - parts.cacheWrite)));
    const result = module.calcPrice(
      {
        input_tokens: parts.input,
        cache_read_tokens: parts.cacheRead,
        cache_write_tokens: parts.cacheWrite,
        output_tokens: parts.output,
        output_reasoning_tokens: parts.reasoning,
        ...(parts.inputAudio > 0 ? { input_audio_tokens: parts.inputAudio } : {}),
        ...(parts.inputAudio > 0 && parts.cacheRead > 0 ? { cache_audio_read_tokens: cachedAudio } : {}),
        ...(parts.outputAudio > 0 ? { output_audio_tokens: parts.outputAudio } : {}),
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

/**
 * The sum of two usages: token counts, their details (cache reads and writes, reasoning and audio
 * tokens, each key summed), cost and unpriced calls, as the executor sums a run's usage. Neither argument is
 * changed; `total` may be absent (the first usage).
 *
 * @example
 * ```ts
 * import { addUsage } from "@agentrx/executors";
 *
 * const sum = addUsage({ input_tokens: 10, output_tokens: 2, total_tokens: 12, input_token_details: { cache_read: 8 } }, { input_tokens: 5, output_tokens: 1, total_tokens: 6 });
 * console.log(sum.total_tokens, sum.input_token_details?.cache_read); // 18 8
 * ```
 */
export function addUsage(total: RunUsage | undefined, usage: RunUsage): RunUsage {
  if (total === undefined) return { ...usage };
  const sum: RunUsage = {
    input_tokens: total.input_tokens + usage.input_tokens,
    output_tokens: total.output_tokens + usage.output_tokens,
    total_tokens: total.total_tokens + usage.total_tokens,
  };
  const input = addDetails(total.input_token_details, usage.input_token_details);
  if (input) sum.input_token_details = input;
  const output = addDetails(total.output_token_details, usage.output_token_details);
  if (output) sum.output_token_details = output;
  const cost = addCost(total.cost, usage.cost);
  if (cost) sum.cost = cost;
  const unpriced = (total.unpricedCalls ?? 0) + (usage.unpricedCalls ?? 0);
  if (unpriced > 0) sum.unpricedCalls = unpriced;
  return sum;
}

/** Two detail records summed key by key (a count only one of them has is kept as it is). */
function addDetails<T extends object>(a: T | undefined, b: T | undefined): T | undefined {
  if (a === undefined) return b === undefined ? undefined : { ...b };
  if (b === undefined) return { ...a };
  const out: Record<string, number> = { ...(a as Record<string, number>) };
  for (const [key, value] of Object.entries(b as Record<string, number>)) {
    if (typeof value === "number") out[key] = (out[key] ?? 0) + value;
  }
  return out as T;
}
