import type { AgentInput, AgentOutput } from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { buildToolCallingAgent, type ForceFinalAnswerMode } from "../tool-calling/create-tool-calling-agent";
import { formatToOpenAIFunctionMessages } from "./format-to-openai-function-messages";
import { OpenAIFunctionsAgentOutputParser } from "./openai-functions-agent-output-parser";

/** Options of {@link createOpenAIFunctionsAgent}. */
export interface CreateOpenAIFunctionsAgentOptions {
  /** A chat model that supports function/tool calling (has `bindTools`). */
  llm: BaseChatModel;
  /** The tools (functions) the model may call; names must be unique. */
  tools: StructuredToolInterface[];
  /** A chat prompt with a `MessagesPlaceholder("agent_scratchpad")`. */
  prompt: BasePromptTemplate;
  /**
   * How tools are withheld on the `forceFinalAnswer` turn (see `createToolCallingAgent`).
   * @default "without-tools"
   */
  forceFinalAnswerMode?: ForceFinalAnswerMode | undefined;
}

const CONTEXT = { agentType: "openai-functions", constructorName: "createOpenAIFunctionsAgent" };

/**
 * Creates a function-calling agent: like the tool-calling agent, but one action per turn (the
 * model's first call), for models and prompts written for OpenAI's function calling. The prompt
 * needs a `MessagesPlaceholder("agent_scratchpad")`, filled by
 * {@link formatToOpenAIFunctionMessages}; replies are parsed by
 * {@link OpenAIFunctionsAgentOutputParser}.
 *
 * @example
 * ```ts
 * import { createOpenAIFunctionsAgent } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const search = tool(async ({ query }) => `Results for ${query}`, {
 *   name: "search",
 *   description: "Search the web.",
 *   schema: z.object({ query: z.string() }),
 * });
 * const agent = createOpenAIFunctionsAgent({
 *   llm: new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args: { query: "Paris" } }] }] }),
 *   tools: [search],
 *   prompt: ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]),
 * });
 * console.log(await agent.invoke({ input: "Weather in Paris?", steps: [] })); // { tool: "search", toolInput: { query: "Paris" }, ... }
 * ```
 */
export function createOpenAIFunctionsAgent(options: CreateOpenAIFunctionsAgentOptions): Runnable<AgentInput, AgentOutput> {
  return buildToolCallingAgent(options, {
    ...CONTEXT,
    runName: "OpenAIFunctionsAgent",
    formatScratchpad: formatToOpenAIFunctionMessages,
    parser: new OpenAIFunctionsAgentOutputParser(),
  });
}
