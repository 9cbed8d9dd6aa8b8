import type { AgentInput, AgentOutput } from "@agentrx/core";
import type { Runnable } from "@langchain/core/runnables";
import { createTextAgent, type TextAgentOptions } from "../shared/create-text-agent";
import { renderTextDescription } from "../shared/render-tools";
import { formatXml } from "./format-xml";
import { XMLAgentOutputParser } from "./xml-agent-output-parser";

/**
 * Options of {@link createXmlAgent}. The default `stop` is `["</tool_input>", "</final_answer>"]`.
 */
export type CreateXmlAgentOptions = TextAgentOptions;

/** The stop sequences bound to an XML agent's model by default. */
export const XML_STOP_SEQUENCES: readonly string[] = ["</tool_input>", "</final_answer>"];

/**
 * Creates an XML agent: the model writes `<tool>name</tool><tool_input>input</tool_input>` to use
 * a tool and `<final_answer>...</final_answer>` to finish, which suits models trained on XML-style
 * prompts (such as Anthropic's). The prompt needs `tools` (filled with `name: description` lines)
 * and `agent_scratchpad` (the steps so far, see {@link formatXml}); the model stops at
 * `</tool_input>` and `</final_answer>` and its text is parsed by {@link XMLAgentOutputParser}.
 *
 * @example
 * ```ts
 * import { createXmlAgent, createXmlPrompt } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const agent = createXmlAgent({
 *   llm: new ScriptedChatModel({ responses: ["<final_answer>Paris</final_answer>"] }),
 *   tools: [],
 *   prompt: createXmlPrompt(),
 * });
 * console.log(await agent.invoke({ input: "Capital of France?", steps: [] })); // { returnValues: { output: "Paris" }, ... }
 * ```
 */
export function createXmlAgent(options: CreateXmlAgentOptions): Runnable<AgentInput, AgentOutput> {
  return createTextAgent(options, {
    agentType: "xml",
    constructorName: "createXmlAgent",
    runName: "XMLAgent",
    requiredVariables: ["tools", "agent_scratchpad"],
    hints: {
      tools: 'Add "{tools}" where the tool descriptions go.',
      agent_scratchpad: 'Add "{agent_scratchpad}" after the question, where the steps so far go.',
    },
    defaultStop: XML_STOP_SEQUENCES,
    variables: (tools) => ({ tools: renderTextDescription(tools) }),
    formatScratchpad: (steps) => formatXml(steps),
    parser: () => new XMLAgentOutputParser(),
  });
}
