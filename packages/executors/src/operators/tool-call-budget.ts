import { InvalidArgumentError } from "@agentrx/core";
import { filter, map, scan, take, type OperatorFunction } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";
import type { BudgetSpent } from "./budget-spent";

/**
 * A stop condition that allows at most `maxCalls` tool calls in a run. It fires at the `action`
 * event of the call that would exceed the budget (the `maxCalls + 1`-th), which the executor
 * emits before that tool runs: so the agent may use all `maxCalls` calls and still answer
 * normally afterwards, and the run only stops (through the `earlyStoppingMethod`, with
 * `stopReason: "budget"`) when the agent asks for one call too many. With `"generate"`, the
 * agent then answers from the steps it has.
 *
 * Every action counts, including one that names an unknown tool. Handled parsing errors
 * (`_Exception` steps) are not tool calls and do not count.
 *
 * @param maxCalls - An integer ≥ 0; `0` stops the run at the first tool call.
 * @example
 * ```ts
 * import { AgentExecutor, toolCallBudget } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * executor.invoke({ input: "Research this" }, { stopWhen: toolCallBudget(5) });
 * ```
 */
export function toolCallBudget(maxCalls: number): OperatorFunction<AgentStreamEvent, BudgetSpent> {
  if (typeof maxCalls !== "number" || !Number.isInteger(maxCalls) || maxCalls < 0) {
    throw new InvalidArgumentError({
      argument: "maxCalls",
      value: maxCalls,
      message: `toolCallBudget: \`maxCalls\` must be an integer >= 0, got ${String(maxCalls)}.`,
    });
  }
  return (events) =>
    events.pipe(
      filter((event) => event.type === "action"),
      scan((requested) => requested + 1, 0),
      filter((requested) => requested > maxCalls),
      take(1),
      map((requested): BudgetSpent => ({ budget: "tool_calls", limit: maxCalls, used: requested })),
    );
}
