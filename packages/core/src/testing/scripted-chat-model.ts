import { collectChunks } from "../internal/collect-chunks";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
  type ToolChoice,
} from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  type InvalidToolCall,
  type MessageContent,
  type ToolCallChunk,
  type UsageMetadata,
} from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { strictToolCalls } from "../messages/strict-tool-calls";
import { ScriptExhaustedError } from "./script-exhausted-error";
import { sleep } from "./sleep";

/** A tool call in a scripted response. */
export interface ScriptedToolCall {
  /** The tool's name. */
  name: string;
  /**
   * The arguments: an object, or raw argument text (which may be invalid JSON, to test how an
   * agent handles a model that emits broken arguments).
   * @default {}
   */
  args?: Record<string, unknown> | string;
  /** The tool call's id. @default `call_<call index>_<tool call index>` */
  id?: string;
}

/** A scripted assistant message. */
export interface ScriptedMessage {
  /** Text (or content blocks) of the message. @default "" */
  content?: MessageContent;
  /** Tool calls the message makes. */
  toolCalls?: ScriptedToolCall[];
  /** Token usage to report. @default counted from the messages' words and the streamed tokens */
  usage?: { inputTokens: number; outputTokens: number };
  /** Latency before this response, overriding the model's `latencyMs`. */
  latencyMs?: number;
}

/** What the model records of each call it receives. */
export interface ScriptedCall {
  /** 0-based position of the call. */
  index: number;
  /** The messages the model received. */
  messages: BaseMessage[];
  /** The tools bound for this call (`[]` when called without tools). */
  tools: BindToolsInput[];
  /** The names of the bound tools. */
  toolNames: string[];
  /** The tool choice bound for this call, if any. */
  toolChoice: ToolChoice | undefined;
  /** The stop sequences of this call, if any. */
  stop: string[] | undefined;
  /** Whether the response was streamed chunk by chunk. */
  streamed: boolean;
}

/**
 * One entry of a script: text, a scripted message, an `AIMessage`, an `Error` to throw (failing
 * on cue), or a function of the messages received that returns any of these.
 */
export type ScriptedResponse =
  | string
  | ScriptedMessage
  | AIMessage
  | Error
  | ((
      messages: BaseMessage[],
      call: ScriptedCall,
    ) => Exclude<ScriptedResponse, Function> | Promise<Exclude<ScriptedResponse, Function>>);

/** Options of {@link ScriptedChatModel}. */
export interface ScriptedChatModelOptions extends BaseChatModelParams {
  /** The responses, played in order, one per call. */
  responses: ScriptedResponse[];
  /** Milliseconds to wait before each response (aborted by the call's signal). @default 0 */
  latencyMs?: number;
  /** Milliseconds to wait between streamed chunks. @default 0 */
  tokenDelayMs?: number;
  /**
   * How text is split into streamed tokens: `"word"` (a word with its trailing whitespace) or a
   * number of characters.
   * @default "word"
   */
  chunkSize?: "word" | number;
  /** Characters of tool-call argument JSON per streamed tool-call chunk. @default 8 */
  toolCallChunkSize?: number;
  /**
   * What happens when the script runs out: `"error"` throws a `ScriptExhaustedError`,
   * `"repeat-last"` plays the last response again, `"cycle"` starts over.
   * @default "error"
   */
  onExhausted?: "error" | "repeat-last" | "cycle";
  /**
   * Always stream (token chunks and `handleLLMNewToken` callbacks), even through `invoke`.
   * Without it the model streams only through `stream()` or when a callback handler asks for
   * streaming.
   * @default false
   */
  streaming?: boolean;
}

/** Call options of {@link ScriptedChatModel}. */
export interface ScriptedChatModelCallOptions extends BaseChatModelCallOptions {
  /** The tools bound with `bindTools`. */
  tools?: BindToolsInput[];
}

interface PreparedResponse {
  message: AIMessage;
  textTokens: string[];
  latencyMs: number;
}

