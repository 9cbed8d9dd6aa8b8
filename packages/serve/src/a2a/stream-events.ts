// How the A2A handler answers a JSON-RPC request whose result is a stream (see createA2AHandler and
// docs/serving-a2a.md). @internal
import type { ServerResponse } from "node:http";
import { SseWriter } from "@agentrx/runs";
import { INBOX_FULL_CODE, INBOX_FULL_RETRY_AFTER_SECONDS } from "./task-run-requests";

/** How a stream is written: `SseWriter`'s bounds, and where an error no client can be told of goes. */
export interface StreamOptions {
  maxBufferedBytes: number;
  heartbeatMs: number;
  /** Hears of an error no client can be told of. */
  report: (error: unknown) => void;
}

/**
 * A streaming result as Server-Sent Events (`data: <JSON-RPC response>`), written through
 * `SseWriter` (see docs/serving.md): the events keep being taken (the task is updated whether or not
 * the client reads), and a client that holds more than `maxBufferedBytes` unread is dropped with a
 * JSON-RPC error. The SDK saves a sent message's task only while its stream is taken (its
 * `sendMessageStream` is the one reader of the task's events), so when the client of a `sending`
 * stream goes away the events are still taken, unsent, until the run ends or pauses, and `GetTask`
 * shows the task's final state; any other stream (a resubscription) stops when its client goes.
 *
 * The stream opens with its first event: a request the SDK refuses before that (an unknown task,
 * a task in a terminal state) is answered with a plain JSON-RPC error (`application/json`), as the
 * SDK's own Express handler answers it, so the SDK's client throws that error (`TaskNotFoundError`,
 * ...) rather than a stream error wrapping it; with `streamErrors`, as the stream's one event.
 */
export async function streamEvents(
  response: ServerResponse,
  events: AsyncGenerator<unknown>,
  id: string | number | null,
  toError: (error: unknown) => unknown,
  options: StreamOptions & { sending: boolean; streamErrors: boolean },
): Promise<void> {
  const { sending, streamErrors, report, ...bounds } = options;
  let first: IteratorResult<unknown> | undefined;
  if (!streamErrors) {
    try {
      first = await events.next();
    } catch (error) {
      if (response.destroyed) report(error);
      else sendJson(response, toError(error));
      return;
    }
  }
  const sse = new SseWriter(response, {
    ...bounds,
    droppedMessage: ({ reason }) => ({ event: "error", data: JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: `Stream dropped: ${reason}.` } }) }),
  });
  sse.open();
  if (!sending) sse.onClose(() => void events.return(undefined));
  try {
    if (first !== undefined && !first.done) sse.send({ data: JSON.stringify(first.value) });
    for await (const event of events) {
      if (sse.closed) {
        if (sending) continue; // taken for the task store alone
        break;
      }
      sse.send({ data: JSON.stringify(event) });
    }
  } catch (error) {
    if (sse.closed) report(error);
    else sse.send({ event: "error", data: JSON.stringify(toError(error)) });
  } finally {
    sse.end();
  }
}

/**
 * A JSON-RPC response (a result or an error) as one JSON answer, status `200` as JSON-RPC has it;
 * but `429` with `Retry-After` for a message refused because its run's inbox is full, so any HTTP
 * client knows to retry later (the SDK's clients read the JSON-RPC error whatever the status).
 */
export function sendJson(response: ServerResponse, value: unknown): void {
  const code = (value as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (code === INBOX_FULL_CODE) {
    response.writeHead(429, { "content-type": "application/json", "retry-after": String(INBOX_FULL_RETRY_AFTER_SECONDS) }).end(JSON.stringify(value));
    return;
  }
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
}
