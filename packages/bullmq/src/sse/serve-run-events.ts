import type { IncomingMessage, ServerResponse } from "node:http";
import { RunNotFoundError } from "@agentrx/executors";
import type { Subscription } from "rxjs";
import { RunStoppedError } from "../errors/run-stopped-error";
import { type RunClient, followerOf } from "../client/run-client";
import type { FollowItem } from "../client/follow-run";
import { fail } from "../internal/validate";

/** Options of {@link serveRunEvents}. */
export interface ServeRunEventsOptions {
  /** A comment line is sent this often (ms) so proxies keep an idle stream open. @default 15000 */
  heartbeatMs?: number;
}

/**
 * Serves a run's events as Server-Sent Events on a Node `http` response: each recorded event as
 * `id: <seq>`, `event: <type>`, `data: <the event as JSON>`; live tokens as `event: token` without
 * an id. A browser's `EventSource` that reconnects sends `Last-Event-ID` and gets exactly the events
 * after it. The stream ends after the `output` event, or with `event: end` (`data: { runId,
 * status, reason }`) when the run failed or was cancelled: close the `EventSource` on either, or it
 * reconnects (and then gets `204 No Content`, which stops it). An unknown run gets `404`.
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
  const follow = followerOf(client);
  const { heartbeatMs = 15_000 } = options;
  if (!(typeof heartbeatMs === "number" && heartbeatMs > 0)) fail("serveRunEvents", "heartbeatMs", heartbeatMs, "a number of milliseconds > 0");
  const header = req.headers["last-event-id"];
  const lastEventId = Array.isArray(header) ? header[0] : header;
  const after = lastEventId === undefined || lastEventId.trim() === "" ? 0 : Number(lastEventId);
  if (!Number.isInteger(after) || after < 0) {
    res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" }).end(`Last-Event-ID must be the seq of an event (an integer >= 0), got ${JSON.stringify(lastEventId)}.\n`);
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    let started = false;
    let ended = false;
    let subscription: Subscription | undefined;
    let heartbeat: ReturnType<typeof setInterval> | undefined;
    const write = (text: string) => {
      if (!res.destroyed && !res.writableEnded) res.write(text);
    };
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(200, {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-transform",
        Connection: "keep-alive",
        "X-Accel-Buffering": "no",
      });
      res.flushHeaders();
      heartbeat = setInterval(() => write(": keep-alive\n\n"), heartbeatMs);
    };
    const end = (status?: number, text?: string) => {
      if (ended) return;
      ended = true;
      if (heartbeat !== undefined) clearInterval(heartbeat);
      subscription?.unsubscribe();
      if (!started && status !== undefined) res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" });
      if (!res.destroyed && !res.writableEnded) res.end(text);
      resolve();
    };
    subscription = follow(runId, after).subscribe({
      next: (item) => {
        start();
        write(frame(item));
      },
      complete: () => end(started ? undefined : 204),
      error: (error: unknown) => {
        if (RunNotFoundError.isInstance(error) && !started) return end(404, `${error.message}\n`);
        if (RunStoppedError.isInstance(error) && !started && after > 0) return end(204); // nothing new since the client's last event
        start();
        const stopped = RunStoppedError.isInstance(error);
        const data = { runId, status: stopped ? error.status : "error", reason: stopped ? error.reason : (error as Error)?.message ?? String(error) };
        write(`event: end\ndata: ${JSON.stringify(data)}\n\n`);
        end();
      },
    });
    if (ended) subscription.unsubscribe();
    // The client went away (or the response ended): stop following the run.
    res.on("close", () => end());
  });
}

/** One SSE frame: an event (with its seq as id when it has one), or a bare id past an entry not shown. */
function frame(item: FollowItem): string {
  if ("skipped" in item) return `id: ${item.skipped}\n\n`;
  const { event } = item;
  const id = event.seq === undefined ? "" : `id: ${event.seq}\n`;
  return `${id}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
