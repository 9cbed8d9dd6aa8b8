import { checkOptionKeys, InvalidArgumentError, type AgentInput, type AgentOutput } from "@agentrx/core";
import type { BaseLanguageModel } from "@langchain/core/language_models/base";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { reactAgentFor } from "../react/create-react-agent";
import { toolCallingAgentFor } from "../tool-calling/create-tool-calling-agent";
import { reactAgentType, toolCallingAgentType } from "./built-in-agent-types";

/** Options of {@link selectAgentType}. */
export interface SelectAgentTypeOptions {
  /** The model the agent will use. */
  llm: unknown;
  /**
   * Whether the model supports tool calling. By default this is read from the model: its
   * `profile.toolCalling` when the profile says, else whether it has `bindTools`.
   */
  toolCalling?: boolean;
}

/**
 * Whether a model supports native tool calling: its `profile.toolCalling` when the profile says
 * so, else whether it has a `bindTools` method.
 *
 * @example
 * ```ts
 * import { modelSupportsToolCalling } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * console.log(modelSupportsToolCalling(new ScriptedChatModel({ responses: [] }))); // true
 * ```
 */
export function modelSupportsToolCalling(llm: unknown): boolean {
  if (typeof llm !== "object" || llm === null) return false;
  const hasBindTools = typeof (llm as { bindTools?: unknown }).bindTools === "function";
  let declared: unknown;
  try {
    declared = (llm as { profile?: { toolCalling?: unknown } }).profile?.toolCalling;
  } catch {
    declared = undefined;
  }
  if (typeof declared === "boolean") return declared && hasBindTools;
  return hasBindTools;
}

/**
 * Picks the agent type for a model, as Dify does: the tool-calling agent for a model that
 * supports tool calling, the ReAct agent otherwise.
 *
 * @example
 * ```ts
 * import { selectAgentType } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const llm = new ScriptedChatModel({ responses: [] });
 * console.log(selectAgentType({ llm }).name); // "tool-calling"
 * console.log(selectAgentType({ llm, toolCalling: false }).name); // "react"
 * ```
 */
export function selectAgentType(options: SelectAgentTypeOptions): typeof toolCallingAgentType | typeof reactAgentType {
  assertOptions(options, "selectAgentType", SELECT_OPTION_KEYS, "{ llm }");
  const { llm, toolCalling } = options;
  return (toolCalling ?? modelSupportsToolCalling(llm)) ? toolCallingAgentType : reactAgentType;
}

/** Options of {@link createAgentForModel}. */
export interface CreateAgentForModelOptions {
  /** The model. */
  llm: BaseLanguageModel;
  /** The tools. */
  tools: StructuredToolInterface[];
  /** Prompts per strategy; each defaults to its agent type's default prompt. */
  prompts?: { toolCalling?: BasePromptTemplate; react?: BasePromptTemplate };
  /** Overrides the detection of tool-calling support. */
  toolCalling?: boolean;
}

/**
 * Creates the right agent for a model: a tool-calling agent when the model supports tool calling,
 * a ReAct agent otherwise (see {@link selectAgentType}).
 *
 * @example
 * ```ts
 * import { createAgentForModel } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const agent = createAgentForModel({ llm: new ScriptedChatModel({ responses: ["Hi!"] }), tools: [] });
 * console.log(await agent.invoke({ input: "Hello", steps: [] })); // { returnValues: { output: "Hi!" }, log: "Hi!" }
 * ```
 */
export function createAgentForModel(options: CreateAgentForModelOptions): Runnable<AgentInput, AgentOutput> {
  assertOptions(options, "createAgentForModel", CREATE_OPTION_KEYS, "{ llm, tools }", {
    prompt: "the prompts go in `prompts: { toolCalling, react }`, one per strategy",
  });
  const { llm, tools, prompts = {}, toolCalling } = options;
  if (typeof prompts !== "object" || prompts === null) {
    throw new InvalidArgumentError({
      argument: "prompts",
      value: prompts,
      message: "createAgentForModel: `prompts` must be an object { toolCalling?, react? }.",
    });
  }
  checkOptionKeys("createAgentForModel", prompts, PROMPTS_KEYS, "prompts.");
  const agentType = selectAgentType({ llm, ...(toolCalling === undefined ? {} : { toolCalling }) });
  // Built in this function's name: an error names createAgentForModel and `prompts.<strategy>`,
  // not the agent constructor the user never called.
  const caller = "createAgentForModel";
  if (agentType.name === "tool-calling") {
    const given = prompts.toolCalling;
    const prompt = given === undefined ? toolCallingAgentType.defaultPrompt() : given;
    return toolCallingAgentFor({ llm: llm as never, tools, prompt }, { constructorName: caller, ...(given === undefined ? {} : { promptArgument: "prompts.toolCalling" }) });
  }
  const given = prompts.react;
  const prompt = given === undefined ? reactAgentType.defaultPrompt() : given;
  return reactAgentFor({ llm, tools, prompt }, { constructorName: caller, ...(given === undefined ? {} : { promptArgument: "prompts.react" }) });
}

/** The options each function takes: a misspelt one is refused, not ignored. */
const SELECT_OPTION_KEYS = Object.keys({ llm: true, toolCalling: true } satisfies Record<keyof SelectAgentTypeOptions, true>);
const CREATE_OPTION_KEYS = Object.keys({ llm: true, tools: true, prompts: true, toolCalling: true } satisfies Record<keyof CreateAgentForModelOptions, true>);
const PROMPTS_KEYS = Object.keys({ toolCalling: true, react: true } satisfies Record<keyof NonNullable<CreateAgentForModelOptions["prompts"]>, true>);

/** Throws an `InvalidArgumentError` unless `options` is an object whose keys are all `known`. */
function assertOptions(options: unknown, owner: string, known: readonly string[], shape: string, hints: Record<string, string> = {}): void {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({ argument: "options", value: options, message: `${owner}: pass an options object ${shape}.` });
  }
  checkOptionKeys(owner, options, known, { hints });
}
