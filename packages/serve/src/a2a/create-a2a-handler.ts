import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
// The SDK's types stay inside the module: the public types below are the package's own (a2a-types.ts),
// since `@a2a-js/sdk` is an optional peer dependency that users' compilers may not find.
import type { AgentCard } from "@a2a-js/sdk";
import type { TaskStore } from "@a2a-js/sdk/server";
import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import type { AgentExecutor } from "@agentrx/executors";
import { checkExecutor, checkFunction, checkPositiveInteger, checkTimerMs } from "../internal/check-options";
import { errorText } from "../internal/error-text";
import { isJsonContentType, readBody } from "../internal/request-body";
import type { A2AAgentCard, A2AAgentExecutor, A2AAgentInterface, A2ATaskStore } from "./a2a-types";
import { agentCardJson, agentCardOf, checkAgentCard } from "./agent-card-json";
import { ExecutorA2AAgent, type ToInputs } from "./executor-agent";
import { type StreamOptions, sendJson, streamEvents } from "./stream-events";
import { loadA2AServer } from "./load-a2a-sdk";
import { answerTaskRunRequests } from "./task-run-requests";

/**
 * The agent card to publish: at least a `name` and a `description`; every other field of an
 * {@link A2AAgentCard} is optional here and gets a default. `url` is where the JSON-RPC endpoint is
 * reached from outside. These are the fields of an A2A 1.0 card and no others (the spec's card has
 * none): data of your own goes in an extension's `params` (`capabilities.extensions`), and a field
 * the card does not have is refused when the handler is made.
 *
 * @example
 * ```ts
 * import type { A2AAgentCardInput } from "@agentrx/serve";
 *
 * const card: A2AAgentCardInput = { name: "Weather", description: "Tells the weather.", url: "https://agents.example.com/weather" };
 * ```
 */
export type A2AAgentCardInput = Partial<Omit<A2AAgentCard, "supportedInterfaces" | "capabilities">> & {
  /** The agent's name, as other agents see it (and `a2aTool` names its tool). */
  name: string;
  /** What the agent does, for other agents and people. */
  description: string;
  /**
   * The JSON-RPC endpoint's absolute URL. @default the request's own host and `path`
   * (`http://<Host header><path>`, `https://` on a TLS connection), fine behind no proxy
   */
  url?: string;
  /** The interfaces to advertise. @default JSON-RPC at `url`, protocol 1.0 (and 0.3 for older clients) */
  supportedInterfaces?: A2AAgentInterface[];
  /**
   * What the agent supports; those left out get their default.
   * @default `{ streaming: true, pushNotifications: false, extensions: [] }`
   */
  capabilities?: Partial<NonNullable<A2AAgentCard["capabilities"]>> | undefined;
};

/**
 * Options of {@link createA2AHandler}.
 *
 * @example
 * ```ts
 * import type { A2AHandlerOptions } from "@agentrx/serve";
 *
 * const options: A2AHandlerOptions = { agentCard: { name: "Weather", description: "Tells the weather." }, path: "/a2a" };
 * ```
 */
export interface A2AHandlerOptions {
  /** The agent card served at `/.well-known/agent-card.json`. */
  agentCard: A2AAgentCardInput;
  /** Where JSON-RPC requests are served (`POST`). @default "/" */
  path?: string;
  /**
   * Hears of a request that failed outside JSON-RPC, which no JSON-RPC error can answer: a body that
   * could not be read (the client went away mid-request; the response is closed and the text
   * unused), an error of the handler itself (the client gets `500` with the text returned), a
   * streamed task whose events failed after its client went away (nobody to answer), or a task
   * cancelled while its run was being resumed whose run record could not then be cancelled.
   * @default the error's message, reported nowhere
   */
  onError?: (error: unknown) => string;
  /**
   * The largest request body accepted, in bytes: a larger one gets `413` (A2A messages can carry
   * files inline, hence a larger default than the AG-UI handler's). @default 10485760
   */
  maxBodyBytes?: number;
  /** Where tasks are kept (any `TaskStore` of the SDK). @default a new `InMemoryTaskStore` */
  taskStore?: A2ATaskStore;
  /**
   * The run's inputs for a message, returned synchronously, as an object; anything else
   * (`undefined`, an array, a Promise) fails the task naming `toInputs`.
   * @default `{ input: <the message's text> }` (its text parts, data parts as JSON, URL parts); a
   *   message with no text, or with a file's bytes (a `raw` part) the text would drop, is refused:
   *   its task fails naming why
   */
  toInputs?: ToInputs;
  /**
   * The most bytes a stream holds for a client that does not read. The run is not paused for a slow
   * client; a client past this is dropped: its stream ends with a JSON-RPC error saying so (the run
   * is not cancelled by it). @default 1048576
   */
  maxBufferedBytes?: number;
  /** A comment line is sent this often (ms) on a stream so proxies keep it open. @default 15000 */
  heartbeatMs?: number;
}

