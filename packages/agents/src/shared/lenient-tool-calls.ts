import { strictToolCalls } from "@agentrx/core";
import type { BaseMessage, InvalidToolCall } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { parseLenientJson } from "./parse-lenient-json";

/** The tool calls of a message as the agents' parsers read them. */
export interface LenientToolCalls {
  toolCalls: ToolCall[];
  invalidToolCalls: InvalidToolCall[];
  /** Whether some of `toolCalls` were invalid tool calls of the message, recovered here. */
  recovered: boolean;
}

/**
 * The tool calls of a message, parsed strictly (see `strictToolCalls` in `@agentrx/core`: a
 * truncated streamed call stays invalid), except that arguments with raw control characters
 * (newlines, tabs) inside their strings, which some models write in multi-line arguments, are
 * accepted as LangChain Python accepts them, and empty arguments are `{}`. A recovered call moves from `invalidToolCalls` to
 * the end of `toolCalls`, and `recovered` is set, so the caller can rebuild the message it
 * sends back with the call in its `tool_calls`.
 */
export function lenientToolCalls(message: BaseMessage): LenientToolCalls {
  const { toolCalls, invalidToolCalls } = strictToolCalls(message);
  const valid = [...toolCalls];
  const invalid: InvalidToolCall[] = [];
  for (const call of invalidToolCalls) {
    const args = call.name ? lenientObject(call.args ?? "") : undefined;
    if (args && call.name) valid.push({ id: call.id, name: call.name, args, type: "tool_call" });
    else invalid.push(call);
  }
  return { toolCalls: valid, invalidToolCalls: invalid, recovered: valid.length > toolCalls.length };
}

function lenientObject(text: string): Record<string, unknown> | undefined {
  // OpenAI sends "" (or whitespace) for a function without arguments.
  if (text.trim() === "") return {};
  try {
    const value = parseLenientJson(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
