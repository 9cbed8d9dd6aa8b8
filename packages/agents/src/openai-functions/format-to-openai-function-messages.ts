import type { AgentStep } from "@agentrx/core";
import { AIMessage, FunctionMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { observationText } from "../shared/observation-text";

/**
 * Formats the steps of a function-calling agent as chat messages for its `agent_scratchpad`:
 * each action's `messageLog` (the model's message), then its observation as a `ToolMessage`
 * (when the action has a `toolCallId`) or a legacy `FunctionMessage`. An action without a message
 * log (a handled parsing error) becomes an `AIMessage` with its log and a `HumanMessage` with its
 * observation.
 *
 * @example
 * ```ts
 * import { formatToOpenAIFunctionMessages } from "@agentrx/agents";
 * import { AIMessage } from "@langchain/core/messages";
 *
 * const message = new AIMessage({ content: "", additional_kwargs: { function_call: { name: "search", arguments: "{}" } } });
 * const messages = formatToOpenAIFunctionMessages([
 *   { action: { tool: "search", toolInput: {}, log: "", messageLog: [message] } as never, observation: "Sunny" },
 * ]);
 * console.log(messages.map((m) => m.getType())); // ["ai", "function"]
 * ```
 */
export function formatToOpenAIFunctionMessages(steps: readonly AgentStep[]): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (const { action, observation } of steps) {
    const { messageLog, toolCallId } = action as { messageLog?: unknown; toolCallId?: unknown };
    const content = observationText(observation);
    if (Array.isArray(messageLog)) {
      messages.push(...(messageLog as BaseMessage[]));
      messages.push(
        typeof toolCallId === "string"
          ? new ToolMessage({ tool_call_id: toolCallId, content, name: action.tool })
          : new FunctionMessage({ content, name: action.tool }),
      );
    } else {
      messages.push(new AIMessage(action.log), new HumanMessage(content));
    }
  }
  return messages;
}
