import { type LoopbackResponder, startLoopbackHttpServer } from "../loopback-http/start-loopback-http-server";
import {
  completionBody,
  completionChunks,
  errorBody,
  isHttpError,
  isRawReply,
  type LoopbackCompletion,
  type LoopbackHttpError,
  type LoopbackRawReply,
  type LoopbackReply,
  type LoopbackRequest,
  prepareCompletion,
  splitText,
} from "./server-reply";
import { validateChatRequest } from "./validate-chat-request";
import { checkOptionKeys } from "../../agent/check-option-keys";
import { InvalidArgumentError } from "../../errors/invalid-argument-error";
import { validateServerOptions } from "./validate-server-options";

/** Options of {@link startOpenAICompatibleServer}. Any other key throws an `InvalidArgumentError` naming it. */
export interface OpenAICompatibleServerOptions {
  /** The replies to `POST /v1/chat/completions`, played in order, one per request. */
  responses: LoopbackReply[];
  /**
   * What happens when the script runs out: `"error"` answers 500 (with `x-should-retry: false`)
   * and a message saying so, `"repeat-last"` plays the last reply again, `"cycle"` starts over.
   * @default "error"
   */
  onExhausted?: "error" | "repeat-last" | "cycle";
  /** How streamed text is split into deltas: `"word"` or a number of characters. @default "word" */
  chunkSize?: "word" | number;
  /** Characters of tool-call arguments per streamed delta (small, to split mid-JSON). @default 7 */
  toolCallChunkSize?: number;
  /**
   * How several streamed tool calls are laid out: `"interleaved"` sends every call's header (id
   * and name), then their argument deltas round-robin; `"sequential"` streams one call whole
   * (header, then its arguments) before the next, as OpenAI does. @default "interleaved"
   */
  toolCallOrder?: "interleaved" | "sequential";
  /** Milliseconds between streamed SSE events. @default 0 */
  tokenDelayMs?: number;
  /**
   * The field a completion's `reasoning` goes in, in the message and the streamed deltas:
   * `"reasoning_content"` as DeepSeek and vLLM send it, `"reasoning"` as OpenRouter does.
   * @default "reasoning_content"
   */
  reasoningField?: "reasoning_content" | "reasoning";
  /** When set, requests whose `Authorization` is not `Bearer <apiKey>` get a 401. */
  apiKey?: string;
  /** The models `GET /v1/models` lists. @default ["loopback-model"] */
  models?: string[];
  /**
   * Reject chat requests the OpenAI API would reject, with its 400 (invalid JSON, no `model` or
   * `messages`, `stream_options` without `stream`, `tool_choice` or `parallel_tool_calls` without
   * tools, an unknown role, a tool message without `tool_call_id`, tool calls left without a
   * result, a content part the message's role does not take, such as an image in a tool message),
   * before they take a reply from the script. @default true
   */
  validateRequests?: boolean;
  /**
   * Answer, as DeepSeek's thinking mode does, a 400 to a request with an assistant message whose
   * tool calls this server made alongside reasoning but which comes back without that reasoning (in
   * `reasoningField`). Other reasoning APIs (vLLM, OpenRouter) do not require it. @default false
   */
  requireReasoningBack?: boolean;
}

/** A request the server refused with a 400, and what it answered. */
export interface OpenAICompatibleRejection {
  /** The request's position among every request the server received (from 0). */
  index: number;
  /** The HTTP status: 400. */
  status: number;
  /** The error message the server answered with. */
  message: string;
}

