import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { Observable, timer, type OperatorFunction, type SchedulerLike } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";
import type { BudgetSpent } from "./budget-spent";

/**
 * Options of {@link timeBudget}.
 *
 * @example
 * ```ts
 * import { timeBudget, type TimeBudgetOptions } from "@agentrx/executors";
 * import { asyncScheduler } from "rxjs";
 *
 * const options: TimeBudgetOptions = { scheduler: asyncScheduler }; // the default
 * const budget = timeBudget(30_000, options);
 * ```
 */
export interface TimeBudgetOptions {
  /**
   * The scheduler of the timer (tests may pass a `TestScheduler`; `vi.useFakeTimers()` works
   * with the default).
   * @default asyncScheduler
   */
  scheduler?: SchedulerLike;
}

/**
 * A stop condition that ends a run after `ms` milliseconds of wall time, counted from the moment
 * the executor subscribes to it (the start of the run). Unlike the `maxExecutionTime` option it
 * can be given per call and combined with other budgets, and the run ends with
 * `stopReason: "budget"`; like it, the run stops through the `earlyStoppingMethod` and what is
 * in flight is cancelled. The timer is cleared when the run ends first.
 *
 * @param ms - A number of milliseconds ≥ 0; `0` fires on subscription, so the run stops before
 *   its first agent call (like `maxExecutionTime: 0`).
 * @example
 * ```ts
 * import { AgentExecutor, timeBudget } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * executor.stream({ input: "Summarise the news" }, { stopWhen: timeBudget(30_000) });
 * ```
 */
export function timeBudget(
  ms: number,
  options: TimeBudgetOptions = {},
): OperatorFunction<AgentStreamEvent, BudgetSpent> {
  if (typeof ms !== "number" || Number.isNaN(ms) || ms < 0 || ms === Infinity) {
    throw new InvalidArgumentError({
      argument: "ms",
      value: ms,
      message: `timeBudget: \`ms\` must be a finite number of milliseconds >= 0, got ${String(ms)}.`,
    });
  }
  checkOptionKeys("timeBudget", options, ["scheduler"] satisfies (keyof TimeBudgetOptions)[]);
  const { scheduler } = options ?? {};
  if (scheduler !== undefined && typeof (scheduler as Partial<SchedulerLike> | null)?.schedule !== "function") {
    throw new InvalidArgumentError({
      argument: "scheduler",
      value: scheduler,
      message: `timeBudget: \`scheduler\` must be an RxJS scheduler (such as asyncScheduler or a TestScheduler), got ${String(scheduler)}.`,
    });
  }
  return (events) =>
    new Observable<BudgetSpent>((subscriber) => {
      if (ms === 0) {
        // Spent before it starts: fire on subscription, so the run stops before its first call
        // (a timer, even of 0 ms, would let a fast run finish first).
        subscriber.next({ budget: "time", limit: 0, used: 0 });
        subscriber.complete();
        return undefined;
      }
      const time = (scheduler ? timer(ms, scheduler) : timer(ms)).subscribe(() => {
        subscriber.next({ budget: "time", limit: ms, used: ms });
        subscriber.complete();
      });
      if (subscriber.closed) return time;
      // The run's events only matter for their end: the budget completes with the run.
      const run = events.subscribe({
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        time.unsubscribe();
        run.unsubscribe();
      };
    });
}
