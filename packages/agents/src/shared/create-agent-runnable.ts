import { checkOptionKeys, InvalidArgumentError, type AgentInput, type AgentOutput, type AgentStep } from "@agentrx/core";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseOutputParser } from "@langchain/core/output_parsers";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import { RunnableSequence, type Runnable } from "@langchain/core/runnables";
import { AgentPipeline } from "./agent-pipeline";
import { FormatScratchpadStep } from "./format-scratchpad-step";
import { scratchpadValues } from "../format-scratchpad/format-agent-scratchpad";
import { assertPrompt } from "./validate-prompt";

/**
 * How an agent built by {@link createAgentRunnable} takes another chat model or other tools for one
 * call (an executor middleware's `prepareStep`, `modelFallback`; see docs/middleware.md).
 */
export interface AgentOverrideOptions {
  /** The agent's own chat model (other tools offered alone are bound to it). */
  llm: BaseChatModel;
  /** The tools the agent was built with (a model swapped alone is offered these). */
  tools: readonly StructuredToolInterface[];
  /**
   * The model stage for `llm` offering `tools`: for ordinary turns (`final: false`, e.g. the tools
   * bound) and for the `forceFinalAnswer` turn (`final: true`, e.g. without tools).
   */
  model: (llm: BaseChatModel, tools: readonly StructuredToolInterface[], final: boolean) => Runnable<BaseLanguageModelInput, unknown>;
  /** Prompt variables for other tools, for agents that describe their tools in the prompt. */
  variables?: (tools: readonly StructuredToolInterface[]) => Record<string, unknown>;
  /** The parser for other tools, for parsers that check tool names. */
  parser?: (tools: readonly StructuredToolInterface[]) => BaseOutputParser<AgentOutput>;
  /**
   * Rewrites the prompt's values for a chat model (`llm`, or one swapped in), e.g. what it cannot
   * take in its messages, at once or as a promise (what it needs to know is read first); undefined
   * when that model needs nothing rewritten.
   */
  promptValuesFor?: (llm: BaseChatModel) => ((values: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>) | undefined;
}

/** The parts of an agent built by {@link createAgentRunnable}. */
export interface CreateAgentRunnableOptions<Scratchpad> {
  /** The run name shown by tracers, e.g. `"ReactAgent"`. */
  name: string;
  /** The prompt; it receives the user's inputs, `variables` and `agent_scratchpad`. */
  prompt: BasePromptTemplate;
  /** The model for ordinary turns (with its tools or stop sequences bound). */
  model: Runnable<BaseLanguageModelInput, unknown>;
  /**
   * The model for the `forceFinalAnswer` turn of `"generate"` early stopping: without tools.
   * @default model
   */
  finalAnswerModel?: Runnable<BaseLanguageModelInput, unknown>;
  /** Turns the steps so far into the value of `agent_scratchpad`. */
  formatScratchpad: (steps: AgentStep[]) => Scratchpad;
  /**
   * Appends `FORCE_FINAL_ANSWER_INSTRUCTION` (from `@agentrx/core`) to a scratchpad, for the
   * `forceFinalAnswer` turn.
   */
  appendFinalAnswerInstruction: (scratchpad: Scratchpad) => Scratchpad;
  /** Parses the model's output into actions or a finish. */
  parser: BaseOutputParser<AgentOutput>;
  /** Extra prompt variables computed once (e.g. `tools`, `tool_names`); user inputs win. */
  variables?: Record<string, unknown>;
  /**
   * Lets a call swap the model and the tools (the built-in agents set it): without it the agent
   * always calls `model`, and an executor middleware that swaps the model is refused.
   */
  overrides?: AgentOverrideOptions;
}

/**
 * Builds an agent runnable from its parts, the way every built-in agent is built: a pipeline of
 * four steps, each its own run for tracers (LangSmith) and its own node in `agent.getGraph()`:
 * `FormatAgentScratchpad` (the steps so far into `agent_scratchpad`, next to the user's inputs and
 * `variables`) → the prompt → the model → the parser. The caller's callbacks and streaming
 * handlers reach every step; its signal cancels the turn at once, and reaches the model and any
 * step that may use it (not the scratchpad step, a `@langchain/core` prompt template or output
 * parser, which would only race it). On `{ ...inputs, steps, forceFinalAnswer: true }` the same
 * pipeline runs with `finalAnswerModel`, and the scratchpad ends with the final-answer instruction.
 * Community agent types can use it too. Throws an `InvalidArgumentError` for a missing or
 * misspelt option (an unknown key is refused, not ignored) and for a part of the wrong kind.
 *
 * @example
 * ```ts
 * import { createAgentRunnable, formatLogToString, ReActSingleInputOutputParser } from "@agentrx/agents";
 * import { FORCE_FINAL_ANSWER_INSTRUCTION } from "@agentrx/core";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { PromptTemplate } from "@langchain/core/prompts";
 *
 * const agent = createAgentRunnable({
 *   name: "MyAgent",
 *   prompt: PromptTemplate.fromTemplate("Question: {input}\n{agent_scratchpad}"),
 *   model: new ScriptedChatModel({ responses: ["Final Answer: 4"] }),
 *   formatScratchpad: (steps) => formatLogToString(steps),
 *   appendFinalAnswerInstruction: (text) => `${text}\n\n${FORCE_FINAL_ANSWER_INSTRUCTION}`,
 *   parser: new ReActSingleInputOutputParser({ toolNames: [] }),
 * });
 * const output = await agent.invoke({ input: "2 + 2?", steps: [] });
 * console.log(output); // { returnValues: { output: "4" }, log: "Final Answer: 4" }
 * ```
 */
export function createAgentRunnable<Scratchpad>(options: CreateAgentRunnableOptions<Scratchpad>): Runnable<AgentInput, AgentOutput> {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({
      argument: "options",
      value: options,
      message: "createAgentRunnable: pass an options object { name, prompt, model, formatScratchpad, appendFinalAnswerInstruction, parser }.",
    });
  }
  // A misspelt option (`finalModel`, `outputParser`) is refused, not ignored: ignored, the agent
  // would quietly run without it.
  checkOptionKeys("createAgentRunnable", options, OPTION_KEYS);
  if (options.overrides !== undefined) checkOptionKeys("createAgentRunnable", options.overrides, OVERRIDE_KEYS, "overrides.");
  const { name, prompt, model, finalAnswerModel = model, formatScratchpad, appendFinalAnswerInstruction, parser, variables = {}, overrides } = options;
  if (typeof name !== "string" || name === "") {
    throw new InvalidArgumentError({ argument: "name", value: name, message: "createAgentRunnable: `name` must be a non-empty string." });
  }
  assertPrompt(prompt, { agentType: name, constructorName: "createAgentRunnable" });
  for (const [option, value] of [
    ["model", model],
    ["finalAnswerModel", finalAnswerModel],
    ["parser", parser],
  ] as const) {
    if (typeof (value as { invoke?: unknown } | null)?.invoke !== "function") {
      throw new InvalidArgumentError({
        argument: option,
        value,
        message: `createAgentRunnable(${name}): \`${option}\` must be a @langchain/core Runnable (something with invoke).`,
      });
    }
  }
  for (const [option, value] of [
    ["formatScratchpad", formatScratchpad],
    ["appendFinalAnswerInstruction", appendFinalAnswerInstruction],
  ] as const) {
    if (typeof value !== "function") {
      throw new InvalidArgumentError({ argument: option, value, message: `createAgentRunnable(${name}): \`${option}\` must be a function.` });
    }
  }
  // A value the prompt has as a partial variable (its own `tools` text, say) is the prompt's: the
  // agent's value of that name (the tools' description) is not sent over it.
  const partials = Object.keys((prompt as { partialVariables?: Record<string, unknown> }).partialVariables ?? {});
  const ownValues = (values: Record<string, unknown>) => (partials.length === 0 ? values : Object.fromEntries(Object.entries(values).filter(([key]) => !partials.includes(key))));
  const formatWith = (values: Record<string, unknown>, llm = overrides?.llm) => {
    const format = scratchpadValues(name, formatScratchpad, appendFinalAnswerInstruction, ownValues(values));
    const prepare = llm === undefined ? undefined : overrides?.promptValuesFor?.(llm);
    return prepare === undefined ? format : (input: AgentInput) => prepare(format(input));
  };
  const format = new FormatScratchpadStep(formatWith(variables));
  const pipeline = (chatModel: Runnable<BaseLanguageModelInput, unknown>, step = format, outputParser = parser) =>
    RunnableSequence.from<AgentInput, AgentOutput>([step, prompt, chatModel, outputParser], { name });
  const turn = pipeline(model);
  const finalTurn = finalAnswerModel === model ? turn : pipeline(finalAnswerModel);
  if (overrides === undefined) return new AgentPipeline({ name, turn, finalTurn });
  const rebuild = (llm: BaseChatModel | undefined, tools: readonly StructuredToolInterface[] | undefined, final: boolean) => {
    const offered = tools ?? overrides.tools;
    if (tools === undefined && llm === undefined) return pipeline(final ? finalAnswerModel : model);
    // Other tools: the model offers them, and agents that describe their tools in the prompt do too;
    // another model gets the prompt's values as it takes them.
    const described = tools !== undefined && overrides.variables !== undefined ? { ...variables, ...overrides.variables(tools) } : undefined;
    const step =
      described !== undefined || (llm !== undefined && overrides.promptValuesFor !== undefined)
        ? new FormatScratchpadStep(formatWith(described ?? variables, llm ?? overrides.llm))
        : format;
    return pipeline(overrides.model(llm ?? overrides.llm, offered, final), step, tools === undefined ? parser : (overrides.parser?.(tools) ?? parser));
  };
  return new AgentPipeline({ name, turn, finalTurn, rebuild });
}

/** The options createAgentRunnable takes, and those of its `overrides`. */
const OPTION_KEYS = Object.keys({
  name: true,
  prompt: true,
  model: true,
  finalAnswerModel: true,
  formatScratchpad: true,
  appendFinalAnswerInstruction: true,
  parser: true,
  variables: true,
  overrides: true,
} satisfies Record<keyof CreateAgentRunnableOptions<unknown>, true>);
const OVERRIDE_KEYS = Object.keys({
  llm: true,
  tools: true,
  model: true,
  variables: true,
  parser: true,
  promptValuesFor: true,
} satisfies Record<keyof AgentOverrideOptions, true>);
