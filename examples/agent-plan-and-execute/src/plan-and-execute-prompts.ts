import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";

const PLANNER_SYSTEM = `You plan how to answer a request. You will have these tools:

{tools}

Write a short numbered plan, one step per line, of at most {max_steps} steps. Each step says what to find out or
do, and with which tool if one is needed. Do not carry out the plan and do not answer the request.`;

/**
 * Returns the default planner prompt: a chat prompt with `tools`, `max_steps` and `input`.
 *
 * @example
 * ```ts
 * import { createPlannerPrompt } from "@agentrx-community/plan-and-execute";
 *
 * console.log(createPlannerPrompt().inputVariables.sort()); // ["input", "max_steps", "tools"]
 * ```
 */
export function createPlannerPrompt(): ChatPromptTemplate {
  return ChatPromptTemplate.fromMessages([
    ["system", PLANNER_SYSTEM],
    ["human", "{input}"],
  ]);
}

/**
 * Returns the default executor prompt: a chat prompt with `input` and the `agent_scratchpad`
 * placeholder, where the plan appears as the assistant's first message.
 *
 * @example
 * ```ts
 * import { createExecutorPrompt } from "@agentrx-community/plan-and-execute";
 *
 * console.log(createExecutorPrompt().inputVariables); // ["input", "agent_scratchpad"]
 * ```
 */
export function createExecutorPrompt(): ChatPromptTemplate {
  return ChatPromptTemplate.fromMessages([
    [
      "system",
      "You carry out a plan step by step with the tools you have. Follow the plan you wrote, adapt it when a " +
        "result calls for it, and when every step is done answer the request in plain text.",
    ],
    new MessagesPlaceholder({ variableName: "chat_history", optional: true }),
    ["human", "{input}"],
    new MessagesPlaceholder("agent_scratchpad"),
  ]);
}
