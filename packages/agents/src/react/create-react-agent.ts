import type { AgentInput, AgentOutput } from "@agentrx/core";
import type { Runnable } from "@langchain/core/runnables";
import { formatLogToString } from "../format-scratchpad/format-log-to-string";
import { createTextAgent, type TextAgentOptions } from "../shared/create-text-agent";
import { renderTextDescription } from "../shared/render-tools";
import type { ValidationContext } from "../shared/validate-prompt";
import { ReActSingleInputOutputParser } from "./react-single-input-output-parser";

/** Options of {@link createReactAgent}. The default `stop` is `["\nObservation:"]`. */
export type CreateReactAgentOptions = TextAgentOptions;

/** The stop sequences bound to a ReAct agent's model by default. */
export const REACT_STOP_SEQUENCES: readonly string[] = ["\nObservation:"];

/**
 * Creates a text ReAct agent, for models without native tool calling. The prompt needs `tools`
 * (filled with `name: description` lines), `tool_names`, and `agent_scratchpad` (the steps so far
 * as text, see {@link formatLogToString}); the model stops at `\nObservation:` and its text is
 * parsed by {@link ReActSingleInputOutputParser}, one action per turn.
 *
 * @example
 * ```ts
 * import { createReactAgent, createReactPrompt } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const search = tool(async ({ query }) => `Results for ${query}`, {
 *   name: "search",
 *   description: "Search the web.",
 *   schema: z.object({ query: z.string() }),
 * });
 * const agent = createReactAgent({
 *   llm: new ScriptedChatModel({ responses: ["Thought: I know it.\nFinal Answer: Paris"] }),
 *   tools: [search],
 *   prompt: createReactPrompt(),
 * });
 * console.log(await agent.invoke({ input: "Capital of France?", steps: [] }));
 * // { returnValues: { output: "Paris" }, log: "Thought: I know it.\nFinal Answer: Paris" }
 * ```
 */
export function createReactAgent(options: CreateReactAgentOptions): Runnable<AgentInput, AgentOutput> {
  return reactAgentFor(options, { constructorName: "createReactAgent" });
}

/**
 * {@link createReactAgent} for a function that builds it for its user (`createAgentForModel`):
 * its errors name `caller.constructorName`, the function the user called, and
 * `caller.promptArgument`, where that user passed the prompt.
 *
 * @internal
 */
export function reactAgentFor(options: CreateReactAgentOptions, caller: Pick<ValidationContext, "constructorName" | "promptArgument">): Runnable<AgentInput, AgentOutput> {
  return createTextAgent(options, {
    ...caller,
    agentType: "react",
    runName: "ReactAgent",
    requiredVariables: ["tools", "tool_names", "agent_scratchpad"],
    hints: {
      tools: 'Add "{tools}" where the tool descriptions go.',
      tool_names: 'Add "{tool_names}" where the allowed tool names go.',
      agent_scratchpad: 'Add "{agent_scratchpad}" after the question, where the steps so far go.',
    },
    defaultStop: REACT_STOP_SEQUENCES,
    variables: (tools) => ({
      tools: renderTextDescription(tools),
      tool_names: tools.map((tool) => tool.name).join(", "),
    }),
    formatScratchpad: (steps) => formatLogToString(steps),
    parser: (tools) => new ReActSingleInputOutputParser({ toolNames: tools.map((tool) => tool.name) }),
  });
}