/**
 * A `@langchain/core` chat model that plays a script, for testing agents without a network or an
 * API key. It streams text token by token and tool calls as tool-call chunks, supports
 * `bindTools` (recording the tools and tool choice of every call), waits a given latency, fails
 * on cue, honours stop sequences and records every call in {@link ScriptedChatModel.calls}.
 *
 * @example
 * ```ts
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const model = new ScriptedChatModel({
 *   responses: [
 *     { toolCalls: [{ name: "search", args: { query: "Paris weather" } }] },
 *     "It is sunny in Paris.",
 *   ],
 * });
 * const first = await model.invoke("What's the weather in Paris?");
 * console.log(first.tool_calls?.[0]?.name); // "search"
 * console.log(model.calls.length); // 1
 * ```
 */
export class ScriptedChatModel extends BaseChatModel<ScriptedChatModelCallOptions> {
  /** Every call received, in order. */
  readonly calls: ScriptedCall[] = [];

  private readonly responses: ScriptedResponse[];
  private readonly latencyMs: number;
  private readonly tokenDelayMs: number;
  private readonly chunkSize: "word" | number;
  private readonly toolCallChunkSize: number;
  private readonly onExhausted: "error" | "repeat-last" | "cycle";
  private readonly streaming: boolean;

  static override lc_name(): string {
    return "ScriptedChatModel";
  }

  constructor({
    responses,
    latencyMs = 0,
    tokenDelayMs = 0,
    chunkSize = "word",
    toolCallChunkSize = 8,
    onExhausted = "error",
    streaming = false,
    ...rest
  }: ScriptedChatModelOptions) {
    super(rest);
    if (!Array.isArray(responses)) {
      throw new InvalidArgumentError({
        argument: "responses",
        value: responses,
        message: "ScriptedChatModel: `responses` must be an array of scripted responses.",
      });
    }
    for (const [name, value] of [
      ["latencyMs", latencyMs],
      ["tokenDelayMs", tokenDelayMs],
    ] as const) {
      if (typeof value !== "number" || !(value >= 0)) {
        throw new InvalidArgumentError({
          argument: name,
          value,
          message: `ScriptedChatModel: \`${name}\` must be a number >= 0, got ${String(value)}.`,
        });
      }
    }
    if (chunkSize !== "word" && !(Number.isInteger(chunkSize) && chunkSize > 0)) {
      throw new InvalidArgumentError({
        argument: "chunkSize",
        value: chunkSize,
        message: `ScriptedChatModel: \`chunkSize\` must be "word" or a positive integer, got ${String(chunkSize)}.`,
      });
    }
    if (!(Number.isInteger(toolCallChunkSize) && toolCallChunkSize > 0)) {
      throw new InvalidArgumentError({
        argument: "toolCallChunkSize",
        value: toolCallChunkSize,
        message: `ScriptedChatModel: \`toolCallChunkSize\` must be a positive integer, got ${String(toolCallChunkSize)}.`,
      });
    }
    if (!["error", "repeat-last", "cycle"].includes(onExhausted)) {
      throw new InvalidArgumentError({
        argument: "onExhausted",
        value: onExhausted,
        message: `ScriptedChatModel: \`onExhausted\` must be "error", "repeat-last" or "cycle", got ${String(onExhausted)}.`,
      });
    }
    this.responses = [...responses];
    this.latencyMs = latencyMs;
    this.tokenDelayMs = tokenDelayMs;
    this.chunkSize = chunkSize;
    this.toolCallChunkSize = toolCallChunkSize;
    this.onExhausted = onExhausted;
    this.streaming = streaming;
  }

  _llmType(): string {
    return "scripted";
  }

  /** How many responses of the script have not been played yet. */
  get remaining(): number {
    return Math.max(0, this.responses.length - this.calls.length);
  }

