import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import type { UsageMetadata } from "@langchain/core/messages";
import type { OperatorFunction } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";
import type { BudgetSpent } from "./budget-spent";
import { usageBudget } from "./usage-budget";

/**
 * Options of {@link tokenBudget}.
 *
 * @example
 * ```ts
 * import { tokenBudget, type TokenBudgetOptions } from "@agentrx/executors";
 *
 * const completionOnly: TokenBudgetOptions = { count: "output" };
 * const budget = tokenBudget(1_000, completionOnly);
 * ```
 */
export interface TokenBudgetOptions {
  /**
   * Which tokens count against the budget: the sum of each call's `total_tokens`, only its
   * `input_tokens` (prompt), or only its `output_tokens` (completion).
   * @default "total"
   */
  count?: "total" | "input" | "output";
}

const COUNTS = ["total", "input", "output"] as const;

/**
 * A stop condition that ends a run once its model calls have used `maxTokens` tokens, as
 * reported by each call's `usage_metadata` (the executor's `usage` events).
 *
 * Usage is only known when a call has finished, and that call's work is already paid for, so it
 * is kept: if the call that spends the budget gives the final answer, the run simply finishes.
 * If it asks for tools instead, the budget fires at its first `action` event (or at the `step`
 * of its parsing error), before any of those tools run, and the run ends through the executor's
 * `earlyStoppingMethod` with `stopReason: "budget"`. No model call starts after the budget is
 * spent, except the one `"generate"` call. A model that reports no usage never spends it.
 *
 * @param maxTokens - A positive integer: the budget is spent when the count reaches it.
 * @example
 * ```ts
 * import { AgentExecutor, tokenBudget } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * executor.stream({ input: "Plan my trip" }, { stopWhen: tokenBudget(2_000, { count: "output" }) });
 * ```
 */
export function tokenBudget(
  maxTokens: number,
  options: TokenBudgetOptions = {},
): OperatorFunction<AgentStreamEvent, BudgetSpent> {
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new InvalidArgumentError({
      argument: "maxTokens",
      value: maxTokens,
      message: `tokenBudget: \`maxTokens\` must be a positive integer, got ${String(maxTokens)}.`,
    });
  }
  checkOptionKeys("tokenBudget", options, ["count"] satisfies (keyof TokenBudgetOptions)[]);
  const { count = "total" } = options ?? {};
  if (!COUNTS.includes(count)) {
    throw new InvalidArgumentError({
      argument: "count",
      value: count,
      message: `tokenBudget: \`count\` must be "total", "input" or "output", got ${JSON.stringify(count)}.`,
    });
  }
  return usageBudget(maxTokens, "tokens", (usage) => tokensOf(usage, count));
}

function tokensOf(usage: UsageMetadata, count: "total" | "input" | "output"): number {
  const input = finite(usage.input_tokens);
  const output = finite(usage.output_tokens);
  if (count === "input") return input;
  if (count === "output") return output;
  const total = finite(usage.total_tokens);
  return total > 0 ? total : input + output;
}

function finite(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
