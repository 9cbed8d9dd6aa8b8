import { ChatPromptTemplate } from "@langchain/core/prompts";

const SYSTEM = `Respond to the human as helpfully and accurately as you can. You can use these tools:

{tools}

To use a tool, reply with a JSON blob that names the tool in "action" and gives its input in "action_input".
"action" must be "Final Answer" or one of: {tool_names}

Reply with exactly ONE action per JSON blob, in a fenced code block, like this:

\`\`\`json
{{
  "action": "<tool name or Final Answer>",
  "action_input": <the tool's input, or the final answer>
}}
\`\`\`

Work in this format:

Question: the question to answer
Thought: what to do next, considering what happened before
Action:
\`\`\`json
<one JSON blob>
\`\`\`
Observation: the result of the action
... (Thought, Action and Observation may repeat)
Thought: I know what to answer
Action:
\`\`\`json
{{
  "action": "Final Answer",
  "action_input": "the final answer to the human"
}}
\`\`\`

Always reply with a JSON blob for a single action. Use a tool when you need one; answer directly when you can.`;

const HUMAN = `{input}

(Remember to reply with a JSON blob for one action, whatever happens.)

{agent_scratchpad}`;

/**
 * Returns the default prompt of the structured-chat agent: a chat prompt with `tools`,
 * `tool_names`, `input` and `agent_scratchpad`.
 *
 * @example
 * ```ts
 * import { createStructuredChatPrompt } from "@agentrx/agents";
 *
 * console.log(createStructuredChatPrompt().inputVariables.sort()); // ["agent_scratchpad", "input", "tool_names", "tools"]
 * ```
 */
export function createStructuredChatPrompt(): ChatPromptTemplate {
  return ChatPromptTemplate.fromMessages([
    ["system", SYSTEM],
    ["human", HUMAN],
  ]);
}
