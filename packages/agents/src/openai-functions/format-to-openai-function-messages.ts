import { isMessageStep, type AgentStep } from "@agentrx/core";
import { AIMessage, FunctionMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { observationText } from "../shared/observation-text";
import { toolResultMessage } from "../tool-calling/format-to-tool-messages";

/**
 * Formats the steps of a function-calling agent as chat messages for its `agent_scratchpad`:
 * each action's `messageLog` (the model's message), then its observation as a `ToolMessage`
 * named after the tool in `name` and `additional_kwargs.name` (when the action has a `toolCallId`) or a legacy `FunctionMessage`. An action without a message
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
  for (const step of steps) {
    const { action, observation } = step;
    if (isMessageStep(step)) {
      messages.push(new HumanMessage({ content: observation as HumanMessage["content"] }));
      continue;
    }
    const { messageLog, toolCallId } = action as { messageLog?: unknown; toolCallId?: unknown };
    const content = observationText(observation);
    if (Array.isArray(messageLog)) {
      messages.push(...(messageLog as BaseMessage[]));
      messages.push(
        typeof toolCallId === "string"
          ? toolResultMessage(toolCallId, action.tool, content)
          : new FunctionMessage({ content, name: action.tool }),
      );
    } else {
      messages.push(new AIMessage(action.log), new HumanMessage(content));
    }
  }
  return messages;
}
