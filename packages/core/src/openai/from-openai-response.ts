import {
  AIMessage,
  AIMessageChunk,
  type ToolCallChunk,
  type UsageMetadata,
} from "@langchain/core/messages";
import type OpenAI from "openai";
import { assembleToolCalls, parseToolCalls } from "../messages/strict-tool-calls";

/**
 * Converts Chat Completions usage to `UsageMetadata`: cached prompt tokens as
 * `input_token_details.cache_read`, audio tokens as `input_token_details.audio` and
 * `output_token_details.audio`, reasoning tokens as `output_token_details.reasoning`.
 */
export function toUsageMetadata(usage: OpenAI.CompletionUsage): UsageMetadata {
  const metadata: UsageMetadata = {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
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

/**
 * The reasoning a compatible server sends beside the content (`reasoning_content` from DeepSeek
 * and vLLM, `reasoning` from OpenRouter), or `undefined`.
 */
function reasoningOf(message: unknown): string | undefined {
  const { reasoning_content: content, reasoning } = (message ?? {}) as { reasoning_content?: unknown; reasoning?: unknown };
  const text = typeof content === "string" ? content : typeof reasoning === "string" ? reasoning : undefined;
  return text ? text : undefined;
}

/** Converts a non-streamed completion to an `AIMessage`. */
export function toAIMessage(completion: OpenAI.Chat.ChatCompletion): AIMessage {
  const choice = completion.choices[0];
  const message = choice?.message;
  const rawToolCalls = (message?.tool_calls ?? []).flatMap((call) =>
    call.type === "function" ? [{ id: call.id, name: call.function.name, args: call.function.arguments }] : [],
  );
  const { toolCalls, invalidToolCalls } = parseToolCalls(rawToolCalls);
  return new AIMessage({
    content: message?.content ?? "",
    id: completion.id,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    additional_kwargs: {
      ...(rawToolCalls.length
        ? {
            tool_calls: rawToolCalls.map((call) => ({
              id: call.id,
              type: "function" as const,
              function: { name: call.name, arguments: call.args },
            })),
          }
        : {}),
      ...(message?.function_call ? { function_call: message.function_call } : {}),
      ...(message?.refusal ? { refusal: message.refusal } : {}),
      ...(reasoningOf(message) !== undefined ? { reasoning_content: reasoningOf(message) } : {}),
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
 * (each with its own id, as some compatible servers do) gives each call an index of its own.
 */
export class ToolCallHeaders {
  private readonly calls = new Map<number, { id?: string; name?: string; index: number }>();
  private started = 0;

  /** The call a delta at the server's `index` belongs to: a new one when its `id` is new there. */
  callAt(index: number, id: string | undefined): { id?: string; name?: string; index: number } {
    const seen = this.calls.get(index);
    if (seen !== undefined && !(id && seen.id && id !== seen.id)) return seen;
    const call = { index: this.started++ };
    this.calls.set(index, call);
    return call;
  }
}

/**
 * Converts one streamed chunk to an `AIMessageChunk`, or `undefined` when it carries nothing.
 * Tool-call deltas become `tool_call_chunks` keyed by index; the finish reason and model name ride
 * on the chunk that carries them. Only the first choice is read (as from a response that is not
 * streamed: with `n` > 1 the other choices' deltas would mix into it). Usage is left out: some
 * servers report it, cumulative, on every chunk, so the caller keeps the last report (see
 * {@link toUsageChunk}).
 */
export function toMessageChunk(chunk: OpenAI.Chat.ChatCompletionChunk, headers: ToolCallHeaders): AIMessageChunk | undefined {
  const choice = chunk.choices.find((candidate) => (candidate.index ?? 0) === 0);
  const delta = choice?.delta;
  const content = delta?.content ?? "";
  const toolCallChunks: ToolCallChunk[] = (delta?.tool_calls ?? []).map((call) => {
    const seen = headers.callAt(call.index, call.id ?? undefined);
    const id = call.id && call.id !== seen.id ? call.id : undefined;
    const name = call.function?.name && call.function.name !== seen.name ? call.function.name : undefined;
    seen.id ??= id;
    seen.name ??= name;
    return {
      type: "tool_call_chunk",
      index: seen.index,
      ...(id ? { id } : {}),
      ...(name ? { name } : {}),
      args: call.function?.arguments ?? "",
    };
  });
  const functionCall = delta?.function_call;
  const refusal = delta?.refusal ?? undefined;
  const finishReason = choice?.finish_reason ?? undefined;
  const reasoning = reasoningOf(delta);
  if (!content && !toolCallChunks.length && !functionCall && !refusal && !reasoning && !finishReason) return undefined;
  return new AIMessageChunk({
    content,
    id: chunk.id,
    tool_call_chunks: toolCallChunks,
    additional_kwargs: {
      ...(functionCall ? { function_call: { name: functionCall.name ?? "", arguments: functionCall.arguments ?? "" } } : {}),
      // Refusal deltas concatenate when chunks are merged, as in a non-streamed response.
      ...(refusal ? { refusal } : {}),
      // So do reasoning deltas.
      ...(reasoning ? { reasoning_content: reasoning } : {}),
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

/** Turns an aggregate of streamed chunks into the final `AIMessage`, parsing tool calls strictly. */
export function fromAggregate(chunk: AIMessageChunk): AIMessage {
  const { raw, toolCalls, invalidToolCalls } = assembleToolCalls(chunk.tool_call_chunks ?? []);
  return new AIMessage({
    content: chunk.content,
    id: chunk.id,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    additional_kwargs: {
      ...chunk.additional_kwargs,
      ...(raw.length
        ? {
            tool_calls: raw.map((call) => ({
              id: call.id ?? "",
              type: "function" as const,
              function: { name: call.name ?? "", arguments: call.args },
            })),
          }
        : {}),
    },
    ...(chunk.usage_metadata ? { usage_metadata: chunk.usage_metadata } : {}),
    response_metadata: chunk.response_metadata ?? {},
  });
}
