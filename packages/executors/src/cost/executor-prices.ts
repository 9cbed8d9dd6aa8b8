import type { UsageMetadata } from "@langchain/core/messages";
import { processWarning } from "../executor/process-warning";
import { type PriceFunction, type Prices, type RunUsage, resolvePrices } from "./cost";

/** The code of the process warning about a model `prices` cannot price (see docs/cost.md#calls-without-a-price). */
const UNPRICED_MODEL_WARNING = "AGENTRX_UNPRICED_MODEL";

/**
 * Prices one model call: its usage with its `cost`, or, when it has no price, marked
 * `unpricedCalls: 1`. `model` is the name the model reported, if any.
 */
export type CallPricer = (model: string | undefined, usage: UsageMetadata) => RunUsage;

/**
 * An executor's `prices` option: the pricer of each of its runs, and the models it could not price,
 * each warned about once per executor (`process.emitWarning`, code `AGENTRX_UNPRICED_MODEL`), so
 * that a run's cost that leaves calls out never goes unnoticed (see docs/cost.md#calls-without-a-price).
 *
 * @internal
 */
export class ExecutorPrices {
  /** The models warned about; `undefined` stands for a model that reports no name. */
  private readonly warned = new Set<string | undefined>();
  /** The pricer of a table or a function (made once); `"auto"`'s is made when its list is imported. */
  private pricer: CallPricer | undefined;

  constructor(private readonly prices: Prices) {}

  /** The pricer for a run; for `"auto"`, once `@pydantic/genai-prices` is imported (see `resolvePrices`). */
  forRun(): Promise<CallPricer> | CallPricer {
    if (this.pricer !== undefined) return this.pricer;
    const resolved = resolvePrices(this.prices);
    if (resolved instanceof Promise) return resolved.then((price) => (this.pricer ??= this.pricerOf(price)));
    return (this.pricer = this.pricerOf(resolved));
  }

  private pricerOf(price: PriceFunction): CallPricer {
    return (model, usage) => {
      const cost = model === undefined ? undefined : price(model, usage);
      if (cost !== undefined) return { ...usage, cost };
      this.warnOnce(model);
      return { ...usage, unpricedCalls: 1 };
    };
  }

  private warnOnce(model: string | undefined): void {
    if (this.warned.has(model)) return;
    this.warned.add(model);
    processWarning(`${unpricedReason(this.prices, model)}: its calls have no \`cost\`, and a run's \`usage.cost\` leaves them out (\`usage.unpricedCalls\` counts them). ${howToPrice(this.prices, model)} This warning is given once per model per executor.`, UNPRICED_MODEL_WARNING);
  }
}

/** Why `prices` could not price a call of `model`. */
function unpricedReason(prices: Prices, model: string | undefined): string {
  if (model === undefined) return "AgentExecutor: a model call reported no model name (neither `response_metadata.model_name` or `model` in its reply nor LangChain's `ls_model_name`), so `prices` cannot look it up";
  if (prices === "auto") return `AgentExecutor: \`prices: "auto"\` (@pydantic/genai-prices) has no price for model "${model}"`;
  if (typeof prices === "function") return `AgentExecutor: the \`prices\` function returned undefined for model "${model}"`;
  return `AgentExecutor: the \`prices\` table has no price for model "${model}" (nor for a name it starts with followed by "-", "@" or ":")`;
}

/** What to do about it. */
function howToPrice(prices: Prices, model: string | undefined): string {
  if (model === undefined) return "Give the model a name (the `model` option of most chat models): `prices` looks every call up by its model's name, a function's included.";
  if (typeof prices === "function") return "Return a Cost for it (a zero Cost for a free model).";
  if (prices === "auto") return `Give its price in a \`prices\` function that falls back to @pydantic/genai-prices (see docs/cost.md).`;
  return `Add "${model}" to the price table ({ input, output } in dollars per million tokens; 0 for a free model).`;
}

