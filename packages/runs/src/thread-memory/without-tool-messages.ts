import { withoutUnansweredOutput } from "@agentrx/core";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";

/** Content blocks that carry a tool call rather than text (Anthropic's `tool_use`, and the like). */
const CALL_BLOCKS = new Set(["tool_use", "tool_call", "function_call", "server_tool_use"]);

/** Whether the message calls tools: in `tool_calls`, in `additional_kwargs`, or as content blocks alone (a message built by hand). */
function hasToolCalls(message: AIMessage): boolean {
  const kwargs = message.additional_kwargs ?? {};
  if ((message.tool_calls?.length ?? 0) > 0 || (message.invalid_tool_calls?.length ?? 0) > 0 || kwargs.tool_calls !== undefined || kwargs.function_call !== undefined) return true;
  return Array.isArray(message.content) && message.content.some((block) => typeof block === "object" && block !== null && CALL_BLOCKS.has((block as { type?: string }).type ?? ""));
}

/**
 * What `@langchain/openai` keeps in `additional_kwargs` about a message's calls: the reasoning that
 * led to them (sent back before them) and the Responses API's item id of each call.
 */
const CALL_KWARGS = ["tool_calls", "function_call", "reasoning", "__openai_function_call_ids__"];

/**
 * The AI message without its tool calls, or `undefined` when it has no text besides them. The
 * calls leave every place a provider keeps them, the Responses API's output items in
 * `response_metadata` included (`@langchain/openai` sends those back as they are, and OpenAI
 * refuses a call without its result).
 */
function textOnly(message: AIMessage): AIMessage | undefined {
  if (message.text.trim() === "") return undefined;
  const additional_kwargs = Object.fromEntries(Object.entries(message.additional_kwargs ?? {}).filter(([key]) => !CALL_KWARGS.includes(key)));
  const content =
    typeof message.content === "string"
      ? message.content
      : message.content.filter((block) => !(typeof block === "object" && block !== null && CALL_BLOCKS.has((block as { type?: string }).type ?? "")));
  return new AIMessage({
    content,
    additional_kwargs,
    response_metadata: withoutUnansweredOutput(message.response_metadata, () => false),
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
