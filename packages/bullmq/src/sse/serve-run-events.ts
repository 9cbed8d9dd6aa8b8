import type { IncomingMessage, ServerResponse } from "node:http";
import { InvalidArgumentError, MAX_TIMER_DELAY_MS, checkOptionKeys } from "@agentrx/core";
import { RunNotFoundError, RunStoreError } from "@agentrx/executors";
import { SseWriter, type SseMessage } from "@agentrx/runs";
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
   * `event: dropped` frame (its `lastEventId` is the seq of the last event it was given), and its
   * `EventSource` reconnects with `Last-Event-ID`. An event larger than it still goes to a client
   * that reads, once the socket has taken what came before it. @default 1048576
   */
  maxBufferedBytes?: number;
}

/** The options {@link serveRunEvents} takes, checked against the interface by `satisfies`. */
const SERVE_RUN_EVENTS_OPTION_KEYS = Object.keys({ heartbeatMs: true, maxBufferedBytes: true } satisfies Record<keyof ServeRunEventsOptions, true>);

/** The options with their defaults, and how to follow the client's runs. @throws InvalidArgumentError naming the argument at fault */
function checkServeArguments(client: RunClient, options: ServeRunEventsOptions) {
  checkObject("serveRunEvents", "options", options);
  checkOptionKeys("serveRunEvents", options, SERVE_RUN_EVENTS_OPTION_KEYS, "options.");
  const { heartbeatMs = 15_000, maxBufferedBytes = 1_048_576 } = options;
  if (!(typeof heartbeatMs === "number" && heartbeatMs > 0 && heartbeatMs <= MAX_TIMER_DELAY_MS)) fail("serveRunEvents", "heartbeatMs", heartbeatMs, `a number of milliseconds > 0 and at most ${MAX_TIMER_DELAY_MS} (the longest a timer waits)`);
  if (!(typeof maxBufferedBytes === "number" && maxBufferedBytes > 0)) fail("serveRunEvents", "maxBufferedBytes", maxBufferedBytes, "a number of bytes > 0");
  return { follow: followerOf(client), heartbeatMs, maxBufferedBytes };
}

