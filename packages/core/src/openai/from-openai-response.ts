import {
  AIMessage,
  AIMessageChunk,
  type InvalidToolCall,
  type ToolCallChunk,
  type UsageMetadata,
} from "@langchain/core/messages";
import type OpenAI from "openai";
import { assembleToolCalls, parseToolCalls } from "../messages/strict-tool-calls";
import { reasoningKwargs, type StreamReasoning } from "./reasoning-fields";

/**
 * Converts Chat Completions usage to `UsageMetadata`: cached prompt tokens as
 * `input_token_details.cache_read`, audio tokens as `input_token_details.audio` and
 * `output_token_details.audio`, reasoning tokens as `output_token_details.reasoning`. A count the
 * server left out (or sent as something other than a number) is 0, and a missing total is the sum
 * of the other two, so a partial report never gives `NaN`.
 */
export function toUsageMetadata(usage: OpenAI.CompletionUsage): UsageMetadata {
  const input = countOf(usage.prompt_tokens);
  const output = countOf(usage.completion_tokens);
  const metadata: UsageMetadata = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: isCount(usage.total_tokens) ? usage.total_tokens : input + output,
  };
  const prompt = usage.prompt_tokens_details;
  if (prompt != null) {
    const input: NonNullable<UsageMetadata["input_token_details"]> = {};
    if (typeof prompt.cached_tokens === "number") input.cache_read = prompt.cached_tokens;
    if (typeof prompt.audio_tokens === "number") input.audio = prompt.audio_tokens;
    if (input.cache_read !== undefined || input.audio !== undefined) metadata.input_token_details = input;
  }
  const completion = usage.completion_tokens_details;
  if (completion != null) {
    const output: NonNullable<UsageMetadata["output_token_details"]> = {};
    if (typeof completion.reasoning_tokens === "number") output.reasoning = completion.reasoning_tokens;
    if (typeof completion.audio_tokens === "number") output.audio = completion.audio_tokens;
    if (output.reasoning !== undefined || output.audio !== undefined) metadata.output_token_details = output;
  }
  return metadata;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function countOf(value: unknown): number {
  return isCount(value) ? value : 0;
}

/**
 * The id for a tool call the server sent without one (the API needs it to pair the call with its
 * result): `call_<message id>_<n>`, `n` the call's position, with a random part in place of the
 * message id when there is none either.
 */
function madeUpToolCallId(messageId: string, position: number): string {
  return `call_${messageId}_${position}`;
}

function randomIdPart(): string {
  return Math.random().toString(36).slice(2, 12);
}

/** A tool call of a completion as it was sent, before its type is checked. */
interface WireToolCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: string; arguments?: unknown } | null;
  [key: string]: unknown;
}

/**
 * The text of a tool call's `arguments` as the server sent them: a string as it is; an object (as
 * some compatible servers, Ollama's among them, send the arguments) as its JSON; none as `""`.
 * Any other value (a number, an array, `null`) becomes its JSON too, which strict parsing then
 * reports as an invalid tool call ("must be a JSON object"), never a `TypeError`. In a streamed
 * delta (`delta: true`) `null` is no text: compatible servers send it beside a call's name.
 */
export function argumentsText(value: unknown, { delta = false }: { delta?: boolean } = {}): string {
  if (typeof value === "string") return value;
  if (value === undefined || (value === null && delta)) return "";
  return JSON.stringify(value) ?? "";
}

/**
 * Reads the tool calls of a completion: a call of type `"function"`, or without a type (some
 * compatible servers leave it out), as its raw id, name and arguments; a call of any other type
 * (a custom tool's) as an invalid tool call that says why. A call without an id gets one (see
 * {@link madeUpToolCallId}).
 */
function readWireToolCalls(
  calls: readonly WireToolCall[],
  messageId: string | undefined,
): { raw: { id: string; name?: string; args: string }[]; otherTypes: InvalidToolCall[] } {
  let idPart = messageId;
  const idAt = (call: WireToolCall, position: number): string => {
    if (typeof call.id === "string" && call.id) return call.id;
    idPart ??= randomIdPart();
    return madeUpToolCallId(idPart, position);
  };
  const raw: { id: string; name?: string; args: string }[] = [];
  const otherTypes: InvalidToolCall[] = [];
  calls.forEach((call, position) => {
    if (typeof call !== "object" || call === null) return;
    const id = idAt(call, position);
    if (call.type === undefined || call.type === null || call.type === "function") {
      raw.push({ id, ...(call.function?.name ? { name: call.function.name } : {}), args: argumentsText(call.function?.arguments) });
      return;
    }
    const type = String(call.type);
    const body = (typeof call[type] === "object" && call[type] !== null ? call[type] : {}) as { name?: unknown; input?: unknown };
    otherTypes.push({
      id,
      ...(typeof body.name === "string" ? { name: body.name } : {}),
      args: typeof body.input === "string" ? body.input : "",
      error: `The tool call is of type ${JSON.stringify(type)}: only "function" tool calls are supported.`,
      type: "invalid_tool_call",
    });
  });
  return { raw, otherTypes };
}