/**
 * What {@link createA2AHandler} returns: a Node.js `http` request listener, plus the SDK-side
 * pieces to mount it elsewhere.
 *
 * @example
 * ```ts
 * import { AgentExecutor } from "@agentrx/executors";
 * import { type A2AHandler, createA2AHandler } from "@agentrx/serve";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const executor = new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" })), tools: [] });
 * const handler: A2AHandler = createA2AHandler(executor, { agentCard: { name: "Greeter", description: "Says hi." } });
 * console.log(handler.agentCard.name); // "Greeter"
 * ```
 */
export interface A2AHandler {
  (request: IncomingMessage, response: ServerResponse): Promise<void>;
  /**
   * The agent card as published (with `url` when one was given), as the SDK's values have it: the
   * JSON served has each security scheme keyed by its `$case`, as A2A 1.0's JSON does.
   */
  readonly agentCard: A2AAgentCard;
  /** The executor as the SDK's `AgentExecutor`, for a `DefaultRequestHandler` of your own (Express, gRPC, REST). */
  readonly agentExecutor: A2AAgentExecutor;
}

const CARD_PATH = "/.well-known/agent-card.json";

const OPTION_KEYS = Object.keys({
  agentCard: true,
  path: true,
  onError: true,
  maxBodyBytes: true,
  taskStore: true,
  toInputs: true,
  maxBufferedBytes: true,
  heartbeatMs: true,
} satisfies Record<keyof A2AHandlerOptions, true>);

/**
 * Serves an executor as an [A2A](https://a2a-protocol.org) agent over JSON-RPC and Server-Sent
 * Events, on `@a2a-js/sdk`'s `DefaultRequestHandler`: the agent card at
 * `/.well-known/agent-card.json`; `SendMessage` / `SendStreamingMessage` (and `message/send` /
 * `message/stream` from v0.3 clients) start a run whose `runId` is the task id; `GetTask` reads
 * the task; `CancelTask` cancels the run (a paused one too: it is recorded `cancelled`, so nothing
 * resumes it); a pause for approval is `input-required`, and the next message on the task
 * (`approve`, `reject <reason>`, or data `{ decisions }`) resumes the run. A message on a task whose
 * run is going on is sent to the run (`executor.send`, steering; its files as content blocks):
 * `SendMessage` is answered with the working task, `SendStreamingMessage` with the task's stream to
 * its end; one the run cannot take (it has finished, or cannot be reached from this process; a
 * message with no text and no file) gets a JSON-RPC error saying why (`UnsupportedOperationError`
 * -32004, `RequestMalformedError`); one that finds the run's inbox full gets -32029 over HTTP
 * `429` with `Retry-After` (send it again later). A message whose `taskId`, `contextId` or text
 * part's text is not a string gets `RequestMalformedError` (-32602) naming the field.
 * A streamed task is saved to its end even when its client goes away. A request the SDK refuses
 * (an unknown task: `TaskNotFoundError`, -32001; cancelling a finished task:
 * `TaskNotCancelableError`, -32002; a message to a finished task: `UnsupportedOperationError`,
 * -32004) gets that JSON-RPC error, a streaming request too: as a plain JSON-RPC response, not a
 * stream, when it is refused before its first event. A body that is not JSON
 * (a `content-type` other than `application/json`) gets `415`, and one larger than `maxBodyBytes`
 * gets `413` (see docs/serving-a2a.md). The returned promise never rejects (so
 * `createServer(handler)` is safe): a request whose body cannot be read (the client went away) is
 * closed and reported to `onError`. `@a2a-js/sdk` (an optional peer dependency) is loaded on the
 * first request. An option it does not take (a misspelt `agentcard`) throws an
 * `InvalidArgumentError` naming it, when the handler is made.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { AgentExecutor } from "@agentrx/executors";
 * import { createA2AHandler } from "@agentrx/serve";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = RunnableLambda.from((input: { input: string }) => ({ returnValues: { output: `echo: ${input.input}` }, log: "" }));
 * const executor = new AgentExecutor({ agent, tools: [] });
 * const server = createServer(createA2AHandler(executor, { agentCard: { name: "Echo", description: "Echoes." } }));
 * server.listen(0, "127.0.0.1", () => server.close());
 * ```
 */
