import { InvalidArgumentError, type AgentInput, type AgentOutput } from "@agentrx/core";
import type { Runnable } from "@langchain/core/runnables";
import { formatLogToString } from "../format-scratchpad/format-log-to-string";
import { createTextAgent, type TextAgentOptions } from "../shared/create-text-agent";
import { INTERMEDIATE_ANSWER_TOOL, SelfAskOutputParser } from "./self-ask-output-parser";

/**
 * Options of {@link createSelfAskWithSearchAgent}: `tools` must be exactly one tool named
 * `Intermediate Answer`. The default `stop` is `["\nIntermediate answer:"]`.
 */
export type CreateSelfAskWithSearchAgentOptions = TextAgentOptions;

/** The stop sequences bound to a self-ask agent's model by default. */
export const SELF_ASK_STOP_SEQUENCES: readonly string[] = ["\nIntermediate answer:"];

/**
 * Creates a self-ask-with-search agent: the model breaks a question into follow-up questions
 * (`Follow up: ...`), each answered by the one tool, named `Intermediate Answer` (usually a
 * search tool), until it writes `So the final answer is: ...`. The prompt needs
 * `agent_scratchpad` (the steps so far as text, with `Intermediate answer:` before each
 * observation); the model stops at `\nIntermediate answer:`.
 *
 * @example
 * ```ts
 * import { createSelfAskPrompt, createSelfAskWithSearchAgent } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const search = tool(async (query) => `Answer to ${query}`, {
 *   name: "Intermediate Answer",
 *   description: "Search the web.",
 *   schema: z.string(),
 * });
 * const agent = createSelfAskWithSearchAgent({
 *   llm: new ScriptedChatModel({ responses: [" Yes.\nFollow up: Who founded Rome?"] }),
 *   tools: [search],
 *   prompt: createSelfAskPrompt(),
 * });
 * console.log(await agent.invoke({ input: "Who founded Rome?", steps: [] }));
 * // { tool: "Intermediate Answer", toolInput: "Who founded Rome?", log: "..." }
 * ```
 */
export function createSelfAskWithSearchAgent(options: CreateSelfAskWithSearchAgentOptions): Runnable<AgentInput, AgentOutput> {
  return createTextAgent(options, {
    agentType: "self-ask-with-search",
    constructorName: "createSelfAskWithSearchAgent",
    runName: "SelfAskWithSearchAgent",
    requiredVariables: ["agent_scratchpad"],
    hints: { agent_scratchpad: 'Add "{agent_scratchpad}" after the question, where the steps so far go.' },
    defaultStop: SELF_ASK_STOP_SEQUENCES,
    checkTools: (tools) => {
      if (tools.length !== 1 || tools[0]?.name !== INTERMEDIATE_ANSWER_TOOL) {
        throw new InvalidArgumentError({
          argument: "tools",
          value: tools,
          message:
            `createSelfAskWithSearchAgent: \`tools\` must be exactly one tool named "${INTERMEDIATE_ANSWER_TOOL}", ` +
            `got [${tools.map((tool) => JSON.stringify(tool.name)).join(", ")}]. Rename your search tool to "${INTERMEDIATE_ANSWER_TOOL}".`,
        });
      }
    },
    variables: () => ({}),
    formatScratchpad: (steps) => formatLogToString(steps, { observationPrefix: "\nIntermediate answer: ", llmPrefix: "" }),
    parser: () => new SelfAskOutputParser(),
  });
}