/** A running loopback server; see {@link startOpenAICompatibleServer}. */
export interface OpenAICompatibleServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1`: what to pass as `baseURL` to an OpenAI client. */
  readonly baseURL: string;
  /** Every request received, in order (chat completions and others). */
  readonly requests: LoopbackRequest[];
  /** The chat-completion requests' bodies, in order. */
  readonly chatRequests: () => any[];
  /**
   * The chat requests the server refused with a 400 for breaking one of the API's rules (see
   * `validateRequests` and `requireReasoningBack`); scripted errors are not in it. Empty when every
   * call was valid.
   */
  readonly rejections: OpenAICompatibleRejection[];
  /** Stops listening, ends every open connection and pending timer, and resolves once closed. */
  close(): Promise<void>;
}

const OPTION_KEYS = Object.keys({
  responses: true,
  onExhausted: true,
  chunkSize: true,
  toolCallChunkSize: true,
  toolCallOrder: true,
  tokenDelayMs: true,
  reasoningField: true,
  apiKey: true,
  models: true,
  validateRequests: true,
  requireReasoningBack: true,
} satisfies Record<keyof OpenAICompatibleServerOptions, true>);

/**
 * Starts an OpenAI-compatible Chat Completions server on `127.0.0.1` (an ephemeral port, never
 * another interface) that answers from a script, for testing any OpenAI client without a network
 * or a key. It serves `POST /v1/chat/completions` (JSON, or real server-sent events with
 * `stream: true`: text deltas, tool-call argument deltas split mid-JSON and interleaved by index,
 * `finish_reason`, and a usage chunk with `stream_options.include_usage`) and `GET /v1/models`,
 * plays faults on cue (any HTTP status with an OpenAI error body and `Retry-After`, a slow first
 * byte, a body that stalls, malformed SSE, a connection dropped mid-stream, a raw body such as an
 * HTML page) and records every request.
 *
 * @example
 * ```ts
 * import { startOpenAICompatibleServer } from "@agentrx/core/testing";
 * import { OpenAIChatModel } from "@agentrx/core/openai";
 *
 * const server = await startOpenAICompatibleServer({ responses: ["Hello from the loopback server."] });
 * try {
 *   const model = new OpenAIChatModel({ model: "loopback-model", baseURL: server.baseURL, apiKey: "test" });
 *   console.log((await model.invoke("Hi")).content); // "Hello from the loopback server."
 *   console.log(server.chatRequests()[0].messages); // [{ role: "user", content: "Hi" }]
 * } finally {
 *   await server.close();
 * }
 * ```
 */
export async function startOpenAICompatibleServer(options: OpenAICompatibleServerOptions): Promise<OpenAICompatibleServer> {
  checkOptionKeys("startOpenAICompatibleServer", options, OPTION_KEYS);
  const {
    responses,
    onExhausted = "error",
    chunkSize = "word",
    toolCallChunkSize = 7,
    toolCallOrder = "interleaved",
    tokenDelayMs = 0,
    apiKey,
    models = ["loopback-model"],
    validateRequests = true,
    reasoningField = "reasoning_content",
    requireReasoningBack = false,
  } = options;
  validateServerOptions(responses, onExhausted, chunkSize, toolCallChunkSize, tokenDelayMs, validateRequests, toolCallOrder, reasoningField);
  if (typeof requireReasoningBack !== "boolean") {
    throw new InvalidArgumentError({
      argument: "requireReasoningBack",
      value: requireReasoningBack,
      message: `startOpenAICompatibleServer: \`requireReasoningBack\` must be a boolean, got ${String(requireReasoningBack)}.`,
    });
  }
  const script = [...responses];
  const rejections: OpenAICompatibleRejection[] = [];
  /** The reasoning sent with each tool call the server made, by the call's id. */
  const reasoningOfCall = new Map<string, string>();
  let chatIndex = 0;

  const replyFor = (index: number): LoopbackReply | undefined => {
    if (index < script.length) return script[index];
    if (script.length && onExhausted === "repeat-last") return script[script.length - 1];
    if (script.length && onExhausted === "cycle") return script[index % script.length];
    return undefined;
  };

  const sendError = async (reply: LoopbackResponder, error: LoopbackHttpError) => {
    if (!(await reply.wait(error.firstByteDelayMs ?? 0))) return;
    const headers: Record<string, string> = { ...error.headers };
    if (error.retryAfter !== undefined) headers["retry-after"] = String(error.retryAfter);
    reply.json(error.status, errorBody(error), headers);
  };

  const sendCompletion = async (reply: LoopbackResponder, request: LoopbackRequest, completion: LoopbackCompletion) => {
    if (!(await reply.wait(completion.firstByteDelayMs ?? 0))) return;
    const res = reply.raw;
    const prepared = prepareCompletion(completion, request, reasoningField);
    if (prepared.reasoning) for (const call of prepared.toolCalls) reasoningOfCall.set(call.id, prepared.reasoning);
    const body = request.body as { stream?: boolean; stream_options?: { include_usage?: boolean } };
    if (!body.stream) {
      const json = completionBody(prepared);
      if (completion.stallAfterBytes === undefined) {
        res.writeHead(200, { "content-type": "application/json" }).end(json);
        return;
      }
      const head = Buffer.from(json).subarray(0, completion.stallAfterBytes);
      res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(json)) });
      res.write(head);
      // Nothing more: the connection stays open until the client (or close()) ends it.
      await new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once("close", () => resolve())));
      return;
    }
    const includeUsage = body.stream_options?.include_usage === true;
    const chunks = completionChunks(prepared, splitText(prepared.content, chunkSize), toolCallChunkSize, includeUsage, toolCallOrder);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    let written = Promise.resolve();
    for (const [sent, chunk] of chunks.entries()) {
      if (sent > 0 && !(await reply.wait(tokenDelayMs))) return;
      if (res.destroyed) return;
      if (sent === completion.dropAfterChunks) {
        // Let the events already written reach the client before the connection drops, so the
        // client receives exactly `dropAfterChunks` events.
        await written;
        res.socket?.destroy();
        return;
      }
      if (sent === completion.malformedAfterChunks) {
        res.end('data: {"id": "chatcmpl-broken", "choices": [{"delta": {"content": "unterminated\n\n');
        return;
      }
      if (sent === completion.errorAfterChunks) {
        const message = completion.errorMessage ?? "The server had an error while processing your request.";
        res.end(`data: ${JSON.stringify(errorBody({ status: 500, message }))}\n\n`);
        return;
      }
      if (sent === completion.endAfterChunks) {
        res.end();
        return;
      }
      written = new Promise<void>((resolve) => res.write(`data: ${JSON.stringify(chunk)}\n\n`, () => resolve()));
    }
    res.end(completion.omitDone ? undefined : "data: [DONE]\n\n");
  };

  const sendRaw = (reply: LoopbackResponder, raw: LoopbackRawReply) => {
    reply.raw.writeHead(raw.status ?? 200, { "content-type": raw.contentType ?? "application/json", ...raw.headers }).end(raw.raw);
  };

  const handleChat = async (reply: LoopbackResponder, request: LoopbackRequest) => {
    const index = chatIndex++;
    let scripted = replyFor(index);
    if (scripted === undefined) {
      await sendError(reply, {
        status: 500,
        message: `Loopback server received chat request #${index + 1} but its script has only ${script.length} responses.`,
        headers: { "x-should-retry": "false" },
      });
      return;
    }
    if (typeof scripted === "function") scripted = await scripted(request);
    if (typeof scripted === "string") scripted = { content: scripted };
    if (isRawReply(scripted)) sendRaw(reply, scripted);
    else if (isHttpError(scripted)) await sendError(reply, scripted);
    else await sendCompletion(reply, request, scripted);
  };

  const http = await startLoopbackHttpServer(async (request, reply, parseError) => {
    if (apiKey !== undefined && request.headers["authorization"] !== `Bearer ${apiKey}`) {
      await sendError(reply, { status: 401, message: "Incorrect API key provided.", code: "invalid_api_key" });
      return;
    }
    const route = `${request.method} ${request.path}`;
    if (route === "POST /v1/chat/completions") {
      const refuse = async (message: string) => {
        rejections.push({ index: request.index, status: 400, message });
        await sendError(reply, { status: 400, message });
      };
      if (parseError !== undefined) {
        await refuse(
          `We could not parse the JSON body of your request (${parseError}). The OpenAI API expects a JSON ` +
            "payload, but what was sent was not valid JSON.",
        );
        return;
      }
      const body: unknown = request.body;
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        await refuse("The request body must be a JSON object.");
        return;
      }
      const invalid =
        (validateRequests ? validateChatRequest(body as Record<string, unknown>) : undefined) ??
        (requireReasoningBack ? missingReasoning(body as Record<string, unknown>, reasoningField, reasoningOfCall) : undefined);
      if (invalid) {
        rejections.push({ index: request.index, status: invalid.status, message: invalid.message ?? "" });
        await sendError(reply, invalid);
        return;
      }
      await handleChat(reply, request);
    } else if (route === "GET /v1/models") {
      reply.json(200, { object: "list", data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "agentrx" })) });
    } else {
      await sendError(reply, { status: 404, message: `Loopback server has no route ${route}.` });
    }
  });

  return {
    url: http.url,
    baseURL: `${http.url}/v1`,
    requests: http.requests,
    chatRequests: () => http.requests.filter((request) => request.path === "/v1/chat/completions").map((request) => request.body),
    rejections,
    close: () => http.close(),
  };
}

/**
 * DeepSeek's rule in thinking mode: an assistant message with tool calls made alongside reasoning
 * must come back with that reasoning. Returns its 400, or `undefined`.
 */
function missingReasoning(body: Record<string, unknown>, field: string, reasoningOfCall: Map<string, string>): LoopbackHttpError | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as (Record<string, unknown> | null)[]) : [];
  for (const [index, message] of messages.entries()) {
    if (typeof message !== "object" || message === null) continue;
    if (message.role !== "assistant" || !Array.isArray(message.tool_calls)) continue;
    const reasoned = (message.tool_calls as { id?: string }[]).some((call) => typeof call.id === "string" && reasoningOfCall.has(call.id));
    if (reasoned && typeof message[field] !== "string") {
      return { status: 400, message: `Missing \`${field}\` field in the assistant message at message index ${index}. The \`${field}\` in the thinking mode must be passed back to the API.` };
    }
  }
  return undefined;
}