export function createA2AHandler(executor: AgentExecutor, options: A2AHandlerOptions): A2AHandler {
  const { agentCard: input, path = "/", taskStore, toInputs, onError, maxBodyBytes = 10_485_760, maxBufferedBytes = 1_048_576, heartbeatMs = 15_000 } = (options ?? {}) as A2AHandlerOptions;
  checkExecutor("createA2AHandler", executor, ["stream", "resume"]);
  checkOptionKeys("createA2AHandler", options, OPTION_KEYS);
  if (typeof input?.name !== "string" || input.name === "" || typeof input.description !== "string") {
    throw new InvalidArgumentError({ argument: "agentCard", value: input, message: "createA2AHandler: `agentCard` needs at least a `name` and a `description` (strings)." });
  }
  checkAgentCard(input);
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new InvalidArgumentError({ argument: "path", value: path, message: `createA2AHandler: \`path\` must start with "/", got ${JSON.stringify(path)}.` });
  }
  checkFunction("createA2AHandler", "onError", onError, "(error) => string");
  checkPositiveInteger("createA2AHandler", "maxBodyBytes", maxBodyBytes);
  checkPositiveInteger("createA2AHandler", "maxBufferedBytes", maxBufferedBytes);
  checkTimerMs("createA2AHandler", "heartbeatMs", heartbeatMs);
  const card = agentCardOf(input, input.url ?? `http://localhost${path}`);
  const report = (error: unknown) => {
    try {
      onError?.(error);
    } catch {
      // The hook failed too: nothing more to tell.
    }
  };
  const agentExecutor = new ExecutorA2AAgent(executor, toInputs, report);
  let ready: Promise<Serve> | undefined;

  const handler = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    try {
      const url = new URL(request.url ?? "/", "http://localhost");
      if (url.pathname === CARD_PATH && (request.method === "GET" || request.method === "HEAD")) {
        const published = input.url !== undefined || input.supportedInterfaces ? card : agentCardOf(input, `${scheme(request)}://${request.headers.host ?? "localhost"}${path}`);
        response.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache" }).end(JSON.stringify(agentCardJson(published)));
        return;
      }
      if (url.pathname !== path) {
        response.writeHead(404, { "content-type": "text/plain" }).end("Not found");
        return;
      }
      if (request.method !== "POST") {
        response.writeHead(405, { allow: "POST", "content-type": "text/plain" }).end("A2A JSON-RPC takes POST requests.");
        return;
      }
      const type = request.headers["content-type"];
      if (!isJsonContentType(type)) {
        response.writeHead(415, { "content-type": "text/plain; charset=utf-8" }).end(`A2A JSON-RPC takes a JSON body (content-type: application/json), got content-type ${JSON.stringify(type)}.\n`);
        return;
      }
      const body = await readBody(request, response, maxBodyBytes);
      if (body === undefined) return; // answered 413
      const serve = await (ready ??= prepare(card, agentExecutor, taskStore, { maxBufferedBytes, heartbeatMs, report }));
      await serve(request, response, body);
    } catch (error) {
      failed(response, error, onError);
    }
  };
  return Object.assign(handler, { agentCard: card, agentExecutor });
}

/** `https` for a request that came over TLS (an `https` server's socket is a `TLSSocket`), else `http`. */
function scheme(request: IncomingMessage): "http" | "https" {
  return (request.socket as TLSSocket | undefined)?.encrypted === true ? "https" : "http";
}

