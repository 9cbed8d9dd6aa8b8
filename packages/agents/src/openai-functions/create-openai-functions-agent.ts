import {
  FORCE_FINAL_ANSWER_INSTRUCTION,
  InvalidArgumentError,
  type AgentInput,
  type AgentOutput,
} from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createAgentRunnable } from "../shared/create-agent-runnable";
import { assertToolCallingModel } from "../shared/validate-model";
import { assertMessagesPlaceholder, assertPrompt } from "../shared/validate-prompt";
import { assertTools } from "../shared/validate-tools";
import type { ForceFinalAnswerMode } from "../tool-calling/create-tool-calling-agent";
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
  forceFinalAnswerMode?: ForceFinalAnswerMode;
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
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({
      argument: "options",
      value: options,
      message: `${CONTEXT.constructorName}: pass an options object { llm, tools, prompt }.`,
    });
  }
  const { llm, tools, prompt, forceFinalAnswerMode = "without-tools" } = options;
  assertToolCallingModel(llm, CONTEXT);
  assertTools(tools, CONTEXT.constructorName);
  assertPrompt(prompt, CONTEXT);
  assertMessagesPlaceholder(prompt, "agent_scratchpad", CONTEXT);
  if (forceFinalAnswerMode !== "without-tools" && forceFinalAnswerMode !== "tool-choice-none") {
    throw new InvalidArgumentError({
      argument: "forceFinalAnswerMode",
      value: forceFinalAnswerMode,
      message: `${CONTEXT.constructorName}: \`forceFinalAnswerMode\` must be "without-tools" or "tool-choice-none", got ${JSON.stringify(forceFinalAnswerMode)}.`,
    });
  }
  const bindTools = llm.bindTools as NonNullable<BaseChatModel["bindTools"]>;
  return createAgentRunnable<BaseMessage[]>({
    name: "OpenAIFunctionsAgent",
    prompt,
    model: bindTools.call(llm, tools),
    finalAnswerModel:
      forceFinalAnswerMode === "tool-choice-none" ? bindTools.call(llm, tools, { tool_choice: "none" }) : llm,
    formatScratchpad: formatToOpenAIFunctionMessages,
    appendFinalAnswerInstruction: (messages) => [...messages, new HumanMessage(FORCE_FINAL_ANSWER_INSTRUCTION)],
    parser: new OpenAIFunctionsAgentOutputParser(),
  });
}
