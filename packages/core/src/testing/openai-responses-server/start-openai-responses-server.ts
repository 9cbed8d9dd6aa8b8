import { createHmac, randomBytes } from "node:crypto";
import { checkOptionKeys } from "../../agent/check-option-keys";
import { InvalidArgumentError } from "../../errors/invalid-argument-error";
import { scriptedReply, startLoopbackHttpServer } from "../loopback-http/start-loopback-http-server";
import type { LoopbackRequest } from "../openai-compatible-server/server-reply";
import { cachedTokens, outputItems, responseEvents, type ResponsesLoopbackTurn, tokensOf } from "./responses-reply";
import { type EmittedItems, validateResponsesRequest } from "./validate-responses-request";

/** An HTTP error the Responses loopback server answers with, in OpenAI's error format. */
export interface ResponsesLoopbackError {
  status: number;
  message?: string;
}

/** One entry of the Responses loopback server's script. */
export type ResponsesLoopbackReply =
  | string
  | ResponsesLoopbackTurn
  | ResponsesLoopbackError
  | ((request: LoopbackRequest) => string | ResponsesLoopbackTurn | ResponsesLoopbackError);

/** Options of {@link startOpenAIResponsesServer}. Any other key throws an `InvalidArgumentError` naming it. */
export interface OpenAIResponsesServerOptions {
  /** One reply per accepted `POST /v1/responses`, in order. */
  responses: ResponsesLoopbackReply[];
  /** Milliseconds between streamed events. @default 0 */
  tokenDelayMs?: number;
  /**
   * Refuse, with OpenAI's 400 and its error text, what the Responses API refuses: an item sent
   * back without the reasoning item that preceded it, a reasoning item without the item that
   * followed it, an unknown or altered reasoning item, a function call without its output or an
   * output for no call, an output that is neither a string nor a list of `input_text`,
   * `input_image` and `input_file` items. @default true
   */
  validateRequests?: boolean;
}

/** A refused request: what the server answered. */
export interface ResponsesRejectedRequest {
  index: number;
  status: number;
  message: string;
}

