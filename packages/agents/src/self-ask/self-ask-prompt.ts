import { PromptTemplate } from "@langchain/core/prompts";

const TEMPLATE = `Question: Which was founded first, the University of Bologna or the University of Oxford?
Are follow up questions needed here: Yes.
Follow up: When was the University of Bologna founded?
Intermediate answer: The University of Bologna was founded in 1088.
Follow up: When was the University of Oxford founded?
Intermediate answer: Teaching at Oxford existed by 1096.
So the final answer is: the University of Bologna

Question: Who was the father of the composer of the Brandenburg Concertos?
Are follow up questions needed here: Yes.
Follow up: Who composed the Brandenburg Concertos?
Intermediate answer: Johann Sebastian Bach.
Follow up: Who was the father of Johann Sebastian Bach?
Intermediate answer: Johann Ambrosius Bach.
So the final answer is: Johann Ambrosius Bach

Question: {input}
Are follow up questions needed here:{agent_scratchpad}`;

/**
 * Returns the default prompt of the self-ask-with-search agent: a few-shot text prompt with
 * `input` and `agent_scratchpad`.
 *
 * @example
 * ```ts
 * import { createSelfAskPrompt } from "@agentrx/agents";
 *
 * console.log(createSelfAskPrompt().inputVariables); // ["input", "agent_scratchpad"]
 * ```
 */
export function createSelfAskPrompt(): PromptTemplate {
  return PromptTemplate.fromTemplate(TEMPLATE);
}
