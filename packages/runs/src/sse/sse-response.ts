// What the Server-Sent Events helpers use of a Node-style `http` request and response, declared
// here rather than imported from `node:http`, so the package's types need no `@types/node`: a
// browser project that imports `@agentrx/runs` type-checks without them (see docs/browsers.md).

/**
 * The part of a Node `http.ServerResponse` that `SseWriter` uses. A `ServerResponse` of
 * `node:http` fits it (so do those of Deno's and Bun's `node:http`); it is declared here so that
 * the package's types do not need `@types/node`.
 *
 * @example
 * ```ts
 * import type { SseResponse } from "@agentrx/runs";
 * import type { ServerResponse } from "node:http";
 * declare const res: ServerResponse;
 *
 * const response: SseResponse = res;
 * console.log(response.headersSent);
 * ```
 */
export interface SseResponse {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  readonly writableLength: number;
  readonly writableNeedDrain: boolean;
  /** The connection, closed when a client that does not read is dropped; null once detached. */
  readonly socket: SseSocket | null;
  writeHead(statusCode: number, headers: Record<string, string>): unknown;
  flushHeaders(): void;
  write(chunk: string | Uint8Array, callback?: () => void): boolean;
  end(chunk?: string): unknown;
  destroy(): unknown;
  on(event: "drain" | "close", listener: () => void): unknown;
  once(event: "finish", listener: () => void): unknown;
}

/** The part of a response's socket (`net.Socket`) that `SseWriter` uses, to close a dropped client's connection. */
export interface SseSocket {
  end(): unknown;
  destroy(): unknown;
  once(event: "close", listener: () => void): unknown;
}

/**
 * The part of a Node `http.IncomingMessage` that `parseLastEventId` reads: its headers. An
 * `IncomingMessage` of `node:http` fits it; declared here so that the package's types do not need
 * `@types/node`.
 *
 * @example
 * ```ts
 * import { parseLastEventId, type SseRequest } from "@agentrx/runs";
 *
 * const req: SseRequest = { headers: { "last-event-id": "42" } };
 * console.log(parseLastEventId(req)); // 42
 * ```
 */
export interface SseRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}
