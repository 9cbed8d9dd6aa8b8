import { checkOptionKeys, InvalidArgumentError, type AgentInput, type AgentOutput } from "@agentrx/core";
import type { BaseLanguageModel } from "@langchain/core/language_models/base";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { reactAgentFor } from "../react/create-react-agent";
import { assertModel } from "../shared/validate-model";
import { assertPrompt } from "../shared/validate-prompt";
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
  toolCalling?: boolean | undefined;
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
 * supports tool calling, the ReAct agent otherwise. Throws an `InvalidArgumentError` when `llm` is
 * not a `@langchain/core` language model, when it is a wrapped model (made by `bindTools`,
 * `withConfig` or `withRetry`: pass the chat model itself), and when `toolCalling` is given but
 * not a boolean.
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
  return pickAgentType(llm, toolCalling, "selectAgentType", "it reads tool-calling support from the chat model itself");
}

/** Options of {@link createAgentForModel}. */
export interface CreateAgentForModelOptions {
  /** The model. */
  llm: BaseLanguageModel;
  /** The tools. */
  tools: StructuredToolInterface[];
  /** Prompts per strategy; each defaults to its agent type's default prompt. */
  prompts?: { toolCalling?: BasePromptTemplate | undefined; react?: BasePromptTemplate | undefined } | undefined;
  /** Overrides the detection of tool-calling support. */
  toolCalling?: boolean | undefined;
}

/**
 * Creates the right agent for a model: a tool-calling agent when the model supports tool calling,
 * a ReAct agent otherwise (see {@link selectAgentType}). Throws an `InvalidArgumentError` for the
 * arguments `selectAgentType` refuses, and for `prompts` that is not an object `{ toolCalling?,
 * react? }` or holds something other than a prompt template (both prompts are checked, whichever
 * agent the model gets).
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
  if (typeof prompts !== "object" || prompts === null || Array.isArray(prompts)) {
    throw new InvalidArgumentError({
      argument: "prompts",
      value: prompts,
      message: "createAgentForModel: `prompts` must be an object { toolCalling?, react? }.",
    });
  }
  checkOptionKeys("createAgentForModel", prompts, PROMPTS_KEYS, "prompts.");
  // Built in this function's name: an error names createAgentForModel and `prompts.<strategy>`,
  // not the agent constructor the user never called.
  const caller = "createAgentForModel";
  const agentType = pickAgentType(llm, toolCalling, caller, "the agent binds the tools itself (set call options on the model, e.g. new OpenAIChatModel({ temperature }))");
  // Both prompts, not only the chosen one's: a bad prompt for the other strategy would otherwise
  // surface only when a model of the other kind comes along.
  for (const [key, agentTypeName] of [["toolCalling", "tool-calling"], ["react", "react"]] as const) {
    if (prompts[key] !== undefined) {
      assertPrompt(prompts[key], { agentType: agentTypeName, constructorName: caller, promptArgument: `prompts.${key}` });
    }
  }
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

/**
 * Checks `llm` and `toolCalling` in the name of `owner` and picks the agent type; `wrappedHint` says
 * why the chat model itself is needed.
 */
function pickAgentType(llm: unknown, toolCalling: unknown, owner: string, wrappedHint: string): typeof toolCallingAgentType | typeof reactAgentType {
  assertModel(llm, { agentType: "", constructorName: owner });
  // A wrapped model (`bindTools`, `withConfig`, `withRetry`: a RunnableBinding or RunnableRetry) has
  // no `bindTools` of its own: it would silently get the ReAct agent.
  const bound = (llm as { bound?: unknown }).bound;
  if (typeof (bound as { invoke?: unknown } | null | undefined)?.invoke === "function") {
    throw new InvalidArgumentError({
      argument: "llm",
      value: llm,
      message: `${owner}: \`llm\` is a wrapped model (made by bindTools, withConfig or withRetry), not the chat model itself: pass the chat model; ${wrappedHint}.`,
    });
  }
  if (toolCalling !== undefined && typeof toolCalling !== "boolean") {
    throw new InvalidArgumentError({
      argument: "toolCalling",
      value: toolCalling,
      message: `${owner}: \`toolCalling\` must be true (the tool-calling agent), false (ReAct) or left out (decided from the model), got ${JSON.stringify(toolCalling) ?? typeof toolCalling}.`,
    });
  }
  return (toolCalling ?? modelSupportsToolCalling(llm)) ? toolCallingAgentType : reactAgentType;
}

/** Throws an `InvalidArgumentError` unless `options` is an object whose keys are all `known`. */
function assertOptions(options: unknown, owner: string, known: readonly string[], shape: string, hints: Record<string, string> = {}): void {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({ argument: "options", value: options, message: `${owner}: pass an options object ${shape}.` });
  }
  checkOptionKeys(owner, options, known, { hints });
}
