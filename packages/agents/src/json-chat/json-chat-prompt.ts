import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";

const SYSTEM = `You are a helpful assistant. Answer the user's questions as well as you can, in a friendly,
accurate and concise way, and use the tools below whenever they help.`;

const HUMAN = `TOOLS
-----
You can ask for one of these tools to be used, to look up what helps you answer:

{tools}

HOW TO REPLY
------------
Always reply with a markdown code block holding ONE JSON blob, in one of two forms.

To use a tool ("action" must be one of: {tool_names}):

\`\`\`json
{{
  "action": "<tool name>",
  "action_input": "<the tool's input>"
}}
\`\`\`

To answer the user:

\`\`\`json
{{
  "action": "Final Answer",
  "action_input": "<your answer>"
}}
\`\`\`

THE USER'S INPUT
----------------
{input}`;

/**
 * The message that carries each tool's result in the JSON chat agent's scratchpad;
 * `{observation}` is replaced by it.
 */
export const JSON_CHAT_TOOL_RESPONSE = `TOOL RESPONSE:
--------------
{observation}

What is your reply to my last message? Use what the tools returned without naming the tools, and
reply with a markdown code block holding ONE JSON blob, as before, even for a plain answer.`;

/**
 * The message that carries a message sent to the run while it works (`executor.send`) in the JSON
 * chat agent's scratchpad, a user turn in the prompt's own style; `{message}` is replaced by it.
 */
export const JSON_CHAT_USER_MESSAGE = `THE USER'S NEW INPUT
--------------------
{message}

Take it into account. Reply with a markdown code block holding ONE JSON blob, as before.`;

/**
 * Returns the default prompt of the JSON chat agent: a system message, an optional
 * `chat_history` placeholder, the human message with `tools`, `tool_names` and `input`, and a
 * `MessagesPlaceholder("agent_scratchpad")`.
 *
 * @example
 * ```ts
 * import { createJsonChatPrompt } from "@agentrx/agents";
 *
 * console.log(createJsonChatPrompt().inputVariables.sort()); // ["agent_scratchpad", "input", "tool_names", "tools"]
 * ```
 */
export function createJsonChatPrompt(): ChatPromptTemplate {
  return ChatPromptTemplate.fromMessages([
    ["system", SYSTEM],
    new MessagesPlaceholder({ variableName: "chat_history", optional: true }),
    ["human", HUMAN],
    new MessagesPlaceholder("agent_scratchpad"),
  ]);
}