/**
 * OpenAI's raw `additional_kwargs.tool_calls` for a message, set only when the message has a
 * valid tool call: `@langchain/core` prints a misleading "New LangChain packages are available"
 * warning for a message with raw tool calls and no parsed ones. The raw arguments of the invalid
 * calls are kept in `invalid_tool_calls[].args`.
 */
function rawToolCallsKwarg(raw: { id?: string; name?: string; args: string }[], valid: number) {
  if (!raw.length || !valid) return {};
  return {
    tool_calls: raw.map((call) => ({ id: call.id ?? "", type: "function" as const, function: { name: call.name ?? "", arguments: call.args } })),
  };
}

/** Converts a non-streamed completion to an `AIMessage`. */
export function toAIMessage(completion: OpenAI.Chat.ChatCompletion): AIMessage {
  const choice = completion.choices[0];
  const message = choice?.message;
  const { raw, otherTypes } = readWireToolCalls((message?.tool_calls ?? []) as unknown as readonly WireToolCall[], completion.id || undefined);
  const { toolCalls, invalidToolCalls } = parseToolCalls(raw);
  return new AIMessage({
    content: message?.content ?? "",
    id: completion.id,
    tool_calls: toolCalls,
    invalid_tool_calls: [...invalidToolCalls, ...otherTypes],
    additional_kwargs: {
      ...rawToolCallsKwarg(raw, toolCalls.length),
      ...(message?.function_call ? { function_call: message.function_call } : {}),
      ...(message?.refusal ? { refusal: message.refusal } : {}),
      // The reasoning of a compatible server (DeepSeek's, OpenRouter's), to send back as it came.
      ...reasoningKwargs(message),
    },
    ...(completion.usage ? { usage_metadata: toUsageMetadata(completion.usage) } : {}),
    response_metadata: {
      model_provider: "openai",
      model_name: completion.model,
      finish_reason: choice?.finish_reason,
      ...(completion.system_fingerprint ? { system_fingerprint: completion.system_fingerprint } : {}),
    },
  });
}

/**
 * Per-stream state of the tool calls: for each index the server uses, the call streaming there
 * (its id and name, already sent, so repeats are not concatenated, and the index it is given).
 * Calls are numbered in the order they start, so a server that streams several calls at one index
 * (each with its own id, as some compatible servers do) gives each call an index of its own. A
 * call whose first delta has no id gets one made up (`call_<stream id>_<index>`, see
 * {@link madeUpToolCallId}), sent with that delta; an id the server sends for it later is ignored.
 * A delta without an `index` (which the wire format requires, and some compatible servers leave
 * out) continues the call the last delta was of, unless its id is a new one: then it starts a call.
 */
export class ToolCallHeaders {
  private readonly calls = new Map<number, ToolCallHeader>();
  private started = 0;
  private randomPart: string | undefined;
  /** The key in `calls` of the last delta's call. */
  private lastKey: number | undefined;

  /** The call a delta at the server's `index` belongs to: a new one when its `id` is new there. */
  callAt(index: number | undefined, id: string | undefined): ToolCallHeader {
    // Without an index: the last delta's call, or a key no server index is (negative).
    const key = Number.isInteger(index) ? (index as number) : (this.lastKey ?? -1);
    const seen = this.calls.get(key);
    if (seen !== undefined && !(id && seen.id && !seen.madeUpId && id !== seen.id)) {
      this.lastKey = key;
      return seen;
    }
    const call: ToolCallHeader = { index: this.started++ };
    const at = Number.isInteger(index) ? key : -call.index - 1;
    this.calls.set(at, call);
    this.lastKey = at;
    return call;
  }

  /** An id for the call at `index` of the stream `streamId` (a random part when the stream has none). */
  madeUpId(streamId: string | undefined, index: number): string {
    if (streamId) return madeUpToolCallId(streamId, index);
    this.randomPart ??= randomIdPart();
    return madeUpToolCallId(this.randomPart, index);
  }
}

/** What {@link ToolCallHeaders} keeps of a streamed call. */
interface ToolCallHeader {
  id?: string;
  /** Whether `id` was made up, the server having sent none. */
  madeUpId?: boolean;
  name?: string;
  index: number;
}

