import { InvalidArgumentError } from "@agentrx/core";
import { Subject, Subscription } from "rxjs";
import type { AgentStreamEvent } from "./events";
import type { StopCondition } from "./stop-condition";

/**
 * Feeds a run's events to its stop conditions and reports the first value one of them emits.
 *
 * @internal
 */
export class StopConditionWatcher {
  private readonly input = new Subject<AgentStreamEvent>();
  private readonly subscription = new Subscription();
  private closed = false;

  /**
   * Subscribes every condition; `onStop` gets what a condition emits, `onError` its error (also
   * an error thrown while subscribing, after which nothing more is subscribed).
   */
  constructor(conditions: readonly StopCondition[], onStop: (value: unknown) => void, onError: (error: unknown) => void) {
    const observer = { next: onStop, error: onError };
    for (const condition of conditions) {
      try {
        const stops = condition(this.input.asObservable()) as unknown;
        // Anything with `subscribe` (an Observable of another copy of RxJS too).
        if (typeof (stops as { subscribe?: unknown } | null)?.subscribe !== "function") {
          throw new InvalidArgumentError({
            argument: "stopWhen",
            value: stops,
            message: `A \`stopWhen\` condition must return an Observable (events$) => Observable, emitting when the run should stop; got ${stops === null ? "null" : typeof stops}.`,
          });
        }
        this.subscription.add((stops as ReturnType<StopCondition>).subscribe(observer));
      } catch (error) {
        onError(error);
        return;
      }
    }
  }

  /** Passes an event on to the conditions. */
  next(event: AgentStreamEvent): void {
    if (!this.closed) this.input.next(event);
  }

  /** Unsubscribes the conditions. */
  close(): void {
    this.closed = true;
    this.subscription.unsubscribe();
  }
}
