import { assertOptionKeys } from "../shared/validate-option-keys";
import {
  FORCE_FINAL_ANSWER_INSTRUCTION,
  InvalidArgumentError,
  isFinalAnswerTool,
  type AgentInput,
  type AgentOutput,
  type AgentStep,
} from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseOutputParser } from "@langchain/core/output_parsers";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createAgentRunnable } from "../shared/create-agent-runnable";
import { assertToolCallingModel } from "../shared/validate-model";
import { assertMessagesPlaceholder, assertPrompt, type ValidationContext } from "../shared/validate-prompt";
import { assertTools } from "../shared/validate-tools";
import { formatToToolMessages } from "./format-to-tool-messages";
import { ToolCallingAgentOutputParser } from "./tool-calling-agent-output-parser";
import { assertToolImages, toolImagesFor, type ToolImages } from "./tool-images";

/**
 * How a tool-calling agent withholds its tools on the `forceFinalAnswer` turn:
 * `"without-tools"` calls the plain model (no tool definitions at all); `"tool-choice-none"`
 * binds the tools with `tool_choice: "none"`, for providers that reject a conversation with
 * tool calls in it when no tools are defined. When the tools include the final-answer tool
 * (`finalAnswerTool(schema)` of `@agentrx/executors`), neither applies: that tool alone is bound,
 * with a `tool_choice` naming it (none for a model with extended thinking on, which refuses one).
 */
export type ForceFinalAnswerMode = "without-tools" | "tool-choice-none";

/** Options of {@link createToolCallingAgent}. */
export interface CreateToolCallingAgentOptions {
  /** A chat model that supports tool calling (has `bindTools`). */
  llm: BaseChatModel;
  /** The tools the model may call; names must be unique. */
  tools: StructuredToolInterface[];
  /** A chat prompt with a `MessagesPlaceholder("agent_scratchpad")`. */
  prompt: BasePromptTemplate;
  /**
   * How tools are withheld on the `forceFinalAnswer` turn.
   * @default "without-tools"
   */
  forceFinalAnswerMode?: ForceFinalAnswerMode | undefined;
  /**
   * Where the images a tool returned go, and with them its files (a PDF) and audio, for the model
   * to see them (see {@link ToolImages}): `"auto"` sends them in a user message after the tool
   * results to an OpenAI chat model on Chat Completions (which takes text only in a tool message)
   * and in the tool result to every other model.
   * @default "auto"
   */
  toolImages?: ToolImages | undefined;
}

const MODES: readonly ForceFinalAnswerMode[] = ["without-tools", "tool-choice-none"];

/**
 * Creates an agent that uses the model's native tool calling: the prompt receives the steps so
 * far as messages in `agent_scratchpad` (see {@link formatToToolMessages}), the model is called
 * with `llm.bindTools(tools)`, and every tool call of its reply becomes an action (several calls
 * run in parallel); a reply without tool calls is the final answer. On the `forceFinalAnswer`
 * turn the model is called without tools (or, when the tools include the final-answer tool of
 * `finalAnswerTool(schema)`, with that tool alone, forced unless the model has extended thinking on) and the scratchpad ends with the
 * final-answer instruction.
 *
 * @example
 * ```ts
 * import { createToolCallingAgent } from "@agentrx/agents";
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
 * const agent = createToolCallingAgent({
 *   llm: new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args: { query: "Paris" } }] }] }),
 *   tools: [search],
 *   prompt: ChatPromptTemplate.fromMessages([
 *     ["system", "You are a helpful assistant."],
 *     ["human", "{input}"],
 *     new MessagesPlaceholder("agent_scratchpad"),
 *   ]),
 * });
 * const actions = await agent.invoke({ input: "Weather in Paris?", steps: [] });
 * console.log(actions); // [{ tool: "search", toolInput: { query: "Paris" }, toolCallId: "call_0_0", ... }]
 * ```
 */
export function createToolCallingAgent(options: CreateToolCallingAgentOptions): Runnable<AgentInput, AgentOutput> {
  return toolCallingAgentFor(options, { constructorName: "createToolCallingAgent" });
}

/**
 * {@link createToolCallingAgent} for a function that builds it for its user (`createAgentForModel`):
 * its errors name `caller.constructorName`, the function the user called, and
 * `caller.promptArgument`, where that user passed the prompt.
 *
 * @internal
 */
export function toolCallingAgentFor(
  options: CreateToolCallingAgentOptions,
  caller: Pick<ValidationContext, "constructorName" | "promptArgument">,
): Runnable<AgentInput, AgentOutput> {
  return buildToolCallingAgent(options, {
    agentType: "tool-calling",
    runName: "ToolCallingAgent",
    formatScratchpad: formatToToolMessages,
    parser: new ToolCallingAgentOutputParser(),
    ...caller,
  });
}