/**
 * Converts one streamed chunk to an `AIMessageChunk`, or `undefined` when it carries nothing.
 * Tool-call deltas become `tool_call_chunks` keyed by index; the finish reason and model name ride
 * on the chunk that carries them. Only the first choice is read (as from a response that is not
 * streamed: with `n` > 1 the other choices' deltas would mix into it). Usage is left out: some
 * servers report it, cumulative, on every chunk, so the caller keeps the last report (see
 * {@link toUsageChunk}); so are `reasoning_details`, which `reasoning` assembles for the end of
 * the stream.
 */
export function toMessageChunk(
  chunk: OpenAI.Chat.ChatCompletionChunk,
  headers: ToolCallHeaders,
  reasoning: StreamReasoning,
): AIMessageChunk | undefined {
  const choice = chunk.choices.find((candidate) => (candidate.index ?? 0) === 0);
  const delta = choice?.delta;
  const content = delta?.content ?? "";
  const toolCallChunks: ToolCallChunk[] = (delta?.tool_calls ?? []).map((call) => {
    const seen = headers.callAt(call.index, call.id || undefined);
    // The id goes out once, with the call's first delta.
    let id: string | undefined;
    if (seen.id === undefined) {
      id = call.id || headers.madeUpId(chunk.id || undefined, seen.index);
      seen.id = id;
      seen.madeUpId = !call.id;
    }
    // The call's whole name so far (`@langchain/core` keeps a chunk's last name, not their sum): a
    // server that repeats the name on each delta, or sends it growing, has it whole; one that
    // splits it (`"wea"`, then `"ther"`) has its pieces joined.
    const piece = call.function?.name;
    let name: string | undefined;
    if (piece && piece !== seen.name) {
      name = seen.name === undefined || piece.startsWith(seen.name) ? piece : `${seen.name}${piece}`;
      seen.name = name;
    }
    return {
      type: "tool_call_chunk",
      index: seen.index,
      ...(id ? { id } : {}),
      ...(name ? { name } : {}),
      args: argumentsText(call.function?.arguments, { delta: true }),
    };
  });
  const functionCall = delta?.function_call;
  const refusal = delta?.refusal ?? undefined;
  const finishReason = choice?.finish_reason ?? undefined;
  reasoning.addDetails(delta);
  // Reasoning deltas concatenate when chunks are merged, as in a non-streamed response.
  const reasoningText = reasoning.textKwargs(delta);
  if (!content && !toolCallChunks.length && !functionCall && !refusal && !reasoningText.reasoning_content && !finishReason) return undefined;
  return new AIMessageChunk({
    content,
    id: chunk.id,
    tool_call_chunks: toolCallChunks,
    additional_kwargs: {
      ...(functionCall ? { function_call: { name: functionCall.name ?? "", arguments: functionCall.arguments ?? "" } } : {}),
      // Refusal deltas concatenate when chunks are merged, as in a non-streamed response.
      ...(refusal ? { refusal } : {}),
      ...reasoningText,
    },
    response_metadata: finishReason
      ? {
          model_provider: "openai",
          model_name: chunk.model,
          finish_reason: finishReason,
          ...(chunk.system_fingerprint ? { system_fingerprint: chunk.system_fingerprint } : {}),
        }
      : {},
  });
}

/** The chunk that ends a stream with its usage: the last report the server sent (a total, not a delta). */
export function toUsageChunk(id: string | undefined, usage: OpenAI.CompletionUsage): AIMessageChunk {
  return new AIMessageChunk({ content: "", ...(id ? { id } : {}), usage_metadata: toUsageMetadata(usage) });
}

/** The chunk that carries a stream's assembled `reasoning_details` (see {@link StreamReasoning}), once, at its end. */
export function toReasoningDetailsChunk(id: string | undefined, details: unknown[]): AIMessageChunk {
  return new AIMessageChunk({ content: "", ...(id ? { id } : {}), additional_kwargs: { reasoning_details: details } });
}

/** Turns an aggregate of streamed chunks into the final `AIMessage`, parsing tool calls strictly. */
export function fromAggregate(chunk: AIMessageChunk): AIMessage {
  const { raw, toolCalls, invalidToolCalls } = assembleToolCalls(chunk.tool_call_chunks ?? []);
  return new AIMessage({
    content: chunk.content,
    id: chunk.id,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    additional_kwargs: { ...chunk.additional_kwargs, ...rawToolCallsKwarg(raw, toolCalls.length) },
    ...(chunk.usage_metadata ? { usage_metadata: chunk.usage_metadata } : {}),
    response_metadata: chunk.response_metadata ?? {},
  });
}
