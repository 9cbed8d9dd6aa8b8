// The script of a ScriptedChatModel: what a response may be, what each call records, and how a
// scripted response becomes an AIMessage and its streamed chunks.
import type { BindToolsInput, ToolChoice } from "@langchain/core/language_models/chat_models";
import {
  AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  type InvalidToolCall,
  type MessageContent,
  type ToolCallChunk,
  type UsageMetadata,
} from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { stringifyJson } from "../internal/stringify-json";
import { strictToolCalls } from "../messages/strict-tool-calls";

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
  /**
   * Latency before this response, in milliseconds, overriding the model's `latencyMs`: any number
   * >= 0, `Infinity` (this call never answers until it is aborted) included, as there.
   */
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
 * on cue, once: it is not retried, whatever `maxRetries` says), or a function of the messages
 * received that returns any of these.
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

/** @internal */
export function toolName(tool: BindToolsInput): string {
  const candidate = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof candidate.name === "string") return candidate.name;
  if (typeof candidate.function?.name === "string") return candidate.function.name;
  return "<unnamed>";
}

/**
 * Whether `value` is a latency a script may give: a number of milliseconds >= 0, `Infinity`
 * (a model that never answers until the call is aborted) included.
 *
 * @internal
 */
export function isLatency(value: unknown): value is number {
  return typeof value === "number" && value >= 0;
}

/** What {@link isLatency} asks for, as an error message says it. @internal */
export const LATENCY_EXPECTED = "must be a number of milliseconds >= 0 (Infinity: wait until the call is aborted)";

const MESSAGE_KEYS = ["content", "toolCalls", "usage", "latencyMs"];
const TOOL_CALL_KEYS = ["name", "args", "id"];
const USAGE_KEYS = ["inputTokens", "outputTokens"];
const ENTRY_KINDS = "text, a scripted message { content?, toolCalls?, usage?, latencyMs? }, an AIMessage, an Error or a function";

function shown(value: unknown): string {
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  return "an object";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What is wrong with a script entry that is not a function (`where` names it, as
 * `responses[2]`), or `undefined` when it is a valid response.
 *
 * @internal
 */
export function scriptedResponseProblem(entry: unknown, where: string): string | undefined {
  if (typeof entry === "string" || entry instanceof Error || entry instanceof AIMessage || AIMessage.isInstance?.(entry)) return undefined;
  if (!isPlainObject(entry)) return `${where} must be ${ENTRY_KINDS}, got ${shown(entry)}.`;
  const unknown = Object.keys(entry).find((key) => !MESSAGE_KEYS.includes(key));
  if (unknown !== undefined) return `${where} has an unknown key \`${unknown}\`; a scripted message has ${MESSAGE_KEYS.join(", ")}.`;
  const { content, toolCalls, usage, latencyMs } = entry;
  if (content !== undefined && typeof content !== "string" && !Array.isArray(content)) {
    return `${where}.content must be text or an array of content blocks, got ${shown(content)}.`;
  }
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls)) return `${where}.toolCalls must be an array of { name, args?, id? }, got ${shown(toolCalls)}.`;
    for (const [position, call] of toolCalls.entries()) {
      const at = `${where}.toolCalls[${position}]`;
      if (!isPlainObject(call)) return `${at} must be an object { name, args?, id? }, got ${shown(call)}.`;
      const extra = Object.keys(call).find((key) => !TOOL_CALL_KEYS.includes(key));
      if (extra !== undefined) return `${at} has an unknown key \`${extra}\`; a scripted tool call has ${TOOL_CALL_KEYS.join(", ")}.`;
      if (typeof call["name"] !== "string" || call["name"] === "") return `${at}.name must be a non-empty string, got ${shown(call["name"])}.`;
      const args = call["args"];
      if (args !== undefined && typeof args !== "string" && !isPlainObject(args)) {
        return `${at}.args must be an object, or raw argument text (a string) to script broken arguments, got ${shown(args)}.`;
      }
      // An empty id is allowed: it scripts a model that streams its tool calls without ids.
      if (call["id"] !== undefined && typeof call["id"] !== "string") return `${at}.id must be a string, got ${shown(call["id"])}.`;
    }
  }
  if (usage !== undefined) {
    if (!isPlainObject(usage)) return `${where}.usage must be an object { inputTokens, outputTokens }, got ${shown(usage)}.`;
    const extra = Object.keys(usage).find((key) => !USAGE_KEYS.includes(key));
    if (extra !== undefined) return `${where}.usage has an unknown key \`${extra}\`; a scripted usage has ${USAGE_KEYS.join(", ")} (script an AIMessage with usage_metadata for cache, reasoning or audio details).`;
    for (const key of USAGE_KEYS) {
      const value = usage[key];
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return `${where}.usage.${key} must be a number >= 0, got ${shown(value)}.`;
    }
  }
  if (latencyMs !== undefined && !isLatency(latencyMs)) return `${where}.latencyMs ${LATENCY_EXPECTED}, got ${shown(latencyMs)}.`;
  return undefined;
}

