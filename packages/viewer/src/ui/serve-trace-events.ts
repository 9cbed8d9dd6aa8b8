import type { IncomingMessage, ServerResponse } from "node:http";
import type { RunStore } from "@agentrx/executors";
import { TraceFollower, type TraceUpdate } from "../trace-page/index";
import { SseWriter } from "@agentrx/runs";

/** Options of {@link serveTraceEvents}. */
export interface ServeTraceEventsOptions {
  /** The last `seq` the page has (the caller lets a valid `Last-Event-ID` win). */
  after: number;
  /** How often the store is asked for new events, in milliseconds. */
  pollMs: number;
  /** The most bytes held for a client that does not read (then it is dropped). @default 1048576 */
  maxBufferedBytes?: number;
  /** Called with a failure of the store while following (the stream then ends). */
  onError?: (error: unknown) => void;
}

/** A comment line keeps idle connections (and proxies) open. */
const HEARTBEAT_MS = 15_000;

/**
 * Follows a run's record as Server-Sent Events, polling the store for the events after the last
 * `seq` sent: an `update` event (id: the last `seq`; data: `{ run, events, requestParts? }` in the
 * trace page's form, with only the request parts the page does not have yet) whenever the run's row or its events change, and an `end` event once the run no longer
 * runs and every event was sent. Stops polling when the client goes away.
 *
 * @internal
 */
export async function serveTraceEvents(store: RunStore, runId: string, req: IncomingMessage, res: ServerResponse, options: ServeTraceEventsOptions): Promise<void> {
  const follower = new TraceFollower(store, runId, options.after);
  const sse = new SseWriter(res, { heartbeatMs: HEARTBEAT_MS, retryMs: 1000, ...(options.maxBufferedBytes === undefined ? {} : { maxBufferedBytes: options.maxBufferedBytes }) });
  let wake: (() => void) | undefined;
  sse.onClose(() => wake?.());
  req.on("close", () => wake?.());
  sse.open();
  let lastRow = "";
  let lastSeq = options.after;
  while (!sse.closed) {
    let update: Awaited<ReturnType<TraceFollower["poll"]>>;
    try {
      update = await follower.poll();
    } catch (error) {
      options.onError?.(error);
      sse.send({ event: "failure", data: JSON.stringify({ error: error instanceof Error ? error.message : String(error) }) });
      break;
    }
    if (sse.closed) break;
    const row = JSON.stringify(update.run);
    if (update.events.length > 0 || row !== lastRow) {
      lastRow = row;
      lastSeq = update.events[update.events.length - 1]?.seq ?? lastSeq;
      // A full socket pauses the polling until the client has read what was sent.
      if (!sse.send({ id: lastSeq, event: "update", data: JSON.stringify(updateData(update)) }) && !(await sse.ready())) break;
    }
    if (update.done) {
      sse.send({ event: "end", data: "{}" });
      break;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.pollMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  sse.end();
}

/** What an `update` event carries: the update without `done`. */
function updateData({ run, events, requestParts }: TraceUpdate): TraceUpdate {
  return requestParts === undefined ? { run, events } : { run, events, requestParts };
}
