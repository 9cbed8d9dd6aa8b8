import { PromptTemplate } from "@langchain/core/prompts";

/**
 * The ReAct format instructions (with the `tools` and `tool_names` variables): what the ReAct
 * agent's default prompt, and any prompt of your own for a text model, tells the model to write.
 *
 * @example
 * ```ts
 * import { REACT_FORMAT_INSTRUCTIONS } from "@agentrx/agents";
 *
 * console.log(REACT_FORMAT_INSTRUCTIONS.includes("Action Input:")); // true
 * ```
 */
export const REACT_FORMAT_INSTRUCTIONS = `You can use these tools:

{tools}

Work in this format:

Question: the question you must answer
Thought: what you should do next, and why
Action: the tool to use, exactly one of [{tool_names}]
Action Input: the input for the tool
Observation: the tool's result
... (Thought, Action, Action Input and Observation may repeat several times)
Thought: I now know the final answer
Final Answer: the final answer to the question`;

const TEMPLATE = `Answer the question below as well as you can. ${REACT_FORMAT_INSTRUCTIONS}

Question: {input}
Thought: {agent_scratchpad}`;

/**
 * Returns the default prompt of the ReAct agent: a text prompt with `tools`, `tool_names`,
 * `input` and `agent_scratchpad`.
 *
 * @example
 * ```ts
 * import { createReactPrompt } from "@agentrx/agents";
 *
 * console.log(createReactPrompt().inputVariables); // ["tools", "tool_names", "input", "agent_scratchpad"]
 * ```
 */
export function createReactPrompt(): PromptTemplate {
  return PromptTemplate.fromTemplate(TEMPLATE);
}