/**
 * A scripted message, with what a scripted `AIMessage` carries beyond it: its `additional_kwargs`
 * (reasoning), `response_metadata` and whole usage (cache and reasoning details), replayed as they
 * are.
 *
 * @internal
 */
export interface PreparedScriptedMessage extends ScriptedMessage {
  additionalKwargs?: Record<string, unknown>;
  responseMetadata?: Record<string, unknown>;
  usageMetadata?: UsageMetadata;
}

/** @internal */
export function toScriptedMessage(entry: Exclude<ScriptedResponse, Function | Error>): PreparedScriptedMessage {
  if (typeof entry === "string") return { content: entry };
  if (entry instanceof AIMessage || AIMessage.isInstance?.(entry)) {
    const message = entry as AIMessage;
    return {
      content: message.content,
      toolCalls: [
        ...(message.tool_calls ?? []).map((call) => ({
          name: call.name,
          args: call.args,
          ...(call.id ? { id: call.id } : {}),
        })),
        ...(message.invalid_tool_calls ?? []).map((call) => ({
          name: call.name ?? "",
          args: call.args ?? "",
          ...(call.id ? { id: call.id } : {}),
        })),
      ],
      ...(message.usage_metadata ? { usageMetadata: message.usage_metadata } : {}),
      additionalKwargs: message.additional_kwargs ?? {},
      responseMetadata: message.response_metadata ?? {},
    };
  }
  return entry;
}

/** @internal */
export function buildMessage(
  scripted: PreparedScriptedMessage,
  index: number,
  stop: string[] | undefined,
  estimate?: (text: string, calls: number) => UsageMetadata,
): AIMessage {
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
  const usage: UsageMetadata | undefined = scripted.usageMetadata
    ? { ...scripted.usageMetadata }
    : scripted.usage
    ? {
        input_tokens: scripted.usage.inputTokens,
        output_tokens: scripted.usage.outputTokens,
        total_tokens: scripted.usage.inputTokens + scripted.usage.outputTokens,
      }
    : // Estimated usage goes into the constructor too: a message's serialised form (what a run's
      // record keeps) holds only what it was constructed with.
      estimate?.(typeof content === "string" ? content : "", toolCalls.length + invalidToolCalls.length);
  return new AIMessage({
    content,
    id: `scripted-${index}`,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    additional_kwargs: { ...scripted.additionalKwargs },
    ...(usage ? { usage_metadata: usage } : {}),
    response_metadata: { finish_reason: toolCalls.length || invalidToolCalls.length ? "tool_calls" : "stop", ...scripted.responseMetadata },
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

/** @internal */
export function splitText(text: string, chunkSize: "word" | number): string[] {
  if (!text) return [];
  if (chunkSize === "word") return text.match(WORD) ?? [text];
  const tokens: string[] = [];
  for (let at = 0; at < text.length; at += chunkSize) tokens.push(text.slice(at, at + chunkSize));
  return tokens;
}

/** @internal */
export function toToolCallChunks(message: AIMessage, size: number): ToolCallChunk[] {
  const chunks: ToolCallChunk[] = [];
  const all = [
    // Arguments of any depth: a test may script ones nested thousands of levels deep.
    ...(message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, text: stringifyJson(call.args) ?? "{}" })),
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

/** @internal */
export function estimateUsage(messages: BaseMessage[], output: number): UsageMetadata {
  let input = 0;
  // A string's words directly: `text` would build and translate the message's content blocks.
  for (const received of messages) input += countWords(typeof received.content === "string" ? received.content : received.text);
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

/** @internal */
export function toAIMessage(chunk: AIMessageChunk | { content: MessageContent }): AIMessage {
  const source = chunk as AIMessageChunk;
  // Parse the streamed arguments strictly, as the non-streamed path does.
  const { toolCalls, invalidToolCalls } = strictToolCalls(source);
  return new AIMessage({
    content: source.content,
    id: source.id,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    additional_kwargs: source.additional_kwargs ?? {},
    ...(source.usage_metadata ? { usage_metadata: source.usage_metadata } : {}),
    response_metadata: source.response_metadata ?? {},
  });
}
