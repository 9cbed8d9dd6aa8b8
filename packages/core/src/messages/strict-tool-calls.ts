import type { BaseMessage, InvalidToolCall, ToolCallChunk } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";

/** Parses raw tool-call arguments strictly: an empty string is `{}`, anything but a JSON object is invalid. */
/** @internal */
export function parseToolCalls(
  raw: { id?: string | undefined; name?: string | undefined; args?: string | undefined }[],
): { toolCalls: ToolCall[]; invalidToolCalls: InvalidToolCall[] } {
  const toolCalls: ToolCall[] = [];
  const invalidToolCalls: InvalidToolCall[] = [];
  for (const { id, name, args = "" } of raw) {
    try {
      const parsed: unknown = args.trim() === "" ? {} : JSON.parse(args);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed) && name) {
        toolCalls.push({ id, name, args: parsed as Record<string, unknown>, type: "tool_call" });
        continue;
      }
      invalidToolCalls.push({
        id,
        name,
        args,
        error: name ? "Tool call arguments must be a JSON object." : "Tool call has no name.",
        type: "invalid_tool_call",
      });
    } catch (error) {
      invalidToolCalls.push({ id, name, args, error: (error as Error).message, type: "invalid_tool_call" });
    }
  }
  return { toolCalls, invalidToolCalls };
}

/**
 * Assembles streamed tool-call chunks (grouped by index) into tool calls, parsing the arguments
 * strictly. (`AIMessageChunk` itself parses them as partial JSON, which "repairs" truncated
 * arguments into valid-looking tool calls.) A chunk whose id differs from the id of the call
 * at its index starts a new call, as `AIMessageChunk` merges them: some servers stream every
 * call at index 0.
 */
export function assembleToolCalls(chunks: ToolCallChunk[]): {
  raw: { id?: string; name?: string; args: string }[];
  toolCalls: ToolCall[];
  invalidToolCalls: InvalidToolCall[];
} {
  const entries: { key: number; call: { id?: string; name?: string; args: string } }[] = [];
  const current = new Map<number, { id?: string; name?: string; args: string }>();
  for (const part of chunks) {
    const key = part.index ?? entries.length;
    let entry = part.index === undefined ? undefined : current.get(key);
    if (entry === undefined || (part.id && entry.id && part.id !== entry.id)) {
      entry = { args: "" };
      entries.push({ key, call: entry });
      current.set(key, entry);
    }
    if (part.id) entry.id = part.id;
    if (part.name) entry.name = part.name;
    entry.args += part.args ?? "";
  }
  // A stable sort: calls that share an index stay in the order they came.
  const raw = entries.sort((a, b) => a.key - b.key).map(({ call }) => call);
  return { raw, ...parseToolCalls(raw) };
}

/**
 * The tool calls of a model message, with their arguments parsed strictly. A message assembled
 * from streamed chunks (an `AIMessageChunk` with `tool_call_chunks`) has its tool calls rebuilt
 * from those chunks: `@langchain/core` parses streamed arguments as partial JSON, which turns a
 * truncated `{"query": "Par` into a valid-looking `{ query: "Par" }`; here such arguments are an
 * invalid tool call instead. Any other message's `tool_calls` and `invalid_tool_calls` are
 * returned as they are. Output parsers use this so that a broken tool call is reported to the
 * model whether or not the response was streamed.
 *
 * @example
 * ```ts
 * import { strictToolCalls } from "@agentrx/core";
 * import { AIMessageChunk } from "@langchain/core/messages";
 *
 * const message = new AIMessageChunk({
 *   content: "",
 *   tool_call_chunks: [{ type: "tool_call_chunk", index: 0, id: "call_1", name: "search", args: '{"query": "Par' }],
 * });
 * const { toolCalls, invalidToolCalls } = strictToolCalls(message);
 * console.log(toolCalls.length, invalidToolCalls[0]?.name); // 0 "search"
 * ```
 */
export function strictToolCalls(message: BaseMessage): {
  toolCalls: ToolCall[];
  invalidToolCalls: InvalidToolCall[];
} {
  const source = message as { tool_calls?: ToolCall[]; invalid_tool_calls?: InvalidToolCall[]; tool_call_chunks?: ToolCallChunk[] };
  if (source.tool_call_chunks?.length) {
    const { toolCalls, invalidToolCalls } = assembleToolCalls(source.tool_call_chunks);
    return { toolCalls, invalidToolCalls };
  }
  return { toolCalls: source.tool_calls ?? [], invalidToolCalls: source.invalid_tool_calls ?? [] };
}
