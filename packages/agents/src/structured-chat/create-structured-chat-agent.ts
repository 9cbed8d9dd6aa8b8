import type { AgentInput, AgentOutput } from "@agentrx/core";
import type { Runnable } from "@langchain/core/runnables";
import { formatLogToString } from "../format-scratchpad/format-log-to-string";
import { createTextAgent, type TextAgentOptions } from "../shared/create-text-agent";
import { renderTextDescriptionAndArgs } from "../shared/render-tools";
import { StructuredChatOutputParser } from "./structured-chat-output-parser";

/** Options of {@link createStructuredChatAgent}. The default `stop` is `["\nObservation"]`. */
export type CreateStructuredChatAgentOptions = TextAgentOptions;

/** The stop sequences bound to a structured-chat agent's model by default. */
export const STRUCTURED_CHAT_STOP_SEQUENCES: readonly string[] = ["\nObservation"];

/**
 * Creates a structured-chat agent: the model answers with a JSON blob
 * `{"action", "action_input"}` in a fenced code block, so tools can take several arguments
 * without native tool calling. The prompt needs `tools` (filled with each tool's description and
 * JSON-Schema arguments), `tool_names` and `agent_scratchpad` (the steps so far as text); the model
 * stops at `\nObservation` and its text is parsed by {@link StructuredChatOutputParser}.
 *
 * @example
 * ```ts
 * import { createStructuredChatAgent, createStructuredChatPrompt } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const add = tool(async ({ a, b }) => String(a + b), {
 *   name: "add",
 *   description: "Add two numbers.",
 *   schema: z.object({ a: z.number(), b: z.number() }),
 * });
 * const agent = createStructuredChatAgent({
 *   llm: new ScriptedChatModel({ responses: ['```json\n{"action": "add", "action_input": {"a": 2, "b": 3}}\n```'] }),
 *   tools: [add],
 *   prompt: createStructuredChatPrompt(),
 * });
 * console.log(await agent.invoke({ input: "2 + 3?", steps: [] })); // { tool: "add", toolInput: { a: 2, b: 3 }, log: "..." }
 * ```
 */
export function createStructuredChatAgent(options: CreateStructuredChatAgentOptions): Runnable<AgentInput, AgentOutput> {
  return createTextAgent(options, {
    agentType: "structured-chat",
    constructorName: "createStructuredChatAgent",
    runName: "StructuredChatAgent",
    requiredVariables: ["tools", "tool_names", "agent_scratchpad"],
    hints: {
      tools: 'Add "{tools}" where the tool descriptions go.',
      tool_names: 'Add "{tool_names}" where the allowed tool names go.',
      agent_scratchpad: 'Add "{agent_scratchpad}" after the input, where the steps so far go.',
    },
    defaultStop: STRUCTURED_CHAT_STOP_SEQUENCES,
    variables: (tools) => ({
      tools: renderTextDescriptionAndArgs(tools),
      tool_names: tools.map((tool) => tool.name).join(", "),
    }),
    formatScratchpad: (steps) => formatLogToString(steps),
    parser: (tools) => new StructuredChatOutputParser({ toolNames: tools.map((tool) => tool.name) }),
  });
}
