// Subscribes a protocol mapper to a run's events: its `next` may throw (a bug, or an event it cannot
// map), which errors the output instead of escaping the subscribe callback; the mapper's `error`
// and `complete` write the protocol's ending. Returns the teardown. @internal
import type { AgentStreamEvent } from "@agentrx/executors";
import type { Observable, Subscriber, TeardownLogic } from "rxjs";

export interface EventHandlers {
  next(event: AgentStreamEvent): void;
  error(error: unknown): void;
  complete(): void;
}

export function followEvents<T>(events$: Observable<AgentStreamEvent>, subscriber: Subscriber<T>, handlers: EventHandlers): TeardownLogic {
  const subscription = events$.subscribe({
    next: (event) => {
      try {
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
