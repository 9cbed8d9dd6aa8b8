import type { IncomingMessage, ServerResponse } from "node:http";
import type { RunStore } from "@agentrx/executors";
import { TraceFollower } from "@agentrx/executors/trace-page";

/** Options of {@link serveTraceEvents}. */
export interface ServeTraceEventsOptions {
  /** The last `seq` the page has (`Last-Event-ID`, when the browser reconnects, wins). */
  after: number;
  /** How often the store is asked for new events, in milliseconds. */
  pollMs: number;
  /** Called with a failure of the store while following (the stream then ends). */
  onError?: (error: unknown) => void;
}

/** A comment line keeps idle connections (and proxies) open. */
const HEARTBEAT_MS = 15_000;

/**
 * Follows a run's record as Server-Sent Events, polling the store for the events after the last
 * `seq` sent: an `update` event (id: the last `seq`; data: `{ run, events }` in the trace page's
 * form) whenever the run's row or its events change, and an `end` event once the run no longer
 * runs and every event was sent. Stops polling when the client goes away.
 *
 * @internal
 */
export async function serveTraceEvents(store: RunStore, runId: string, req: IncomingMessage, res: ServerResponse, options: ServeTraceEventsOptions): Promise<void> {
  const lastEventId = Number(req.headers["last-event-id"]);
  const after = Number.isSafeInteger(lastEventId) && lastEventId >= 0 ? lastEventId : options.after;
  const follower = new TraceFollower(store, runId, after);
  let closed = false;
  let wake: (() => void) | undefined;
  req.on("close", () => {
    closed = true;
    wake?.();
  });
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no" });
  res.write("retry: 1000\n\n");
  let lastRow = "";
  let lastWrite = Date.now();
  let lastSeq = after;
  while (!closed) {
    let update: Awaited<ReturnType<TraceFollower["poll"]>>;
    try {
      update = await follower.poll();
    } catch (error) {
      options.onError?.(error);
      res.write(`event: failure\ndata: ${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n\n`);
      break;
    }
    if (closed) break;
    const row = JSON.stringify(update.run);
    if (update.events.length > 0 || row !== lastRow) {
      lastRow = row;
      lastSeq = update.events[update.events.length - 1]?.seq ?? lastSeq;
      res.write(`id: ${lastSeq}\nevent: update\ndata: ${JSON.stringify({ run: update.run, events: update.events })}\n\n`);
      lastWrite = Date.now();
    } else if (Date.now() - lastWrite > HEARTBEAT_MS) {
      res.write(": still following\n\n");
      lastWrite = Date.now();
    }
    if (update.done) {
      res.write("event: end\ndata: {}\n\n");
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
  res.end();
}
