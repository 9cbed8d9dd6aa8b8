import { InvalidArgumentError } from "@agentrx/core";
import { connect, merge, take } from "rxjs";
import type { StopCondition } from "../executor/stop-condition";
import { isPriced, markPriced } from "./priced-condition";

/**
 * Combines stop conditions into one that fires when the first of them fires (with that
 * condition's value). The executor's `stopWhen` option also accepts an array, which means the
 * same; use this to build and name a reusable policy.
 *
 * @example
 * ```ts
 * import { stopWhenAny, timeBudget, tokenBudget, toolCallBudget } from "@agentrx/executors";
 *
 * export const frugal = stopWhenAny(tokenBudget(4_000), toolCallBudget(10), timeBudget(60_000));
 * ```
 */
export function stopWhenAny(...conditions: StopCondition[]): StopCondition {
  if (conditions.length === 0) {
    throw new InvalidArgumentError({
      argument: "conditions",
      value: conditions,
      message: "stopWhenAny: pass at least one stop condition, e.g. stopWhenAny(toolCallBudget(5)).",
    });
  }
  conditions.forEach((condition, index) => {
    if (typeof condition !== "function") {
      throw new InvalidArgumentError({
        argument: `conditions[${index}]`,
        value: condition,
        message: `stopWhenAny: \`conditions[${index}]\` must be a stop condition (an rxjs operator function), got ${typeof condition}.`,
      });
    }
  });
  const any: StopCondition = (events) =>
    events.pipe(
      connect((shared) => merge(...conditions.map((condition) => shared.pipe(condition)))),
      take(1),
    );
  return conditions.some(isPriced) ? markPriced(any) : any;
}
