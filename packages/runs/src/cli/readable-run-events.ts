import { RECORD_ONLY_EVENT_TYPES, RunEventDecoder, type AgentStreamEvent, type RunStore } from "@agentrx/executors";
import { isUnreadableRunEvent, readReadableEvents } from "@agentrx/viewer/trace-page";
import { Observable } from "rxjs";

/** An event of a run that `agentrx show` could not read, and why. */
export interface UnreadableEvent {
  seq: number;
  error: string;
}

/**
 * A run's events as its `stream()` emitted them, decoded from its record for `agentrx show`, like
 * `replayRun` (record-only entries are decoded, not emitted) but tolerant of a damaged record:
 * each event that cannot be read or decoded (including a later one that depends on it, such as
 * the step of an unreadable action) is passed to `onUnreadable`, between the events around it,
 * and decoding goes on with the next. Fails only when the store fails or the run is unknown.
 *
 * @internal
 */
export function readableRunEvents(store: RunStore, runId: string, onUnreadable: (event: UnreadableEvent) => void): Observable<AgentStreamEvent> {
  return new Observable<AgentStreamEvent>((subscriber) => {
    let closed = false;
    const play = async (): Promise<void> => {
      const decoder = new RunEventDecoder(runId);
      for await (const page of readReadableEvents(store, runId, "agentrx show")) {
        for (const entry of page) {
          if (closed) return;
          if (isUnreadableRunEvent(entry)) {
            onUnreadable({ seq: entry.seq, error: entry.error });
            continue;
          }
          let event: ReturnType<RunEventDecoder["decode"]>;
          try {
            event = decoder.decode(entry);
          } catch (error) {
            onUnreadable({ seq: entry.seq, error: `it cannot be decoded (${error instanceof Error ? error.message : String(error)})` });
            continue;
          }
          if (!RECORD_ONLY_EVENT_TYPES.has(event.type)) subscriber.next(event as AgentStreamEvent);
        }
      }
      if (!closed) subscriber.complete();
    };
    play().catch((error: unknown) => subscriber.error(error));
    return () => {
      closed = true;
    };
  });
}