type Serve = (request: IncomingMessage, response: ServerResponse, body: string) => Promise<void>;

/** The v0.3 name of `SubscribeToTask`. */
const LEGACY_RESUBSCRIBE = "tasks/resubscribe";

/** The JSON-RPC endpoint, once the SDK is loaded: v1.0 requests, and v0.3 ones (no or a 0.3 `A2A-Version`). */
async function prepare(card: AgentCard, agentExecutor: ExecutorA2AAgent, taskStore: A2ATaskStore | undefined, stream: StreamOptions): Promise<Serve> {
  const { server, compat, errors } = await loadA2AServer();
  // `A2ATaskStore` is the SDK's `TaskStore` with its SDK-only types (the call context, `list`'s
  // request and response) left loose, so the SDK's stores are assignable to it; the store given
  // is one of them (or written to the SDK's interface), hence the cast.
  const store = (taskStore as TaskStore | undefined) ?? new server.InMemoryTaskStore();
  const requestHandler = new server.DefaultRequestHandler(card, store, agentExecutor);
  // A message to a running task is sent to its run; a cancel cancels the task's recorded run.
  answerTaskRunRequests(requestHandler, store, agentExecutor, errors);
  const current = new server.JsonRpcTransportHandler(requestHandler);
  const legacy = new compat.LegacyJsonRpcTransportHandler(requestHandler);
  return async (request, response, text) => {
    const header = (name: string) => {
      const value = request.headers[name.toLowerCase()];
      return Array.isArray(value) ? value[0] : value;
    };
    const version = header("A2A-Version");
    const useLegacy = version === undefined || version === "0.3";
    const toError = useLegacy ? compat.LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : server.JsonRpcTransportHandler.mapToJSONRPCError;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      sendJson(response, { jsonrpc: "2.0", id: null, error: { code: -32700, message: `Parse error: ${error instanceof Error ? error.message : String(error)}` } });
      return;
    }
    // A JSON-RPC request is an object: the SDK's v0.3 handler would parse a string again (a request
    // sent as a JSON string would run), and read another value's fields as a request's.
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      sendJson(response, { jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid Request: a JSON-RPC request is an object { jsonrpc: "2.0", id, method, params }, got ${body === null ? "null" : Array.isArray(body) ? "an array" : typeof body}.` } });
      return;
    }
    const id = (body?.["id"] as string | number | undefined) ?? null;
    try {
      const context = server.defaultServerCallContextBuilder({ extensions: undefined, user: new server.UnauthenticatedUser(), headers: request.headers, ...(version ? { requestedVersion: version } : {}) });
      server.validateVersion(context.requestedVersion, card, "JSONRPC");
      const result = await (useLegacy ? legacy : current).handle(body, context);
      if (typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] !== "function") {
        sendJson(response, result);
        return;
      }
      const sending = body["method"] === "SendStreamingMessage" || body["method"] === "message/stream";
      // A v0.3 `tasks/resubscribe` is answered as a stream even when it fails at once, as the
      // SDK's own Express handler answers it.
      const streamErrors = useLegacy && body["method"] === LEGACY_RESUBSCRIBE;
      await streamEvents(response, result as AsyncGenerator<unknown>, id, (error) => ({ jsonrpc: "2.0", id, error: toError(error) }), { ...stream, sending, streamErrors });
    } catch (error) {
      sendJson(response, { jsonrpc: "2.0", id, error: toError(error) });
    }
  };
}

/**
 * A request that failed outside JSON-RPC (its body could not be read, or the handler itself threw):
 * `onError` hears of it, and the response ends (`500` with the hook's text, else the error's, when
 * nothing was sent yet and the client is still there).
 */
function failed(response: ServerResponse, error: unknown, onError: ((error: unknown) => string) | undefined): void {
  let text: string | undefined;
  try {
    text = onError?.(error);
  } catch {
    // The hook failed too: the response still ends.
  }
  if (response.destroyed || response.writableEnded) return;
  if (!response.headersSent && !response.socket?.destroyed) response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`${text ?? errorText(error)}\n`);
  else response.destroy();
}
