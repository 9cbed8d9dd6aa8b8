import { filter, map, scan, take, type OperatorFunction } from "rxjs";
import { type RunUsage, roundUsd } from "../cost/cost";
import type { AgentStreamEvent } from "../executor/events";
import type { BudgetKind, BudgetSpent } from "./budget-spent";

/**
 * A stop condition over what the run's model calls report in their `usage` events: `amountOf`
 * measures each call, and the budget is spent when the sum reaches `limit`. The call that spends
 * it is kept; the budget fires at that call's first `action` (or parsing-error `step`), or at any
 * event of a later iteration, so no tool it asked for runs. Shared by `tokenBudget` and
 * `costBudget`. @internal
 */
export function usageBudget(limit: number, budget: BudgetKind, amountOf: (usage: RunUsage) => number): OperatorFunction<AgentStreamEvent, BudgetSpent> {
  return (events) =>
    events.pipe(
      scan(
        (state, event) => {
          if (event.type === "output" || event.type === "start" || event.type === "interrupt") return state;
          if (state.spentAt === undefined) {
            if (event.type !== "usage") return state;
            // Rounded as costs are (0.7 + 0.1 is 0.7999999999999999 otherwise); token counts are whole.
            const used = roundUsd(state.used + amountOf(event.usage));
            return { used, spentAt: used >= limit ? event.iteration : undefined, fire: false };
          }
          // The budget is spent: stop once that call turns out to want more (tools, a retry).
          const more = event.iteration > state.spentAt || event.type === "action" || event.type === "step";
          const used = event.type === "usage" ? roundUsd(state.used + amountOf(event.usage)) : state.used;
          return { used, spentAt: state.spentAt, fire: more };
        },
        { used: 0, spentAt: undefined as number | undefined, fire: false },
      ),
      filter((state) => state.fire),
      take(1),
      map(({ used }): BudgetSpent => ({ budget, limit, used })),
    );
}
