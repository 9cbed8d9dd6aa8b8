import type { OperatorFunction } from "rxjs";
import type { AgentStreamEvent } from "./events";

/**
 * A condition that ends a run gracefully. The executor pipes the run's own events through it;
 * the first value it emits stops the run through the executor's `earlyStoppingMethod` (no error),
 * with `stopReason: "budget"`. Budgets such as `tokenBudget`, `toolCallBudget` and `timeBudget`
 * are stop conditions.
 *
 * @example
 * ```ts
 * import type { StopCondition } from "@agentrx/executors";
 * import { filter } from "rxjs";
 *
 * // Stop as soon as any tool call has been made to "delete_file".
 * const noDeletes: StopCondition = (events) =>
 *   events.pipe(filter((event) => event.type === "action" && event.action.tool === "delete_file"));
 * ```
 */
export type StopCondition = OperatorFunction<AgentStreamEvent, unknown>;

