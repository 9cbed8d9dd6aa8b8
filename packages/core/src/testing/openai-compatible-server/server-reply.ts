/** A tool call the loopback server sends. */
export interface LoopbackToolCall {
  /** The function's name. */
  name: string;
  /**
   * The arguments: an object (sent as its JSON) or raw argument text, sent as is (so it may be
   * invalid JSON). @default {}
   */
  arguments?: Record<string, unknown> | string;
  /** The tool call's id. @default `call_<request index>_<tool call index>` */
  id?: string;
}

/** A completion the loopback server answers with. */
export interface LoopbackCompletion {
  /** The assistant's text. @default "" (or `null` in the JSON when there are tool calls) */
  content?: string;
  /** Tool calls; streamed interleaved by index, their arguments split mid-JSON. */
  toolCalls?: LoopbackToolCall[];
  /** @default "tool_calls" when there are tool calls, else "stop" */
  finishReason?: "stop" | "length" | "tool_calls" | "content_filter";
  /**
   * Usage to report; `cachedTokens` and `reasoningTokens` are sent as
   * `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`, as
   * OpenAI reports a prompt-cache hit and a reasoning model's hidden tokens. @default counted in words
   */
  usage?: { promptTokens: number; completionTokens: number; cachedTokens?: number; reasoningTokens?: number };
  /** Milliseconds to wait before sending the status line and headers (a slow first byte). */
  firstByteDelayMs?: number;
  /** Streaming only: destroy the connection after this many SSE events (a dropped connection). */
  dropAfterChunks?: number;
  /** Streaming only: after this many SSE events, send an event that is not valid JSON, then end. */
  malformedAfterChunks?: number;
  /**
   * Streaming only: after this many SSE events, send an error event (`data: {"error": {...}}`, as
   * OpenAI and vLLM do when generation fails mid-stream) with this message, then end.
   */
  errorAfterChunks?: number;
  /** The message of the `errorAfterChunks` event. @default "The server had an error while processing your request." */
  errorMessage?: string;
  /** Streaming only: end the response cleanly (no error, no `[DONE]`) after this many SSE events. */
  endAfterChunks?: number;
  /** Streaming only: end a complete stream without the final `data: [DONE]`. @default false */
  omitDone?: boolean;
  /**
   * Not streamed only: send the status line, the headers and this many bytes of the JSON body,
   * then nothing more until the client gives up (a body that stalls).
   */
  stallAfterBytes?: number;
  /** A refusal instead of content (`message.refusal`, streamed as `delta.refusal` deltas). */
  refusal?: string;
  /**
   * The model's reasoning, as reasoning models behind compatible APIs send it (DeepSeek, vLLM,
   * OpenRouter...): `message.reasoning_content` (or `reasoning`, per the server's
   * `reasoningField`), streamed as deltas before the content. Counted as reasoning tokens in the
   * default usage.
   */
  reasoning?: string;
  /**
   * OpenRouter's `reasoning_details` (objects such as `{ type: "reasoning.text", text, signature,
   * format, index }` or `{ type: "reasoning.encrypted", data, format, index }`): sent as they are as
   * `message.reasoning_details`, and streamed as OpenRouter streams them, each detail in pieces
   * that carry its `type`, `index` (its position unless it has one) and `format`, its `text` (or
   * `summary`) split into words, the rest of its fields with the last piece.
   */
  reasoningDetails?: Record<string, unknown>[];
}

/** An HTTP error the loopback server answers with, in OpenAI's error format. */
export interface LoopbackHttpError {
  /** The HTTP status (401, 400, 429, 500, ...). */
  status: number;
  /** `error.message` of the body. @default a message that names the status */
  message?: string;
  /** `error.type` of the body. @default derived from the status */
  type?: string;
  /** `error.code` of the body. @default null */
  code?: string | null;
  /** `error.param` of the body: the request parameter at fault. @default null */
  param?: string | null;
  /** The `Retry-After` header: seconds (may be fractional) or an HTTP date. */
  retryAfter?: number | string;
  /** More response headers. */
  headers?: Record<string, string>;
  /** Milliseconds to wait before answering. */
  firstByteDelayMs?: number;
}

/**
 * A reply sent exactly as given, whatever the request asked for: a body that is not a Chat
 * Completions response (an HTML error page, JSON without `choices`), or hand-written server-sent
 * events (with `contentType: "text/event-stream"`).
 */
