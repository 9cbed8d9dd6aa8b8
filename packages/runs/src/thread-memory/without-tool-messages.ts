import { AIMessage, type BaseMessage } from "@langchain/core/messages";

/** Content blocks that carry a tool call rather than text (Anthropic's `tool_use`, and the like). */
const CALL_BLOCKS = new Set(["tool_use", "tool_call", "function_call", "server_tool_use"]);

function hasToolCalls(message: AIMessage): boolean {
  const kwargs = message.additional_kwargs ?? {};
  return (message.tool_calls?.length ?? 0) > 0 || (message.invalid_tool_calls?.length ?? 0) > 0 || kwargs.tool_calls !== undefined || kwargs.function_call !== undefined;
}

/** The AI message without its tool calls, or `undefined` when it has no text besides them. */
function textOnly(message: AIMessage): AIMessage | undefined {
  if (message.text.trim() === "") return undefined;
  const { tool_calls: _calls, function_call: _function, ...additional_kwargs } = message.additional_kwargs ?? {};
  const content =
    typeof message.content === "string"
      ? message.content
      : message.content.filter((block) => !(typeof block === "object" && block !== null && CALL_BLOCKS.has((block as { type?: string }).type ?? "")));
  return new AIMessage({
    content,
    additional_kwargs,
    response_metadata: message.response_metadata,
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.usage_metadata === undefined ? {} : { usage_metadata: message.usage_metadata }),
  });
}

/**
 * What `ThreadMemory` keeps of a run's messages when `includeToolMessages` is false: tool and
 * function results are dropped, AI messages that only call tools are dropped, and AI messages that
 * say something and call tools keep what they say, without the calls. User input, system messages
 * and final answers stay as they are.
 */
export function withoutToolMessages(messages: readonly BaseMessage[]): BaseMessage[] {
  const kept: BaseMessage[] = [];
  for (const message of messages) {
    const type = message.type;
    if (type === "tool" || type === "function") continue;
    if (type === "ai" && hasToolCalls(message as AIMessage)) {
      const text = textOnly(message as AIMessage);
      if (text !== undefined) kept.push(text);
      continue;
    }
    kept.push(message);
  }
  return kept;
}
