import { assertOptionKeys } from "../shared/validate-option-keys";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { FORCE_FINAL_ANSWER_INSTRUCTION, InvalidArgumentError, type AgentInput, type AgentOutput, type AgentStep } from "@agentrx/core";
import type { BaseLanguageModel, BaseLanguageModelCallOptions } from "@langchain/core/language_models/base";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { formatLogToMessages } from "../format-scratchpad/format-log-to-messages";
import { createAgentRunnable } from "../shared/create-agent-runnable";
import { renderTextDescription } from "../shared/render-tools";
import { assertModel } from "../shared/validate-model";
import { assertMessagesPlaceholder, assertPrompt, assertPromptVariables } from "../shared/validate-prompt";
import { assertTools } from "../shared/validate-tools";
import { assertStringArray } from "../shared/validate-option-values";
import { JSON_CHAT_TOOL_RESPONSE, JSON_CHAT_USER_MESSAGE } from "./json-chat-prompt";
import { ReActJsonSingleInputOutputParser } from "./react-json-single-input-output-parser";

/** Options of {@link createJsonChatAgent}. */
export interface CreateJsonChatAgentOptions {
  /** A chat model or LLM; it needs no tool calling. */
  llm: BaseLanguageModel;
  /** The tools the agent may use; names must be unique. */
  tools: StructuredToolInterface[];
  /** A chat prompt with `tools`, `tool_names` and a `MessagesPlaceholder("agent_scratchpad")`. */
  prompt: BasePromptTemplate;
  /**
   * The stop sequences bound to the model, so it stops before writing a tool's response itself.
   * `[]` binds none (for models that reject stop sequences).
   * @default ["\nObservation"]
   */
  stop?: string[] | undefined;
  /**
   * Renders the tools for the prompt's `tools` variable.
   * @default renderTextDescription (one `name: description` line per tool)
   */
  toolsRenderer?: ((tools: StructuredToolInterface[]) => string) | undefined;
}

/** The stop sequences bound to a JSON chat agent's model by default. */
export const JSON_CHAT_STOP_SEQUENCES: readonly string[] = ["\nObservation"];

/** Said before the final-answer instruction on the `forceFinalAnswer` turn, so the answer still parses. */
const FINAL_ANSWER_REMINDER = 'Use no more tools. Reply with the "Final Answer" JSON blob, or with "Final Answer: " followed by your answer.';

const CONTEXT = { agentType: "json-chat", constructorName: "createJsonChatAgent" };

/**
 * Formats the steps of a JSON chat agent: each action's log, then its observation as the tool
 * response; a message sent to the run as a human turn (`JSON_CHAT_USER_MESSAGE`).
 */
export function formatJsonChatScratchpad(steps: AgentStep[]): BaseMessage[] {
  return formatLogToMessages(steps, { templateToolResponse: JSON_CHAT_TOOL_RESPONSE, templateUserMessage: JSON_CHAT_USER_MESSAGE });
}

/** The options it takes: a misspelt one is refused, not ignored. */
const JSON_CHAT_OPTION_KEYS = Object.keys({ llm: true, tools: true, prompt: true, stop: true, toolsRenderer: true } satisfies Record<keyof CreateJsonChatAgentOptions, true>);

/**
 * Creates a JSON chat agent (LangChain's `create_json_chat_agent`), for chat models without native
 * tool calling: the model answers with a JSON blob `{"action", "action_input"}` in a code fence. The
 * prompt needs `tools` (one `name: description` line per tool), `tool_names`, and a
 * `MessagesPlaceholder("agent_scratchpad")` that receives the steps so far as messages (each
 * action's log, then its observation as a "TOOL RESPONSE" message). The model stops at
 * `\nObservation`; its text is parsed by {@link ReActJsonSingleInputOutputParser}, which also
 * accepts a plain-text `Final Answer: ...`.
 *
 * @example
 * ```ts
 * import { createJsonChatAgent, createJsonChatPrompt } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const search = tool(async ({ query }) => `Results for ${query}`, {
 *   name: "search",
 *   description: "Search the web.",
 *   schema: z.object({ query: z.string() }),
 * });
 * const agent = createJsonChatAgent({
 *   llm: new ScriptedChatModel({ responses: ['```json\n{"action": "search", "action_input": {"query": "Paris"}}\n```'] }),
 *   tools: [search],
 *   prompt: createJsonChatPrompt(),
 * });
 * console.log(await agent.invoke({ input: "Weather in Paris?", steps: [] })); // { tool: "search", toolInput: { query: "Paris" }, log: "..." }
 * ```
 */

export function createJsonChatAgent(options: CreateJsonChatAgentOptions): Runnable<AgentInput, AgentOutput> {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({
      argument: "options",
      value: options,
      message: `${CONTEXT.constructorName}: pass an options object { llm, tools, prompt }.`,
    });
  }
  assertOptionKeys(options, JSON_CHAT_OPTION_KEYS, CONTEXT);
  const { llm, tools, prompt, stop = [...JSON_CHAT_STOP_SEQUENCES], toolsRenderer = renderTextDescription } = options;
  assertModel(llm, CONTEXT);
  assertTools(tools, CONTEXT.constructorName);
  assertPrompt(prompt, CONTEXT);
  assertPromptVariables(prompt, ["tools", "tool_names"], CONTEXT, {
    tools: 'Add "{tools}" where the tool descriptions go.',
    tool_names: 'Add "{tool_names}" where the allowed tool names go.',
  });
  assertMessagesPlaceholder(prompt, "agent_scratchpad", CONTEXT);
  assertStringArray(CONTEXT.constructorName, "stop", stop, { whiteSpace: true, note: "(or [] for none)" });
  if (typeof toolsRenderer !== "function") {
    throw new InvalidArgumentError({
      argument: "toolsRenderer",
      value: toolsRenderer,
      message: `${CONTEXT.constructorName}: \`toolsRenderer\` must be a function (tools) => string.`,
    });
  }
  const model = stop.length > 0 ? llm.withConfig({ stop } as Partial<BaseLanguageModelCallOptions>) : llm;
  const toolNames = tools.map((tool) => tool.name);
  return createAgentRunnable<BaseMessage[]>({
    name: "JsonChatAgent",
    prompt,
    model: model as Runnable,
    formatScratchpad: formatJsonChatScratchpad,
    appendFinalAnswerInstruction: (messages) => [
      ...messages,
      new HumanMessage(`${FINAL_ANSWER_REMINDER}\n\n${FORCE_FINAL_ANSWER_INSTRUCTION}`),
    ],
    parser: new ReActJsonSingleInputOutputParser({ toolNames }),
    variables: { tools: toolsRenderer(tools), tool_names: toolNames.join(", ") },
    overrides: {
      llm: llm as BaseChatModel,
      tools,
      model: (other) => (stop.length > 0 ? other.withConfig({ stop } as Partial<BaseLanguageModelCallOptions>) : other) as Runnable,
      variables: (offered) => ({ tools: toolsRenderer([...offered]), tool_names: offered.map((tool) => tool.name).join(", ") }),
      parser: (offered) => new ReActJsonSingleInputOutputParser({ toolNames: offered.map((tool) => tool.name) }),
    },
  });
}
