import { randomBytes } from "node:crypto";
import { checkOptionKeys } from "../../agent/check-option-keys";
import { InvalidArgumentError } from "../../errors/invalid-argument-error";
import { scriptedReply, startLoopbackHttpServer } from "../loopback-http/start-loopback-http-server";
import type { LoopbackRequest } from "../openai-compatible-server/server-reply";
import { cachedTokens } from "../openai-responses-server/responses-reply";
import {
  type GeminiLoopbackError,
  type GeminiLoopbackTurn,
  type GeminiPart,
  type GeminiUsageMetadata,
  generateContentResponse,
  geminiTokens,
  streamChunks,
  turnParts,
} from "./gemini-reply";
import { validateGeminiRequest } from "./validate-gemini-request";

/** One entry of the Gemini loopback server's script. */
export type GeminiLoopbackReply = string | GeminiLoopbackTurn | GeminiLoopbackError | ((request: LoopbackRequest) => string | GeminiLoopbackTurn | GeminiLoopbackError);

/** Options of {@link startGoogleGenAIServer}. Any other key throws an `InvalidArgumentError` naming it. */
export interface GoogleGenAIServerOptions {
  /** One reply per accepted `generateContent` or `streamGenerateContent` request, in order. */
  responses: GeminiLoopbackReply[];
  /** Milliseconds between streamed chunks. @default 0 */
  tokenDelayMs?: number;
  /**
   * Refuse, with Google's 400 and its error text, what the Gemini API refuses: a function call of
   * the current turn sent back without the `thoughtSignature` the server gave it (or with another
   * one), function responses that do not answer the previous model turn's calls name for name, a
   * function response outside a user turn, empty contents or parts, a part with no data or two,
   * an image part of an unsupported type or with data that is not base64. @default true
   */
  validateRequests?: boolean;
}

/** A refused request: what the server answered. */
export interface GeminiRejectedRequest {
  /** The request's position among all requests. */
  index: number;
  status: number;
  message: string;
}

/** A running Gemini loopback server; see {@link startGoogleGenAIServer}. */
export interface GoogleGenAIServer {
  /** `http://127.0.0.1:<port>`: what to pass as `baseUrl` to `ChatGoogleGenerativeAI`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: LoopbackRequest[];
  /** The bodies of the `generateContent` and `streamGenerateContent` requests, in order. */
  readonly contentRequests: () => any[];
  /** The requests the server refused, with its answer: empty when every call was valid. */
  readonly rejections: GeminiRejectedRequest[];
  /** The `usageMetadata` of each answered request, in order. */
  readonly usages: GeminiUsageMetadata[];
  /** Stops listening and ends every open connection and timer. */
  close(): Promise<void>;
}

const ROUTE = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

const OPTION_KEYS = Object.keys({ responses: true, tokenDelayMs: true, validateRequests: true } satisfies Record<keyof GoogleGenAIServerOptions, true>);

/**
 * Starts a loopback server that speaks the Gemini API (`POST /v1beta/models/<model>:generateContent`,
 * and `:streamGenerateContent?alt=sse`) on `127.0.0.1`, answering from a script with thought parts,
 * text and function calls, and refusing with Google's own 400 what the API refuses: a function
 * call of the current turn sent back without the thought signature the server gave it (or with
 * one it did not give), function responses that do not answer the previous turn's calls, bad
 * image parts. `usageMetadata` reports thinking tokens (`thoughtsTokenCount`) and implicit
 * prompt-cache hits (`cachedContentTokenCount`, simulated). For tests of `@langchain/google-genai`
 * (or any Gemini client) without a network or a key.
 *
 * @example
 * ```ts
 * import { startGoogleGenAIServer } from "@agentrx/core/testing";
 *
 * const server = await startGoogleGenAIServer({ responses: [{ thinking: "Easy.", text: "4" }] });
 * const response = await fetch(`${server.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "2 + 2?" }] }], generationConfig: { thinkingConfig: { includeThoughts: true } } }),
 * });
 * console.log((await response.json()).candidates[0].content.parts); // [{ text: "Easy.", thought: true }, { text: "4" }]
 * await server.close();
 * ```
 */
