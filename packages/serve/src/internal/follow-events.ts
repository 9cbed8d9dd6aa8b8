// Subscribes a protocol mapper to a run's events: a value that is not a run event (what an
// `executor.invoke(...)` observable emits: the run's result) errors the output with an
// `InvalidArgumentError` naming the public function (`caller`) instead of being left out; the
// mapper's `next` may throw (a bug, or an event it cannot map), which errors the output instead of
// escaping the subscribe callback; the mapper's `error` and `complete` write the protocol's
// ending. Returns the teardown. @internal
import { type AgentStreamEvent, checkRunEvent } from "@agentrx/executors";
import type { Observable, Subscriber, TeardownLogic } from "rxjs";

export interface EventHandlers {
  next(event: AgentStreamEvent): void;
  error(error: unknown): void;
  complete(): void;
}

/** Where the events were given: the public function and its parameter, which an error names. */
export interface EventsSource {
  caller: string;
  argument: string;
}

export function followEvents<T>(events$: Observable<AgentStreamEvent>, subscriber: Subscriber<T>, source: EventsSource, handlers: EventHandlers): TeardownLogic {
  const subscription = events$.subscribe({
    next: (event: unknown) => {
      try {
        checkRunEvent(source.caller, source.argument, event);
        handlers.next(event);
      } catch (error) {
        subscriber.error(error);
      }
    },
    error: (error: unknown) => {
      handlers.error(error);
      subscriber.complete();
    },
    complete: () => {
      handlers.complete();
      subscriber.complete();
    },
  });
  return () => subscription.unsubscribe();
}