  /**
   * Binds tools (and optionally a tool choice) to the model. Each call through the returned
   * runnable records the tools and tool choice in {@link ScriptedChatModel.calls}.
   */
  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<ScriptedChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ScriptedChatModelCallOptions> {
    return this.withConfig({ ...kwargs, tools } as Partial<ScriptedChatModelCallOptions>);
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    if (this.streaming) {
      const message = await collectChunks(this._streamResponseChunks(messages, options, runManager));
      return { generations: [{ text: message.text, message: toAIMessage(message) }] };
    }
    const prepared = await this.next(messages, options, false);
    await sleep(prepared.latencyMs, options.signal);
    return { generations: [{ text: prepared.message.text, message: prepared.message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { message, textTokens, latencyMs } = await this.next(messages, options, true);
    await sleep(latencyMs, options.signal);
    const delay = this.tokenDelayMs;
    let first = true;
    for (const token of textTokens) {
      if (!first && delay > 0) await sleep(delay, options.signal);
      first = false;
      options.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({
        text: token,
        message: new AIMessageChunk({ content: token, id: message.id }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken(token, { prompt: 0, completion: 0 }, undefined, undefined, undefined, { chunk });
    }
    if (typeof message.content !== "string" && message.content.length > 0) {
      // Content blocks are streamed whole, as one chunk.
      const chunk = new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({ content: message.content, id: message.id }),
      });
      yield chunk;
    }
    const toolChunks = toToolCallChunks(message, this.toolCallChunkSize);
    for (const toolCallChunk of toolChunks) {
      if (delay > 0) await sleep(delay, options.signal);
      options.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({ content: "", tool_call_chunks: [toolCallChunk], id: message.id }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken("", { prompt: 0, completion: 0 }, undefined, undefined, undefined, { chunk });
    }
    options.signal?.throwIfAborted();
    yield new ChatGenerationChunk({
      text: "",
      message: new AIMessageChunk({
        content: "",
        id: message.id,
        ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
        response_metadata: { finish_reason: message.tool_calls?.length ? "tool_calls" : "stop" },
      }),
    });
  }

  private async next(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    streamed: boolean,
  ): Promise<PreparedResponse> {
    const index = this.calls.length;
    const tools = options.tools ?? [];
    const call: ScriptedCall = {
      index,
      messages: [...messages],
      tools,
      toolNames: tools.map(toolName),
      toolChoice: options.tool_choice,
      stop: options.stop,
      streamed,
    };
    this.calls.push(call);
    let entry = this.responseAt(index);
    if (typeof entry === "function") entry = await entry(call.messages, call);
    if (entry instanceof Error) throw entry;
    const scripted = toScriptedMessage(entry);
    const message = buildMessage(scripted, index, options.stop);
    const text = typeof message.content === "string" ? message.content : "";
    const textTokens = splitText(text, this.chunkSize);
    if (!message.usage_metadata) {
      message.usage_metadata = estimateUsage(messages, textTokens.length, message);
    }
    return { message, textTokens, latencyMs: scripted.latencyMs ?? this.latencyMs };
  }

  private responseAt(index: number): ScriptedResponse {
    const count = this.responses.length;
    if (index < count) return this.responses[index] as ScriptedResponse;
    if (count > 0 && this.onExhausted === "repeat-last") return this.responses[count - 1] as ScriptedResponse;
    if (count > 0 && this.onExhausted === "cycle") return this.responses[index % count] as ScriptedResponse;
    throw new ScriptExhaustedError({ callIndex: index, scriptLength: count });
  }
}

function toolName(tool: BindToolsInput): string {
  const candidate = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof candidate.name === "string") return candidate.name;
  if (typeof candidate.function?.name === "string") return candidate.function.name;
  return "<unnamed>";
}

function toScriptedMessage(entry: Exclude<ScriptedResponse, Function | Error>): ScriptedMessage {
  if (typeof entry === "string") return { content: entry };
  if (entry instanceof AIMessage || AIMessage.isInstance?.(entry)) {
    const message = entry as AIMessage;
    return {
      content: message.content,
      toolCalls: (message.tool_calls ?? []).map((call) => ({
        name: call.name,
        args: call.args,
        ...(call.id ? { id: call.id } : {}),
      })),
      ...(message.usage_metadata
        ? {
            usage: {
              inputTokens: message.usage_metadata.input_tokens,
              outputTokens: message.usage_metadata.output_tokens,
            },
          }
        : {}),
    };
  }
  return entry;
}

function buildMessage(scripted: ScriptedMessage, index: number, stop: string[] | undefined): AIMessage {
  let content: MessageContent = scripted.content ?? "";
  if (typeof content === "string" && stop?.length) content = truncateAtStop(content, stop);
  const toolCalls: ToolCall[] = [];
  const invalidToolCalls: InvalidToolCall[] = [];
  (scripted.toolCalls ?? []).forEach((call, position) => {
    const id = call.id ?? `call_${index}_${position}`;
    if (typeof call.args === "string") {
      try {
        const parsed: unknown = JSON.parse(call.args);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
          toolCalls.push({ name: call.name, args: parsed as Record<string, unknown>, id, type: "tool_call" });
          return;
        }
        invalidToolCalls.push({ name: call.name, args: call.args, id, error: "Tool call arguments must be a JSON object.", type: "invalid_tool_call" });
      } catch (error) {
        invalidToolCalls.push({ name: call.name, args: call.args, id, error: (error as Error).message, type: "invalid_tool_call" });
      }
      return;
    }
    toolCalls.push({ name: call.name, args: call.args ?? {}, id, type: "tool_call" });
  });
  const usage: UsageMetadata | undefined = scripted.usage
    ? {
        input_tokens: scripted.usage.inputTokens,
        output_tokens: scripted.usage.outputTokens,
        total_tokens: scripted.usage.inputTokens + scripted.usage.outputTokens,
      }
    : undefined;
  return new AIMessage({
    content,
    id: `scripted-${index}`,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    ...(usage ? { usage_metadata: usage } : {}),
    response_metadata: { finish_reason: toolCalls.length || invalidToolCalls.length ? "tool_calls" : "stop" },
  });
}

function truncateAtStop(text: string, stop: string[]): string {
  let end = text.length;
  for (const sequence of stop) {
    if (!sequence) continue;
    const at = text.indexOf(sequence);
    if (at !== -1 && at < end) end = at;
  }
  return text.slice(0, end);
}

const WORD = /\s*\S+\s*|\s+/g;

function splitText(text: string, chunkSize: "word" | number): string[] {
  if (!text) return [];
  if (chunkSize === "word") return text.match(WORD) ?? [text];
  const tokens: string[] = [];
  for (let at = 0; at < text.length; at += chunkSize) tokens.push(text.slice(at, at + chunkSize));
  return tokens;
}

function toToolCallChunks(message: AIMessage, size: number): ToolCallChunk[] {
  const chunks: ToolCallChunk[] = [];
  const all = [
    ...(message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, text: JSON.stringify(call.args) })),
    ...(message.invalid_tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, text: call.args ?? "" })),
  ];
  all.forEach((call, index) => {
    const text = call.text;
    for (let at = 0; at === 0 || at < text.length; at += size) {
      chunks.push({
        type: "tool_call_chunk",
        index,
        ...(at === 0 ? { id: call.id, name: call.name } : {}),
        args: text.slice(at, at + size),
      });
      if (!text) break;
    }
  });
  return chunks;
}

function estimateUsage(messages: BaseMessage[], outputTokens: number, message: AIMessage): UsageMetadata {
  let input = 0;
  for (const received of messages) input += countWords(received.text);
  const output = outputTokens + (message.tool_calls?.length ?? 0) + (message.invalid_tool_calls?.length ?? 0);
  return { input_tokens: input, output_tokens: output, total_tokens: input + output };
}

function countWords(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = text.charCodeAt(i) <= 32;
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

function toAIMessage(chunk: AIMessageChunk | { content: MessageContent }): AIMessage {
  const source = chunk as AIMessageChunk;
  // Parse the streamed arguments strictly, as the non-streamed path does.
  const { toolCalls, invalidToolCalls } = strictToolCalls(source);
  return new AIMessage({
    content: source.content,
    id: source.id,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    ...(source.usage_metadata ? { usage_metadata: source.usage_metadata } : {}),
    response_metadata: source.response_metadata ?? {},
  });
}
