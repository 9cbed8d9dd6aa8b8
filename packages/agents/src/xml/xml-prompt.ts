import { ChatPromptTemplate } from "@langchain/core/prompts";

const TEMPLATE = `You are a helpful assistant. You can use these tools:

{tools}

To use a tool, write its name in <tool></tool> tags and its input in <tool_input></tool_input> tags. The tool's
result comes back in <observation></observation> tags. For example, to look up the weather in Paris with a tool
named "search":

<tool>search</tool><tool_input>weather in Paris</tool_input>
<observation>18 degrees and sunny</observation>

When you know the answer, write it in <final_answer></final_answer> tags:

<final_answer>It is 18 degrees and sunny in Paris.</final_answer>

Question: {input}
{agent_scratchpad}`;

/**
 * Returns the default prompt of the XML agent: a chat prompt with `tools`, `input` and
 * `agent_scratchpad`.
 *
 * @example
 * ```ts
 * import { createXmlPrompt } from "@agentrx/agents";
 *
 * console.log(createXmlPrompt().inputVariables.sort()); // ["agent_scratchpad", "input", "tools"]
 * ```
 */
export function createXmlPrompt(): ChatPromptTemplate {
  return ChatPromptTemplate.fromMessages([["human", TEMPLATE]]);
}
