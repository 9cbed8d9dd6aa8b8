import type { StopCondition } from "../executor/stop-condition";

/** Marks a stop condition that reads the cost of model calls, which only the executor's `prices` option gives them. */
const PRICED = Symbol.for("agentrx.stopCondition.priced");

/**
 * `condition`, marked as reading the cost of the run's model calls (`costBudget`, and what
 * `stopWhenAny` builds of it): the executor refuses it when it has no `prices`, where it would
 * never fire. @internal
 */
export function markPriced<C extends StopCondition>(condition: C): C {
  Object.defineProperty(condition, PRICED, { value: true });
  return condition;
}

/** Whether `condition` reads the cost of model calls (see {@link markPriced}). @internal */
export function isPriced(condition: unknown): boolean {
  return typeof condition === "function" && (condition as unknown as Record<symbol, unknown>)[PRICED] === true;
}
