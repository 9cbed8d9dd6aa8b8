import { assertOptionKeys } from "./validate-option-keys";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  FORCE_FINAL_ANSWER_INSTRUCTION,
  InvalidArgumentError,
  type AgentInput,
  type AgentOutput,
  type AgentStep,
} from "@agentrx/core";
import type { BaseLanguageModel, BaseLanguageModelCallOptions } from "@langchain/core/language_models/base";
import type { BaseOutputParser } from "@langchain/core/output_parsers";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { InvalidPromptError } from "../errors/invalid-prompt-error";
import { createAgentRunnable } from "./create-agent-runnable";
import { assertModel } from "./validate-model";
import { assertPrompt, assertPromptVariables, thePrompt, type ValidationContext } from "./validate-prompt";
import { assertTools } from "./validate-tools";
import { assertStringArray } from "./validate-option-values";

/** Options shared by the text agents (ReAct, structured chat, XML, self-ask). */
export interface TextAgentOptions {
  /** A chat model or LLM; it needs no tool calling. */
  llm: BaseLanguageModel;
  /** The tools the agent may use; names must be unique. */
  tools: StructuredToolInterface[];
  /** The prompt; see each agent for the variables it needs. */
  prompt: BasePromptTemplate;
  /**
   * The stop sequences bound to the model, so it stops before writing an observation itself.
   * `[]` binds none. Each agent documents its default.
   */
  stop?: string[] | undefined;
}

/** @internal What differs between the text agents. */
export interface TextAgentSpec extends ValidationContext {
  runName: string;
  requiredVariables: readonly string[];
  hints?: Record<string, string>;
  defaultStop: readonly string[];
  variables: (tools: StructuredToolInterface[]) => Record<string, unknown>;
  formatScratchpad: (steps: AgentStep[]) => string;
  parser: (tools: StructuredToolInterface[]) => BaseOutputParser<AgentOutput>;
  minTools?: number;
  checkTools?: (tools: StructuredToolInterface[]) => void;
}

/** Appends the final-answer instruction to a text scratchpad. */
export function appendInstructionToText(scratchpad: string): string {
  return scratchpad ? `${scratchpad}\n\n${FORCE_FINAL_ANSWER_INSTRUCTION}` : FORCE_FINAL_ANSWER_INSTRUCTION;
}

/** The options it takes: a misspelt one is refused, not ignored. */
const TEXT_AGENT_OPTION_KEYS = Object.keys({ llm: true, tools: true, prompt: true, stop: true } satisfies Record<keyof TextAgentOptions, true>);

/** @internal Validates a text agent's options and builds it. */
export function createTextAgent(options: TextAgentOptions, spec: TextAgentSpec): Runnable<AgentInput, AgentOutput> {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({
      argument: "options",
      value: options,
      message: `${spec.constructorName}: pass an options object { llm, tools, prompt }.`,
    });
  }
  assertOptionKeys(options, TEXT_AGENT_OPTION_KEYS, spec);
  const { llm, tools, prompt, stop = [...spec.defaultStop] } = options;
  assertModel(llm, spec);
  assertTools(tools, spec.constructorName, { min: spec.minTools ?? 0 });
  spec.checkTools?.(tools);
  assertPrompt(prompt, spec);
  assertPromptVariables(prompt, spec.requiredVariables, spec, spec.hints);
  assertTextScratchpad(prompt, spec);
  assertStringArray(spec.constructorName, "stop", stop, { whiteSpace: true, note: "(or [] for none)" });
  const model = stop.length > 0 ? llm.withConfig({ stop } as Partial<BaseLanguageModelCallOptions>) : llm;
  return createAgentRunnable<string>({
    name: spec.runName,
    prompt,
    model: model as Runnable,
    formatScratchpad: spec.formatScratchpad,
    appendFinalAnswerInstruction: appendInstructionToText,
    parser: spec.parser(tools),
    variables: spec.variables(tools),
    overrides: {
      llm: llm as BaseChatModel,
      tools,
      model: (other) => (stop.length > 0 ? other.withConfig({ stop } as Partial<BaseLanguageModelCallOptions>) : other) as Runnable,
      variables: (offered) => spec.variables([...offered]),
      parser: (offered) => spec.parser([...offered]),
    },
  });
}

function assertTextScratchpad(prompt: BasePromptTemplate, context: ValidationContext): void {
  const messages = (prompt as { promptMessages?: unknown[] }).promptMessages;
  if (!Array.isArray(messages)) return;
  const placeholder = messages.some((message) => {
    const candidate = message as { variableName?: unknown; constructor?: { lc_name?: () => string } } | null;
    return candidate?.variableName === "agent_scratchpad" && candidate.constructor?.lc_name?.() === "MessagesPlaceholder";
  });
  if (placeholder) {
    throw new InvalidPromptError({
      agentType: context.agentType,
      missingVariables: ["agent_scratchpad"],
      message:
        `${context.constructorName}: this agent fills "agent_scratchpad" with text, but ${thePrompt(context)} has it as a ` +
        `MessagesPlaceholder. Put "{agent_scratchpad}" inside a message template instead.`,
    });
  }
}
