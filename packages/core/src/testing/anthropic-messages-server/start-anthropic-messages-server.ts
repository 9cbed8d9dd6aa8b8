import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { checkOptionKeys } from "../../agent/check-option-keys";
import { InvalidArgumentError } from "../../errors/invalid-argument-error";
import type { LoopbackRequest } from "../openai-compatible-server/server-reply";
import { scriptedReply, startLoopbackHttpServer } from "../loopback-http/start-loopback-http-server";
import {
  type AnthropicLoopbackError,
  type AnthropicLoopbackTurn,
  type AnthropicUsage,
  cacheUsage,
  messageEvents,
  tokensOf,
  turnBlocks,
} from "./anthropic-reply";
import { validateAnthropicRequest } from "./validate-anthropic-request";

/** One entry of the Anthropic loopback server's script. */
export type AnthropicLoopbackReply =
  | string
  | AnthropicLoopbackTurn
  | AnthropicLoopbackError
  | ((request: LoopbackRequest) => string | AnthropicLoopbackTurn | AnthropicLoopbackError);

/** Options of {@link startAnthropicMessagesServer}. Any other key throws an `InvalidArgumentError` naming it. */
export interface AnthropicMessagesServerOptions {
  /** One reply per accepted `POST /v1/messages`, in order. */
  responses: AnthropicLoopbackReply[];
  /** Milliseconds between streamed events. @default 0 */
  tokenDelayMs?: number;
  /**
   * Refuse, with Anthropic's 400 and its error text, the requests the Messages API refuses:
   * thinking blocks left out, reordered, edited or with a changed `signature`; `tool_use` without
   * its `tool_result` in the next message (or a result for no call); malformed image blocks; more
   * than 4 `cache_control` breakpoints; thinking with a forced tool choice or a temperature.
   * @default true
   */
  validateRequests?: boolean;
}

/** A refused request: what the server answered. */
export interface AnthropicRejectedRequest {
  /** The request's position among all requests. */
  index: number;
  status: number;
  message: string;
}

