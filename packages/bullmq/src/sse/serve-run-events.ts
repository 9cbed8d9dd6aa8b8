import type { IncomingMessage, ServerResponse } from "node:http";
import { checkOptionKeys } from "@agentrx/core";
import { RunNotFoundError } from "@agentrx/executors";
import { SseWriter, parseLastEventId, type SseMessage } from "@agentrx/runs";
import type { Subscription } from "rxjs";
import { RunStoppedError } from "../errors/run-stopped-error";
import { type RunClient, followerOf } from "../client/run-client";
import type { FollowItem } from "../client/follow-run";
import { checkObject, fail } from "../internal/validate";

/** Options of {@link serveRunEvents}. */
export interface ServeRunEventsOptions {
  /** A comment line is sent this often (ms) so proxies keep an idle stream open. @default 15000 */
  heartbeatMs?: number;
  /**
   * The most bytes held for a client that does not read; past it the client is dropped with an
   * `event: dropped` frame, and its `EventSource` reconnects with `Last-Event-ID`. @default 1048576
   */
  maxBufferedBytes?: number;
}

/** The options {@link serveRunEvents} takes, checked against the interface by `satisfies`. */
const SERVE_RUN_EVENTS_OPTION_KEYS = Object.keys({ heartbeatMs: true, maxBufferedBytes: true } satisfies Record<keyof ServeRunEventsOptions, true>);

/**
 * Serves a run's events as Server-Sent Events on a Node `http` response: each recorded event as
 * `id: <seq>`, `event: <type>`, `data: <the event as JSON>`; live tokens as `event: token` without
 * an id. A browser's `EventSource` that reconnects sends `Last-Event-ID` and gets exactly the events
 * after it. The stream ends after the `output` event, or with `event: end` (`data: { runId,
 * status, reason }`) when the run failed or was cancelled: close the `EventSource` on either, or it
 * reconnects (and then gets `204 No Content`, which stops it). An unknown run gets `404`. Replaying
 * the record waits while the client's socket is full, so a slow reader of a long record is not
 * dropped; live events are not held back for it (past `maxBufferedBytes` it is dropped).
 *
 * Resolves once the response has ended (the run's output was sent, or the client went away).
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { RunClient, serveRunEvents } from "@agentrx/bullmq";
 * declare const client: RunClient;
 *
 * const server = createServer((req, res) => {
 *   const match = /^\/runs\/([^/]+)\/events$/.exec(req.url ?? "");
 *   if (match?.[1]) void serveRunEvents(client, decodeURIComponent(match[1]), req, res);
 *   else res.writeHead(404).end();
 * });
 * ```
 */
export function serveRunEvents(client: RunClient, runId: string, req: IncomingMessage, res: ServerResponse, options: ServeRunEventsOptions = {}): Promise<void> {
  checkObject("serveRunEvents", "options", options);
  checkOptionKeys("serveRunEvents", options, SERVE_RUN_EVENTS_OPTION_KEYS, "options.");
  const follow = followerOf(client);
  const { heartbeatMs = 15_000, maxBufferedBytes = 1_048_576 } = options;
  if (!(typeof heartbeatMs === "number" && heartbeatMs > 0)) fail("serveRunEvents", "heartbeatMs", heartbeatMs, "a number of milliseconds > 0");
  if (!(typeof maxBufferedBytes === "number" && maxBufferedBytes > 0)) fail("serveRunEvents", "maxBufferedBytes", maxBufferedBytes, "a number of bytes > 0");
  const after = parseLastEventId(req);
  if (after === null) {
    const header = req.headers["last-event-id"];
    res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" }).end(`Last-Event-ID must be the seq of an event (a decimal integer >= 0), got ${JSON.stringify(header)}.\n`);
    return Promise.resolve();
  }
  const sse = new SseWriter(res, { heartbeatMs, maxBufferedBytes });
  return new Promise<void>((resolve) => {
    let ended = false;
    let subscription: Subscription | undefined;
    let full = false;
    // The record's replay waits while the socket is full (live events rely on the bound instead).
    const pace = () => (full ? sse.ready().then(() => (full = false)) : undefined);
    const end = (status?: number, text?: string) => {
      if (ended) return;
      ended = true;
      subscription?.unsubscribe();
      if (!res.headersSent && status !== undefined) res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" }).end(text);
      else sse.end();
      resolve();
    };
    subscription = follow(runId, after ?? 0, pace).subscribe({
      next: (item) => {
        full = !sse.send(message(item));
        // A client that does not read was dropped (its EventSource reconnects with Last-Event-ID): stop following.
        if (sse.closed) end();
      },
      complete: () => end(res.headersSent ? undefined : 204),
      error: (error: unknown) => {
        if (RunNotFoundError.isInstance(error) && !res.headersSent) return end(404, `${error.message}\n`);
        if (RunStoppedError.isInstance(error) && !res.headersSent && (after ?? 0) > 0) return end(204); // nothing new since the client's last event
        const stopped = RunStoppedError.isInstance(error);
        const data = { runId, status: stopped ? error.status : "error", reason: stopped ? error.reason : (error as Error)?.message ?? String(error) };
        sse.send({ event: "end", data: JSON.stringify(data) });
        end();
      },
    });
    if (ended) subscription.unsubscribe();
    // The client went away (or the response ended): stop following the run.
    sse.onClose(() => end());
  });
}

/** One SSE message: an event (with its seq as id when it has one), or a bare id past an entry not shown. */
function message(item: FollowItem): SseMessage {
  if ("skipped" in item) return { id: item.skipped };
  const { event } = item;
  return { ...(event.seq === undefined ? {} : { id: event.seq }), event: event.type, data: JSON.stringify(event) };
}