/**
 * The same agent as {@link createToolCallingAgent}, kept under LangChain's older name for users
 * migrating from `@langchain/classic`.
 *
 * @example
 * ```ts
 * import { createOpenAIToolsAgent } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
 *
 * const agent = createOpenAIToolsAgent({
 *   llm: new ScriptedChatModel({ responses: ["Hello!"] }),
 *   tools: [],
 *   prompt: ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]),
 * });
 * console.log(await agent.invoke({ input: "Hi", steps: [] })); // { returnValues: { output: "Hello!" }, log: "Hello!" }
 * ```
 */
export function createOpenAIToolsAgent(options: CreateToolCallingAgentOptions): Runnable<AgentInput, AgentOutput> {
  return buildToolCallingAgent(options, {
    agentType: "openai-tools",
    constructorName: "createOpenAIToolsAgent",
    runName: "OpenAIToolsAgent",
    formatScratchpad: formatToToolMessages,
    parser: new ToolCallingAgentOutputParser(),
  });
}

/** The options it takes: a misspelt one is refused, not ignored. */
const TOOL_CALLING_OPTION_KEYS = Object.keys({ llm: true, tools: true, prompt: true, forceFinalAnswerMode: true, toolImages: true } satisfies Record<keyof CreateToolCallingAgentOptions, true>);

/**
 * Validates the options of a native tool-calling agent and builds it: tools bound for ordinary
 * turns, withheld (or `tool_choice: "none"`; the final-answer tool alone, forced, when it is one
 * of them) on the `forceFinalAnswer` turn, a message scratchpad
 * ending with the final-answer instruction. Shared by the tool-calling and OpenAI-functions agents.
 *
 * @internal
 */

export function buildToolCallingAgent(
  options: CreateToolCallingAgentOptions,
  context: ValidationContext & {
    runName: string;
    formatScratchpad: (steps: AgentStep[]) => BaseMessage[];
    parser: BaseOutputParser<AgentOutput>;
  },
): Runnable<AgentInput, AgentOutput> {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({
      argument: "options",
      value: options,
      message: `${context.constructorName}: pass an options object { llm, tools, prompt }.`,
    });
  }
  assertOptionKeys(options, TOOL_CALLING_OPTION_KEYS, context);
  const { llm, tools, prompt, forceFinalAnswerMode = "without-tools", toolImages = "auto" } = options;
  assertToolCallingModel(llm, context);
  assertTools(tools, context.constructorName);
  assertPrompt(prompt, context);
  assertMessagesPlaceholder(prompt, "agent_scratchpad", context);
  if (!MODES.includes(forceFinalAnswerMode)) {
    throw new InvalidArgumentError({
      argument: "forceFinalAnswerMode",
      value: forceFinalAnswerMode,
      message: `${context.constructorName}: \`forceFinalAnswerMode\` must be "without-tools" or "tool-choice-none", got ${JSON.stringify(forceFinalAnswerMode)}.`,
    });
  }
  assertToolImages(toolImages, context.constructorName);
  const stages = (chat: BaseChatModel, offered: readonly StructuredToolInterface[], final: boolean): Runnable => {
    const bindTools = chat.bindTools as BaseChatModel["bindTools"];
    if (typeof bindTools !== "function") {
      throw new InvalidArgumentError({
        argument: "model",
        value: chat,
        message: `${context.constructorName}: the model swapped in for this call has no bindTools (a tool-calling agent needs a chat model that supports tool calling).`,
      });
    }
    if (!final) return bindTools.call(chat, [...offered]);
    // With the final-answer tool (`finalAnswerTool(schema)`), that tool alone, forced: the answer
    // still comes as a call of it, so it stays typed (see docs/structured-output.md).
    const answer = offered.find(isFinalAnswerTool);
    if (answer !== undefined) return bindTools.call(chat, [answer], forcesToolChoice(chat) ? { tool_choice: answer.name } : {});
    return forceFinalAnswerMode === "tool-choice-none" ? bindTools.call(chat, [...offered], { tool_choice: "none" }) : chat;
  };
  const model = stages(llm, tools, false);
  const finalAnswerModel = stages(llm, tools, true);
  return createAgentRunnable<BaseMessage[]>({
    name: context.runName,
    prompt,
    model,
    finalAnswerModel,
    formatScratchpad: context.formatScratchpad,
    appendFinalAnswerInstruction: (messages) => [...messages, new HumanMessage(FORCE_FINAL_ANSWER_INSTRUCTION)],
    parser: context.parser,
    overrides: { llm, tools, model: stages, promptValuesFor: (chat) => toolImagesFor(toolImages, chat) },
  });
}

/**
 * Whether a forced `tool_choice` may go to `chat`: not to a model with extended thinking on
 * (`@langchain/anthropic`'s `thinking: { type: "enabled" | "adaptive" }`), which Anthropic refuses
 * with a forced tool choice; that model is offered the final-answer tool alone, unforced.
 */
function forcesToolChoice(chat: BaseChatModel): boolean {
  const thinking = (chat as { thinking?: { type?: unknown } }).thinking;
  return !(typeof thinking === "object" && thinking !== null && (thinking.type === "enabled" || thinking.type === "adaptive"));
}