export interface LoopbackRawReply {
  /** The response body, sent as is. */
  raw: string;
  /** The HTTP status. @default 200 */
  status?: number;
  /** The `content-type` header. @default "application/json" */
  contentType?: string;
  /** More response headers. */
  headers?: Record<string, string>;
}

/** What the loopback server records of every request it receives. */
export interface LoopbackRequest {
  /** 0-based position among all requests. */
  index: number;
  /** HTTP method. */
  method: string;
  /** The path, without the query string (e.g. `/v1/chat/completions`). */
  path: string;
  /** Request headers (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** The JSON body, parsed (`undefined` when there was none or it was not JSON). */
  body: any;
  /** True once the client closed the connection before the response was complete. */
  clientDisconnected: boolean;
  /** Resolves when the exchange is over (response finished, or the connection closed). */
  done: Promise<void>;
}

/** One entry of the loopback server's script. */
export type LoopbackReply =
  | string
  | LoopbackCompletion
  | LoopbackHttpError
  | LoopbackRawReply
  | ((request: LoopbackRequest) => Exclude<LoopbackReply, Function> | Promise<Exclude<LoopbackReply, Function>>);

/** Returns true for a scripted raw reply. */
export function isRawReply(reply: Exclude<LoopbackReply, Function>): reply is LoopbackRawReply {
  return typeof reply === "object" && typeof (reply as LoopbackRawReply).raw === "string";
}

/** Returns true for a scripted HTTP error. */
export function isHttpError(reply: Exclude<LoopbackReply, Function>): reply is LoopbackHttpError {
  return typeof reply === "object" && !isRawReply(reply) && typeof (reply as LoopbackHttpError).status === "number";
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_error",
  404: "invalid_request_error",
  429: "rate_limit_error",
};

/** The body of an OpenAI-style error. */
export function errorBody(error: LoopbackHttpError): { error: Record<string, unknown> } {
  return {
    error: {
      message: error.message ?? `Loopback server answered with status ${error.status}.`,
      type: error.type ?? ERROR_TYPES[error.status] ?? "server_error",
      param: error.param ?? null,
      code: error.code ?? null,
    },
  };
}

interface ToolCallOut {
  id: string;
  name: string;
  text: string;
}

/** A completion prepared for one request: stop sequences applied, ids and usage settled. */
export interface PreparedCompletion {
  id: string;
  model: string;
  created: number;
  content: string;
  toolCalls: ToolCallOut[];
  finishReason: string;
  refusal: string | null;
  reasoning: string;
  /** OpenRouter's `reasoning_details`, as scripted (none when empty). */
  reasoningDetails: Record<string, unknown>[];
  /** The field the reasoning goes in: `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter). */
  reasoningField: "reasoning_content" | "reasoning";
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
    completion_tokens_details?: { reasoning_tokens: number };
  };
}

/** Settles a scripted completion for one request. */
export function prepareCompletion(
  completion: LoopbackCompletion,
  request: LoopbackRequest,
  reasoningField: "reasoning_content" | "reasoning" = "reasoning_content",
): PreparedCompletion {
  const body = (request.body ?? {}) as { model?: string; stop?: string | string[]; messages?: { content?: unknown }[] };
  let content = completion.content ?? "";
  const stops = typeof body.stop === "string" ? [body.stop] : (body.stop ?? []);
  let stopped = false;
  for (const stop of stops) {
    const at = stop ? content.indexOf(stop) : -1;
    if (at !== -1) {
      content = content.slice(0, at);
      stopped = true;
    }
  }
  const toolCalls = (completion.toolCalls ?? []).map((call, position) => ({
    id: call.id ?? `call_${request.index}_${position}`,
    name: call.name,
    text: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
  const promptTokens = (body.messages ?? []).reduce((sum, message) => sum + countWords(message.content), 0);
  const reasoning = completion.reasoning ?? "";
  const reasoningTokens = reasoning ? countWords(reasoning) : undefined;
  const completionTokens = countWords(content) + toolCalls.length + (reasoningTokens ?? 0);
  const usage: NonNullable<LoopbackCompletion["usage"]> = completion.usage ?? { promptTokens, completionTokens, ...(reasoningTokens !== undefined ? { reasoningTokens } : {}) };
  return {
    id: `chatcmpl-loopback-${request.index}`,
    model: body.model ?? "loopback",
    created: Math.floor(Date.now() / 1000),
    content,
    toolCalls,
    finishReason: completion.finishReason ?? (toolCalls.length && !stopped ? "tool_calls" : "stop"),
    refusal: completion.refusal ?? null,
    reasoning,
    reasoningDetails: completion.reasoningDetails ?? [],
    reasoningField,
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
      ...(usage.cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } } : {}),
      ...(usage.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {}),
    },
  };
}