export async function startGoogleGenAIServer(options: GoogleGenAIServerOptions): Promise<GoogleGenAIServer> {
  checkOptionKeys("startGoogleGenAIServer", options, OPTION_KEYS);
  const { responses, tokenDelayMs = 0, validateRequests = true } = options ?? ({} as GoogleGenAIServerOptions);
  if (!Array.isArray(responses)) {
    throw new InvalidArgumentError({ argument: "responses", value: responses, message: "startGoogleGenAIServer: `responses` must be an array of replies." });
  }
  const signatures = new Set<string>();
  const prompts: string[] = [];
  const rejections: GeminiRejectedRequest[] = [];
  const usages: GeminiUsageMetadata[] = [];
  let answered = 0;

  const http = await startLoopbackHttpServer(async (request, reply, parseError) => {
    const error = (status: number, message: string) => {
      if (status === 400) rejections.push({ index: request.index, status, message });
      reply.json(status, { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } });
    };
    const route = request.method === "POST" ? ROUTE.exec(request.path) : null;
    if (route === null) return error(404, `Loopback server has no route ${request.method} ${request.path}.`);
    if (parseError !== undefined) return error(400, `Invalid JSON payload received. ${parseError}`);
    const body = request.body as Record<string, any>;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return error(400, "Invalid JSON payload received. Expected an object.");
    const problem = validateRequests ? validateGeminiRequest(body, (signature) => signatures.has(signature)) : undefined;
    if (problem !== undefined) return error(400, problem);
    const position = answered++;
    const scripted = scriptedReply<GeminiLoopbackTurn, GeminiLoopbackError>(responses, position, request);
    if (scripted === undefined) return error(500, `Loopback server received content request #${position + 1} but its script has only ${responses.length} responses.`);
    if ("status" in scripted) return error(scripted.status, scripted.message ?? `Loopback error ${scripted.status}.`);

    const includeThoughts = body["generationConfig"]?.thinkingConfig?.includeThoughts === true;
    const parts = turnParts(scripted, includeThoughts, () => {
      const signature = randomBytes(24).toString("base64");
      signatures.add(signature);
      return signature;
    });
    const usage = usageOf(body, scripted, parts, prompts);
    usages.push(usage);
    const model = route[2] as string;
    const finishReason = scripted.finishReason ?? "STOP";
    if (route[3] === "streamGenerateContent") await reply.events(streamChunks(parts, finishReason, usage, model).map((data) => ({ data })), tokenDelayMs);
    else reply.json(200, generateContentResponse(parts, finishReason, usage, model));
  });

  return {
    url: http.url,
    requests: http.requests,
    contentRequests: () => http.requests.filter((request) => ROUTE.test(request.path)).map((request) => request.body),
    rejections,
    usages,
    close: () => http.close(),
  };
}

/** The usage of a turn: the prompt (and its cached prefix), the answer, the thinking. */
function usageOf(body: Record<string, any>, turn: GeminiLoopbackTurn, parts: GeminiPart[], prompts: string[]): GeminiUsageMetadata {
  const prompt = JSON.stringify([body["systemInstruction"] ?? null, body["tools"] ?? null, body["contents"]]);
  const promptTokenCount = Math.ceil(prompt.length / 4);
  const cached = cachedTokens(prompt, prompts);
  prompts.push(prompt);
  const candidatesTokenCount = Math.max(1, geminiTokens(parts.filter((part) => part["thought"] !== true)));
  const thoughtsTokenCount = turn.thinking !== undefined ? geminiTokens(turn.thinking) : 0;
  return {
    promptTokenCount,
    candidatesTokenCount,
    totalTokenCount: promptTokenCount + candidatesTokenCount + thoughtsTokenCount,
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    ...(thoughtsTokenCount > 0 ? { thoughtsTokenCount } : {}),
  };
}
