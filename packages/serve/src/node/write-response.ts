import type { ServerResponse } from "node:http";

/**
 * Writes a web `Response` (e.g. from `toUIMessageStreamResponse`) to a Node `http` response, with
 * backpressure: the body is read only as fast as the socket takes it (a full socket pauses the
 * reading until `'drain'`), and a client that goes away cancels the body (which unsubscribes from
 * the run). Resolves once the response ended.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { toUIMessageStreamResponse, writeResponse } from "@agentrx/serve";
 * import type { AgentExecutor } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * createServer((req, res) => {
 *   void writeResponse(toUIMessageStreamResponse(executor.stream({ input: "Hi" })), res);
 * });
 * ```
 */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  res.writeHead(response.status, response.statusText, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  let closed = false;
  let wake: (() => void) | undefined;
  const onClose = () => {
    closed = true;
    wake?.();
    void reader.cancel().catch(() => undefined);
  };
  res.on("close", onClose);
  try {
    while (!closed) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          res.once("drain", resolve);
        });
        wake = undefined;
      }
    }
  } catch {
    // The body failed: end what was sent (the client sees a cut stream).
  } finally {
    res.off("close", onClose);
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}
