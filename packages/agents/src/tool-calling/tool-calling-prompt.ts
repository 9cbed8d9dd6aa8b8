import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";

/**
 * Returns the default prompt of the tool-calling (and OpenAI functions) agent: a system message,
 * an optional `chat_history` placeholder, the human `input`, and the `agent_scratchpad`
 * placeholder.
 *
 * @example
 * ```ts
 * import { createToolCallingPrompt } from "@agentrx/agents";
 *
 * console.log(createToolCallingPrompt().inputVariables); // ["input", "agent_scratchpad"]
 * ```
 */
export function createToolCallingPrompt(
  system = "You are a helpful assistant. Use the tools when they help you answer.",
): ChatPromptTemplate {
  return ChatPromptTemplate.fromMessages([
    ["system", system],
    new MessagesPlaceholder({ variableName: "chat_history", optional: true }),
    ["human", "{input}"],
    new MessagesPlaceholder("agent_scratchpad"),
  ]);
}
