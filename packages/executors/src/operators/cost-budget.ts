import { InvalidArgumentError, showValue } from "@agentrx/core";
import type { OperatorFunction } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";
import type { BudgetSpent } from "./budget-spent";
import { markPriced } from "./priced-condition";
import { usageBudget } from "./usage-budget";

/**
 * A stop condition that ends a run once its model calls have cost `maxUsd` US dollars, as priced
 * by the executor's `prices` option (each `usage` event's `usage.cost.total`). A call whose model
 * has no price costs nothing here, so give `prices` a price for every model the run uses. An
 * executor without `prices` refuses it (no call would have a cost: it would never stop the run).
 *
 * Like `tokenBudget`, the call that spends the budget is kept: if it gives the final answer the
 * run finishes; if it asks for tools, the run ends before any of them runs, through the
 * executor's `earlyStoppingMethod`, with `stopReason: "budget"` and `stoppedBy`
 * `{ budget: "cost", limit: maxUsd, used }` (dollars).
 *
 * @param maxUsd - A positive number of US dollars.
 * @example
 * ```ts
 * import { AgentExecutor, costBudget } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * await executor.invoke({ input: "Plan my trip" }, { stopWhen: costBudget(0.05) });
 * ```
 */
export function costBudget(maxUsd: number): OperatorFunction<AgentStreamEvent, BudgetSpent> {
  if (typeof maxUsd !== "number" || !Number.isFinite(maxUsd) || maxUsd <= 0) {
    throw new InvalidArgumentError({
      argument: "maxUsd",
      value: maxUsd,
      message: `costBudget: \`maxUsd\` must be a positive number of US dollars, got ${typeof maxUsd === "number" ? String(maxUsd) : `${typeof maxUsd} ${showValue(maxUsd)}`}.`,
    });
  }
  return markPriced(
    usageBudget(maxUsd, "cost", (usage) => {
      const total = usage.cost?.total;
      return typeof total === "number" && Number.isFinite(total) && total > 0 ? total : 0;
    }),
  );
}