/** A running Responses loopback server; see {@link startOpenAIResponsesServer}. */
export interface OpenAIResponsesServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1`: the OpenAI client's `baseURL`. */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: LoopbackRequest[];
  /** The bodies of the `POST /v1/responses` requests, in order. */
  readonly responseRequests: () => any[];
  /** The requests the server refused: empty when every call was valid. */
  readonly rejections: ResponsesRejectedRequest[];
  /** Stops listening and ends every open connection and timer. */
  close(): Promise<void>;
}

const OPTION_KEYS = Object.keys({ responses: true, tokenDelayMs: true, validateRequests: true } satisfies Record<keyof OpenAIResponsesServerOptions, true>);

/**
 * Starts a loopback server that speaks OpenAI's Responses API (`POST /v1/responses`, JSON or
 * server-sent events) on `127.0.0.1`, answering from a script with reasoning items, messages and
 * function calls, and refusing with OpenAI's own 400 the inputs the API refuses: a function call
 * or message sent back without the reasoning item that preceded it, a reasoning item without its
 * following item, an unknown or altered reasoning item, unpaired function calls and outputs.
 * Usage reports reasoning tokens and cached tokens (automatic prefix caching, simulated). For tests
 * of `@langchain/openai` with `useResponsesApi` without a network or a key.
 *
 * @example
 * ```ts
 * import { startOpenAIResponsesServer } from "@agentrx/core/testing";
 *
 * const server = await startOpenAIResponsesServer({ responses: [{ reasoning: "Simple sum.", text: "4" }] });
 * const response = await fetch(`${server.baseURL}/responses`, {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ model: "o4-mini", input: "2 + 2?" }),
 * });
 * console.log((await response.json()).output.map((item: { type: string }) => item.type)); // ["reasoning", "message"]
 * await server.close();
 * ```
 */
export async function startOpenAIResponsesServer(options: OpenAIResponsesServerOptions): Promise<OpenAIResponsesServer> {
  checkOptionKeys("startOpenAIResponsesServer", options, OPTION_KEYS);
  const { responses, tokenDelayMs = 0, validateRequests = true } = options ?? ({} as OpenAIResponsesServerOptions);
  if (!Array.isArray(responses)) {
    throw new InvalidArgumentError({ argument: "responses", value: responses, message: "startOpenAIResponsesServer: `responses` must be an array of replies." });
  }
  const secret = randomBytes(32);
  const encrypt = (id: string) => `loopback:${createHmac("sha256", secret).update(id).digest("base64")}`;
  const emitted: EmittedItems = { types: new Map(), requiredReasoning: new Map(), following: new Map() };
  const prompts: string[] = [];
  const rejections: ResponsesRejectedRequest[] = [];
  let answered = 0;

  const http = await startLoopbackHttpServer(async (request, reply, parseError) => {
    const error = (status: number, message: string, param: string | null = null) => {
      if (status === 400) rejections.push({ index: request.index, status, message });
      const type = status === 400 ? "invalid_request_error" : status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
      reply.json(status, { error: { message, type, param, code: null } }, status >= 500 ? { "x-should-retry": "false" } : {});
    };
    if (request.method !== "POST" || request.path !== "/v1/responses") return error(404, `Loopback server has no route ${request.method} ${request.path}.`);
    if (parseError !== undefined) return error(400, `We could not parse the JSON body of your request (${parseError}).`);
    const body = request.body as Record<string, any>;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return error(400, "The request body must be a JSON object.");
    const problem = validateRequests ? validateResponsesRequest(body, emitted, (id, encrypted) => encrypted === encrypt(id)) : undefined;
    if (problem !== undefined) return error(400, problem.message, problem.param);
    const position = answered++;
    const scripted = scriptedReply<ResponsesLoopbackTurn, ResponsesLoopbackError>(responses, position, request);
    if (scripted === undefined) return error(500, `Loopback server received response request #${position + 1} but its script has only ${responses.length} responses.`);
    if ("status" in scripted) return error(scripted.status, scripted.message ?? `Loopback error ${scripted.status}.`);

    const include = Array.isArray(body["include"]) ? (body["include"] as string[]) : [];
    const output = outputItems(scripted, request.index, {
      summary: typeof body["reasoning"]?.summary === "string",
      encrypt: include.includes("reasoning.encrypted_content") ? encrypt : undefined,
    });
    // Remember what follows each reasoning item, for when these items come back.
    let reasoning: string | undefined;
    for (const [index, item] of output.entries()) {
      const id = item["id"] as string;
      emitted.types.set(id, item["type"] as string);
      if (item["type"] === "reasoning") reasoning = id;
      else if (reasoning !== undefined) {
        emitted.requiredReasoning.set(id, reasoning);
        if (output[index - 1]?.["id"] === reasoning) emitted.following.set(reasoning, id);
      }
    }
    const prompt = JSON.stringify([body["instructions"] ?? null, body["tools"] ?? null, body["input"]]);
    const inputTokens = Math.ceil(prompt.length / 4);
    const cached = cachedTokens(prompt, prompts);
    prompts.push(prompt);
    const reasoningTokens = scripted.reasoning !== undefined ? tokensOf(scripted.reasoning) : 0;
    const outputTokens = reasoningTokens + tokensOf(output.filter((item) => item["type"] !== "reasoning"));
    const response = {
      id: `resp_loopback_${request.index}`,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      status: "completed",
      model: body["model"],
      output,
      parallel_tool_calls: body["parallel_tool_calls"] ?? true,
      tool_choice: body["tool_choice"] ?? "auto",
      tools: body["tools"] ?? [],
      usage: {
        input_tokens: inputTokens,
        input_tokens_details: { cached_tokens: cached },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: reasoningTokens },
        total_tokens: inputTokens + outputTokens,
      },
    };
    if (body["stream"] === true) await reply.events(responseEvents(response), tokenDelayMs);
    else reply.json(200, response);
  });

  return {
    url: http.url,
    baseURL: `${http.url}/v1`,
    requests: http.requests,
    responseRequests: () => http.requests.filter((request) => request.path === "/v1/responses").map((request) => request.body),
    rejections,
    close: () => http.close(),
  };
}
