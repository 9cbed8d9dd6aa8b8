// The HTTP plumbing the provider loopback servers share (not exported from the package): listen
// on 127.0.0.1, record each request with its parsed JSON body, write JSON or server-sent events
// with an optional delay between events, and close without leaving a socket or timer behind.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { LoopbackRequest } from "../openai-compatible-server/server-reply";

/** How a provider server answers one recorded request. */
export type LoopbackHandler = (request: LoopbackRequest, reply: LoopbackResponder, parseError: string | undefined) => Promise<void>;

/** What a handler writes with. */
export interface LoopbackResponder {
  /** Sends one JSON body with this status (and headers). */
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  /** Sends server-sent events (`event:` lines when a name is given), `delayMs` apart; false if the client left. */
  events(events: { event?: string; data: unknown }[], delayMs: number): Promise<boolean>;
  /** Waits `ms` (a timer that `close()` clears); false if the client left meanwhile. */
  wait(ms: number): Promise<boolean>;
  /** The response itself, for replies the helpers above do not write (faults on cue). */
  readonly raw: ServerResponse;
}

/** A started loopback HTTP server. */
export interface LoopbackHttpServer {
  readonly url: string;
  readonly requests: LoopbackRequest[];
  close(): Promise<void>;
}

/** Starts a loopback HTTP server on 127.0.0.1 (an ephemeral port) that hands each request to `handle`. */
export async function startLoopbackHttpServer(handle: LoopbackHandler): Promise<LoopbackHttpServer> {
  const requests: LoopbackRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const wait = (ms: number, res: ServerResponse) =>
    new Promise<boolean>((resolve) => {
      if (ms <= 0) return resolve(!res.destroyed);
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.off("close", onClose);
        resolve(!res.destroyed);
      }, ms);
      const onClose = () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      };
      timers.add(timer);
      res.once("close", onClose);
    });

  const responder = (res: ServerResponse): LoopbackResponder => ({
    raw: res,
    wait: (ms) => wait(ms, res),
    json(status, body, headers = {}) {
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    },
    async events(events, delayMs) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      res.flushHeaders();
      for (const [sent, { event, data }] of events.entries()) {
        if (sent > 0 && !(await wait(delayMs, res))) return false;
        if (res.destroyed) return false;
        res.write(`${event !== undefined ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
      }
      res.end();
      return true;
    },
  });

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    let body: unknown;
    let parseError: string | undefined;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch (error) {
      parseError = (error as Error).message;
    }
    let finish!: () => void;
    const request: LoopbackRequest = {
      index: requests.length,
      method: req.method ?? "GET",
      path: (req.url ?? "/").split("?")[0] ?? "/",
      headers: { ...req.headers },
      body,
      clientDisconnected: false,
      done: new Promise<void>((resolve) => (finish = resolve)),
    };
    requests.push(request);
    res.once("close", () => {
      if (!res.writableFinished) request.clientDisconnected = true;
      finish();
    });
    await handle(request, responder(res), parseError);
  };

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { "content-type": "application/json", "x-should-retry": "false" });
      res.end(JSON.stringify({ error: { message: `Loopback server reply failed: ${String(error)}`, type: "server_error", param: null, code: null } }));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * The script's reply for the request answered `position`-th: a function is called with the
 * request, a string is the text of a turn; `undefined` once the script has run out.
 */
export function scriptedReply<Turn extends { text?: string }, HttpError extends { status: number }>(
  responses: readonly (string | Turn | HttpError | ((request: LoopbackRequest) => string | Turn | HttpError))[],
  position: number,
  request: LoopbackRequest,
): Turn | HttpError | undefined {
  let scripted = responses[position];
  if (typeof scripted === "function") scripted = scripted(request);
  return typeof scripted === "string" ? ({ text: scripted } as Turn) : scripted;
}