/** A running Anthropic Messages loopback server; see {@link startAnthropicMessagesServer}. */
export interface AnthropicMessagesServer {
  /** `http://127.0.0.1:<port>`: what to pass as the Anthropic client's base URL (`anthropicApiUrl`). */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: LoopbackRequest[];
  /** The bodies of the `POST /v1/messages` requests, in order. */
  readonly messageRequests: () => any[];
  /**
   * The messages the server answered with, in order (one per accepted request; streamed ones as
   * the whole message): what a test compares the blocks sent back with, signatures included.
   */
  readonly replies: () => any[];
  /** The requests the server refused, with its answer: empty when every call was valid. */
  readonly rejections: AnthropicRejectedRequest[];
  /** The usage of each answered request, in order (cache reads and writes included). */
  readonly usages: AnthropicUsage[];
  /** Stops listening and ends every open connection and timer. */
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const OPTION_KEYS = Object.keys({ responses: true, tokenDelayMs: true, validateRequests: true } satisfies Record<keyof AnthropicMessagesServerOptions, true>);

/**
 * Starts a loopback server that speaks Anthropic's Messages API (`POST /v1/messages`, JSON or
 * server-sent events) on `127.0.0.1`, answering from a script, and refusing with Anthropic's own
 * 400 the requests the API refuses: extended-thinking blocks that are missing, moved, edited or
 * re-signed (the server signs each thinking block it sends and checks the signature when it comes
 * back), tool results that do not pair with the calls of the previous message, bad image blocks,
 * misplaced `cache_control`. Usage reports prompt-cache reads and writes, simulated from the
 * `cache_control` breakpoints. For tests of `@langchain/anthropic` (or any Anthropic client)
 * without a network or a key.
 *
 * @example
 * ```ts
 * import { startAnthropicMessagesServer } from "@agentrx/core/testing";
 *
 * const server = await startAnthropicMessagesServer({ responses: [{ thinking: "Easy.", text: "4" }] });
 * const response = await fetch(`${server.url}/v1/messages`, {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({
 *     model: "claude-sonnet-4-5",
 *     max_tokens: 2048,
 *     thinking: { type: "enabled", budget_tokens: 1024 },
 *     messages: [{ role: "user", content: "2 + 2?" }],
 *   }),
 * });
 * console.log((await response.json()).content.map((block: { type: string }) => block.type)); // ["thinking", "text"]
 * await server.close();
 * ```
 */
export async function startAnthropicMessagesServer(options: AnthropicMessagesServerOptions): Promise<AnthropicMessagesServer> {
  checkOptionKeys("startAnthropicMessagesServer", options, OPTION_KEYS);
  const { responses, tokenDelayMs = 0, validateRequests = true } = options ?? ({} as AnthropicMessagesServerOptions);
  if (!Array.isArray(responses)) {
    throw new InvalidArgumentError({ argument: "responses", value: responses, message: "startAnthropicMessagesServer: `responses` must be an array of replies." });
  }
  const secret = randomBytes(32);
  const sign = (thinking: string) => createHmac("sha256", secret).update(thinking).digest("base64");
  const verify = (thinking: string, signature: string) => {
    const expected = Buffer.from(sign(thinking));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  const cache = new Map<string, number>();
  const rejections: AnthropicRejectedRequest[] = [];
  const usages: AnthropicUsage[] = [];
  const replies: unknown[] = [];
  let answered = 0;

  const http = await startLoopbackHttpServer(async (request, reply, parseError) => {
    const error = (status: number, message: string, type = ERROR_TYPES[status] ?? "api_error") => {
      if (status === 400) rejections.push({ index: request.index, status, message });
      reply.json(status, { type: "error", error: { type, message } }, { "request-id": `req_loopback_${request.index}` });
    };
    if (request.method !== "POST" || request.path !== "/v1/messages") return error(404, `Loopback server has no route ${request.method} ${request.path}.`);
    if (parseError !== undefined) return error(400, `There was an issue with your request body: invalid JSON (${parseError})`);
    const body = request.body as Record<string, any>;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return error(400, "The request body must be a JSON object.");
    const problem = validateRequests ? validateAnthropicRequest(body, verify) : undefined;
    if (problem !== undefined) return error(400, problem);
    const position = answered++;
    const scripted = scriptedReply<AnthropicLoopbackTurn, AnthropicLoopbackError>(responses, position, request);
    if (scripted === undefined) {
      return error(500, `Loopback server received message request #${position + 1} but its script has only ${responses.length} responses.`);
    }
    if ("status" in scripted) return error(scripted.status, scripted.message ?? `Loopback error ${scripted.status}.`, scripted.type);
    const thinkingOn = (body["thinking"] as { type?: string } | undefined)?.type === "enabled";
    const content = turnBlocks(scripted, request.index, thinkingOn, sign);
    const usage: AnthropicUsage = { ...cacheUsage(body, cache), output_tokens: Math.max(1, tokensOf(content)) };
    usages.push(usage);
    const message = {
      id: `msg_loopback_${request.index}`,
      type: "message",
      role: "assistant",
      model: body["model"],
      content,
      stop_reason: scripted.stopReason ?? (scripted.toolCalls?.length ? "tool_use" : "end_turn"),
      stop_sequence: null,
      usage,
    };
    replies.push(message);
    if (body["stream"] === true) await reply.events(messageEvents(message), tokenDelayMs);
    else reply.json(200, message, { "request-id": `req_loopback_${request.index}` });
  });

  return {
    url: http.url,
    requests: http.requests,
    messageRequests: () => http.requests.filter((request) => request.path === "/v1/messages").map((request) => request.body),
    replies: () => structuredClone(replies) as any[],
    rejections,
    usages,
    close: () => http.close(),
  };
}