/** The non-streaming `chat.completion` object. */
export function completionBody(prepared: PreparedCompletion): string {
  return JSON.stringify({
    id: prepared.id,
    object: "chat.completion",
    created: prepared.created,
    model: prepared.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: (prepared.toolCalls.length || prepared.refusal) && !prepared.content ? null : prepared.content,
          refusal: prepared.refusal,
          ...(prepared.reasoning ? { [prepared.reasoningField]: prepared.reasoning } : {}),
          ...(prepared.reasoningDetails.length ? { reasoning_details: prepared.reasoningDetails } : {}),
          ...(prepared.toolCalls.length
            ? {
                tool_calls: prepared.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: call.text },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: prepared.finishReason,
      },
    ],
    usage: prepared.usage,
  });
}

/**
 * The `chat.completion.chunk` objects of a streamed completion: a role chunk, the reasoning deltas
 * (then those of the reasoning details, see {@link reasoningDetailPieces}), the text deltas,
 * the tool calls (a header chunk with id and name, then argument deltas of `toolCallChunkSize`
 * characters, round-robin across tool calls; or, `"sequential"`, each call whole before the next),
 * the finish chunk and, when asked, the usage chunk.
 */
export function completionChunks(
  prepared: PreparedCompletion,
  textDeltas: string[],
  toolCallChunkSize: number,
  includeUsage: boolean,
  toolCallOrder: "interleaved" | "sequential" = "interleaved",
): object[] {
  const base = { id: prepared.id, object: "chat.completion.chunk", created: prepared.created, model: prepared.model };
  const chunk = (delta: object, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: object[] = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const text of splitText(prepared.reasoning, "word")) chunks.push(chunk({ [prepared.reasoningField]: text }));
  prepared.reasoningDetails.forEach((detail, position) => {
    for (const piece of reasoningDetailPieces(detail, position)) chunks.push(chunk({ reasoning_details: [piece] }));
  });
  for (const text of textDeltas) chunks.push(chunk({ content: text }));
  for (const text of splitText(prepared.refusal ?? "", "word")) chunks.push(chunk({ refusal: text }));
  const header = (call: ToolCallOut, index: number) =>
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
  const pieces = prepared.toolCalls.map((call) => split(call.text, toolCallChunkSize));
  if (toolCallOrder === "sequential") {
    prepared.toolCalls.forEach((call, index) => {
      chunks.push(header(call, index));
      for (const piece of pieces[index] ?? []) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
  } else prepared.toolCalls.forEach((call, index) => chunks.push(header(call, index)));
  const rounds = toolCallOrder === "sequential" ? 0 : Math.max(0, ...pieces.map((list) => list.length));
  for (let round = 0; round < rounds; round++) {
    pieces.forEach((list, index) => {
      const piece = list[round];
      if (piece !== undefined) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
  }
  chunks.push(chunk({}, prepared.finishReason));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: prepared.usage });
  return chunks;
}

/**
 * A reasoning detail as OpenRouter streams it: pieces that each carry its `type`, `index` and
 * `format`, with its `text` (or else `summary`) split into words; the rest of its fields (a
 * `signature`, `data`, an `id`) come with the last piece.
 */
function reasoningDetailPieces(detail: Record<string, unknown>, position: number): Record<string, unknown>[] {
  const index = detail.index ?? position;
  const field = typeof detail.text === "string" ? "text" : typeof detail.summary === "string" ? "summary" : undefined;
  const words = field ? splitText(detail[field] as string, "word") : [];
  if (!field || words.length < 2) return [{ ...detail, index }];
  const head = { type: detail.type, index, ...(detail.format !== undefined ? { format: detail.format } : {}) };
  const { [field]: _text, ...rest } = detail;
  return words.map((word, at) => ({ ...head, [field]: word, ...(at === words.length - 1 ? { ...rest, index } : {}) }));
}

const WORD = /\s*\S+\s*|\s+/g;

/** Splits text into deltas: words with their trailing whitespace, or runs of `size` characters. */
export function splitText(text: string, chunkSize: "word" | number): string[] {
  if (!text) return [];
  if (chunkSize === "word") return text.match(WORD) ?? [text];
  return split(text, chunkSize);
}

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

function countWords(content: unknown): number {
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : "")).join(" ")
        : "";
  return text.split(/\s+/).filter(Boolean).length;
}