/**
 * Serves a run's events as Server-Sent Events on a Node `http` response: each recorded event as
 * `id: <seq>`, `event: <type>`, `data: <the event as JSON>`; live tokens as `event: token` without
 * an id. A browser's `EventSource` that reconnects sends `Last-Event-ID` and gets exactly the events
 * after it. The stream ends after the `output` event, or with `event: end` (`data: { runId,
 * status, reason }`) when the run failed or was cancelled (`status: "error"` when its record cannot
 * be read): close the `EventSource` on either. The `end` frame has an id of its own, `<seq>-end`
 * (the seq of the last event before it): a client that reconnects with it, and nothing happened
 * since, gets `204 No Content`, which stops an `EventSource`; a client that lost its connection
 * before the run stopped gets the `end` it missed. Any other error (the client is closed, the store
 * or Redis is unreachable) is not how the run ended: the stream ends without `end`, and an
 * `EventSource` reconnects with `Last-Event-ID` (to another API process, during a deploy). An
 * unknown run gets `404`; a run id no store takes (empty, too long) and a `Last-Event-ID` that is
 * neither a seq nor an `end` id get `400`. A run that is queued or running gets its headers (and
 * the heartbeat starts) once its record is read, before its next event.
 * Replaying the record waits while the client's socket is full or an event waits for room under
 * `maxBufferedBytes` (one larger than it goes once the socket has taken everything before it), so
 * a slow reader of a long record is not dropped; live events are not held back for it (past
 * `maxBufferedBytes` beside the one event that waits, it is dropped, see `SseWriter`).
 *
 * Resolves once the response has ended (the run's output was sent, or the client went away).
 * Rejects with an `InvalidArgumentError` naming the option (it never throws) when `options` or
 * `client` cannot work, before anything is written to the response.
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
  let checked: ReturnType<typeof checkServeArguments>;
  try {
    checked = checkServeArguments(client, options);
  } catch (error) {
    // It returns a promise: a caller's `.catch` (or `await`) gets a bad argument too.
    return Promise.reject(error);
  }
  const { follow, heartbeatMs, maxBufferedBytes } = checked;
  const lastEventId = parseRunLastEventId(req);
  if (lastEventId === null) {
    const header = req.headers["last-event-id"];
    res
      .writeHead(400, { "Content-Type": "text/plain; charset=utf-8" })
      .end(`Last-Event-ID must be the seq of an event (a decimal integer >= 0) or the id of an end frame (<seq>-end), got ${JSON.stringify(header)}.\n`);
    return Promise.resolve();
  }
  const { after, endSent } = lastEventId;
  const sse = new SseWriter(res, { heartbeatMs, maxBufferedBytes });
  return new Promise<void>((resolve) => {
    let ended = false;
    let subscription: Subscription | undefined;
    let full = false;
    let lastId = after; // the seq of the last event this client has
    // The record's replay waits while the socket is full or an event waits for room (live events rely on the bound instead).
    const pace = () => (full ? sse.ready().then(() => (full = false)) : undefined);
    const end = (status?: number, text?: string) => {
      if (ended) return;
      ended = true;
      subscription?.unsubscribe();
      if (!res.headersSent && status !== undefined) res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" }).end(text);
      else sse.end();
      resolve();
    };
    // A run that goes on gets its headers and heartbeat at once: one waiting in the queue, or in
    // a long tool call, sends no event for a while, and a proxy would time the request out.
    const live = () => {
      if (!ended) sse.open();
    };
    subscription = follow(runId, after, pace, live).subscribe({
      next: (item) => {
        const sent = message(item);
        if (typeof sent.id === "number") lastId = sent.id;
        full = !sse.send(sent);
        // A client that does not read was dropped (its EventSource reconnects with Last-Event-ID): stop following.
        if (sse.closed) end();
      },
      complete: () => end(res.headersSent ? undefined : 204),
      error: (error: unknown) => {
        if (RunNotFoundError.isInstance(error) && !res.headersSent) return end(404, `${error.message}\n`);
        // A run id no store takes (empty, a NUL, too long): no reconnection would help.
        if (InvalidArgumentError.isInstance(error) && !res.headersSent) return end(400, `${error.message}\n`);
        const stop = howItStopped(error);
        if (stop === undefined) {
          // Not how the run ended: this process cannot follow it now (its client was closed, the
          // store or Redis failed). A stream that ends makes an EventSource reconnect; a status
          // other than 200 (a 503) would make it give up.
          sse.comment("this server cannot follow the run now: reconnect with Last-Event-ID");
          return end();
        }
        // This client was sent how the run ended, and nothing was recorded since.
        if (endSent && !res.headersSent) return end(204);
        sse.send({ id: `${lastId}${END_ID_SUFFIX}`, event: "end", data: JSON.stringify({ runId, ...stop }) });
        end();
      },
    });
    if (ended) subscription.unsubscribe();
    // The client went away (or the response ended): stop following the run.
    sse.onClose(() => end());
  });
}

/** What the `id` of an `end` frame adds to the seq of the last event before it. */
const END_ID_SUFFIX = "-end";

/**
 * The request's `Last-Event-ID`: the seq of the last event the client has, and whether it was sent
 * the run's `end` frame (`<seq>-end`); `null` when it is neither (digits only, at most 15 of them,
 * as `parseLastEventId` of `@agentrx/runs` reads a seq).
 */
function parseRunLastEventId(req: IncomingMessage): { after: number; endSent: boolean } | null {
  const header = req.headers["last-event-id"];
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === "") return { after: 0, endSent: false };
  const match = /^(\d{1,15})(-end)?$/.exec(value);
  return match?.[1] === undefined ? null : { after: Number(match[1]), endSent: match[2] !== undefined };
}

/**
 * How the run ended, when `error` says so (what an `end` frame carries): it failed or was
 * cancelled, or its record cannot be read (by any process: reconnecting would not help).
 * `undefined` for an error of this process (a closed client, a store or Redis that failed).
 */
function howItStopped(error: unknown): { status: string; reason?: string } | undefined {
  if (RunStoppedError.isInstance(error)) return { status: error.status, ...(error.reason === undefined ? {} : { reason: error.reason }) };
  if (RunStoreError.isInstance(error) && error.reason === "corrupt") return { status: "error", reason: error.message };
  return undefined;
}

/** One SSE message: an event (with its seq as id when it has one), or a bare id past an entry not shown. */
function message(item: FollowItem): SseMessage {
  if ("skipped" in item) return { id: item.skipped };
  const { event } = item;
  return { ...(event.seq === undefined ? {} : { id: event.seq }), event: event.type, data: JSON.stringify(event) };
}
