import { InvalidArgumentError, checkOptionKeys, isThenable } from "@agentrx/core";
import { UnsupportedModelError, assertTools, createReactAgent, createToolCallingAgent, selectAgentType } from "@agentrx/agents";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModel } from "@langchain/core/language_models/base";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { z } from "zod";
import { AgentExecutor } from "../executor/agent-executor";
import { givenInputs } from "../executor/run-helpers";
import type { AgentExecutorCallConfig, AgentExecutorOptions, AgentExecutorResult } from "../executor/agent-executor-options";
import type { ExecutorMemoryOptions } from "../executor/conversation-memory";
import type { AgentStreamEvent } from "../executor/events";
import type { RunObservable } from "../executor/run-observable";
import { EXECUTOR_OPTIONS } from "../executor/option-keys";
import { finalAnswerTool } from "../executor/structured-output";
import { RESERVED_FINAL_ANSWER } from "../executor/validate-options";
import { DEFAULT_SYSTEM, createDefaultAgentPrompt } from "./default-agent-prompt";

/**
 * Options of {@link createAgentExecutor}: the model, the tools, an optional system message, and
 * any option of `AgentExecutor` (`store`, `maxIterations`, `memory`, `outputSchema`, ...) except
 * `agent`, which is built for you.
 *
 * @example
 * ```ts
 * import type { CreateAgentExecutorOptions } from "@agentrx/executors";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const options: CreateAgentExecutorOptions = {
 *   model: new ScriptedChatModel({ responses: ["Hi!"] }),
 *   tools: [],
 *   system: "You answer in one sentence.",
 *   maxIterations: 5,
 * };
 * ```
 */
export interface CreateAgentExecutorOptions<TStructured = unknown, TSteps extends boolean = boolean, TInputKey extends string = string>
  extends Omit<AgentExecutorOptions, "agent" | "outputSchema" | "returnIntermediateSteps" | "memory"> {
  /**
   * Any `@langchain/core` chat model (or text model). A model with `bindTools` (and a profile that
   * does not deny tool calling) gets the tool-calling agent; any other model the ReAct agent.
   */
  model: BaseLanguageModel;
  /** The tools the agent may call; names must be unique. */
  tools: readonly StructuredToolInterface[];
  /**
   * The system message.
   * @default "You are a helpful assistant. Use the tools when they help you answer."
   */
  system?: string | undefined;
  /**
   * Overrides the detection of tool calling: `true` for the tool-calling agent, `false` for ReAct
   * (any other value is refused).
   * @default whether the model supports tool calling
   */
  toolCalling?: boolean | undefined;
  /** A zod schema for the final answer: the result gains `structuredOutput` (see `AgentExecutorOptions.outputSchema`). */
  outputSchema?: z.ZodType<TStructured & Record<string, unknown>> | undefined;
  /** Include `intermediateSteps` in the result (typed as present when you write `true`). @default false */
  returnIntermediateSteps?: TSteps | undefined;
  /**
   * Conversation memory (see `AgentExecutorOptions.memory`); its `inputKey` is where the prompt
   * reads the user's message, and which input `invoke` and `stream` then require.
   */
  memory?: (ExecutorMemoryOptions & { inputKey?: TInputKey | undefined }) | undefined;
}

/**
 * The inputs of a run of a {@link CreatedAgentExecutor}: the user's message under `TInputKey`
 * (`input`, or the executor's `memory.inputKey`), which its prompt reads, and any other inputs.
 * For a key only known at run time (`string`), any inputs.
 *
 * @example
 * ```ts
 * import type { CreatedAgentExecutorInputs } from "@agentrx/executors";
 *
 * const inputs: CreatedAgentExecutorInputs = { input: "Weather in Paris?", chat_history: [] };
 * ```
 */
export type CreatedAgentExecutorInputs<TInputKey extends string = "input"> = string extends TInputKey
  ? Record<string, unknown>
  : { [K in TInputKey]: NonNullable<unknown> } & Record<string, unknown>;

/**
 * What {@link createAgentExecutor} returns: an `AgentExecutor` whose `invoke` and `stream` take
 * the user's message under `TInputKey` (`input` unless `memory.inputKey` names another key), as
 * its prompt reads it; without it a run is refused before it starts.
 *
 * @example
 * ```ts
 * import { type CreatedAgentExecutor, createAgentExecutor } from "@agentrx/executors";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const executor: CreatedAgentExecutor = createAgentExecutor({ model: new ScriptedChatModel({ responses: ["Hi!"] }), tools: [] });
 * const result = await executor.invoke({ input: "Hello" });
 * console.log(result.output); // "Hi!"
 * ```
 */
export interface CreatedAgentExecutor<out TStructured = unknown, out TSteps extends boolean = boolean, TInputKey extends string = "input">
  extends AgentExecutor<TStructured, TSteps> {
  /** As `AgentExecutor.invoke`, with the user's message required under `TInputKey`. */
  invoke(inputs: CreatedAgentExecutorInputs<TInputKey>, config?: AgentExecutorCallConfig): RunObservable<AgentExecutorResult<TStructured, TSteps>>;
  /** As `AgentExecutor.stream`, with the user's message required under `TInputKey`. */
  stream(inputs: CreatedAgentExecutorInputs<TInputKey>, config?: AgentExecutorCallConfig): RunObservable<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>>;
}

/**
 * An `AgentExecutor` from a model and tools: the agent type is chosen from the model's abilities
 * (the tool-calling agent for a model with `bindTools`, else the ReAct agent; see
 * `selectAgentType` in `@agentrx/agents`) and given a default prompt (the system message, the
 * conversation's history, the input, the scratchpad). Everything else is the executor's options.
 * It is the short form of `new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools })`.
 * The prompt reads the user's message from `input` (or `memory.inputKey`): `invoke` and `stream`
 * require it, and a run without it (or with it `undefined`) is refused before it starts (no event,
 * nothing recorded) with an `InvalidArgumentError` naming the key and the inputs given.
 *
 * @throws InvalidArgumentError when `model` is not a language model, `tools` is not an array of
 *   tools with unique names (none named `final_answer` with `outputSchema`), `system` is not a
 *   string or `toolCalling` not a boolean; the executor's own options are validated as
 *   `new AgentExecutor` does
 * @throws UnsupportedModelError (from `@agentrx/agents`) for `toolCalling: true` and a model without `bindTools`
 * @example
 * ```ts
 * import { createAgentExecutor } from "@agentrx/executors";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const executor = createAgentExecutor({ model: new ScriptedChatModel({ responses: ["Hello!"] }), tools: [] });
 * const result = await executor.invoke({ input: "Hi" });
 * console.log(result.output, result.stopReason); // "Hello!" "finish"
 * ```
 */
export function createAgentExecutor<TStructured = unknown, TSteps extends boolean = boolean, TInputKey extends string = "input">(
  options: CreateAgentExecutorOptions<TStructured, TSteps, TInputKey>,
): CreatedAgentExecutor<TStructured, TSteps, TInputKey> {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({ argument: "options", value: options, message: "createAgentExecutor: pass an options object such as { model, tools }." });
  }
  checkOptionKeys("createAgentExecutor", options, KNOWN_KEYS, { hints: MOVED });
  const { model, tools, system = DEFAULT_SYSTEM, toolCalling, ...executorOptions } = options;
  const { invoke, withConfig } = (typeof model === "object" && model !== null ? model : {}) as { invoke?: unknown; withConfig?: unknown };
  if (typeof invoke !== "function" || typeof withConfig !== "function") {
    throw new InvalidArgumentError({
      argument: "model",
      value: model,
      message: `createAgentExecutor: \`model\` must be a @langchain/core chat model (for example OpenAIChatModel from @agentrx/core/openai, or ScriptedChatModel from @agentrx/core/testing)${isThenable(model) ? ", got a Promise (did you forget to `await` it?)" : ""}.`,
    });
  }
  // A wrapped model (`bindTools`, `withConfig`, `withRetry`: a RunnableBinding or RunnableRetry) has
  // no `bindTools` of its own: it would silently become a ReAct agent over a prompt it was not meant for.
  const bound = (model as { bound?: unknown }).bound;
  if (typeof (bound as { invoke?: unknown } | null | undefined)?.invoke === "function") {
    throw new InvalidArgumentError({
      argument: "model",
      value: model,
      message:
        "createAgentExecutor: `model` is a wrapped model (made by bindTools, withConfig or withRetry), not the chat model itself: pass the chat model; " +
        "createAgentExecutor binds the tools itself (set call options on the model, e.g. new OpenAIChatModel({ temperature }), and retries with its maxRetries).",
    });
  }
  if (typeof system !== "string") {
    throw new InvalidArgumentError({ argument: "system", value: system, message: `createAgentExecutor: \`system\` must be a string, got ${typeof system}.` });
  }
  if (toolCalling !== undefined && typeof toolCalling !== "boolean") {
    throw new InvalidArgumentError({
      argument: "toolCalling",
      value: toolCalling,
      message: `createAgentExecutor: \`toolCalling\` must be true (the tool-calling agent), false (ReAct) or left out (decided from the model), got ${JSON.stringify(toolCalling) ?? typeof toolCalling}.`,
    });
  }
  if (toolCalling === true && typeof (model as { bindTools?: unknown }).bindTools !== "function") {
    throw new UnsupportedModelError({
      agentType: "tool-calling",
      requirement: "tool-calling",
      message: "createAgentExecutor: `toolCalling: true`, but the model has no bindTools method, so it cannot call tools natively. Use a chat model that supports tool calling, or leave `toolCalling` out (or set it to false) for the ReAct agent.",
    });
  }
  // Checked here, in the name of the function the user called, not the agent's or the executor's.
  assertTools(tools, "createAgentExecutor", { reserved: executorOptions.outputSchema === undefined ? [] : [RESERVED_FINAL_ANSWER] });
  const strategy = selectAgentType({ llm: model, ...(toolCalling === undefined ? {} : { toolCalling }) }).name;
  // The prompt reads the history and the user's message where the executor's memory puts them.
  const keys = memoryKeys(executorOptions.memory);
  const prompt = createDefaultAgentPrompt(system, strategy, keys);
  const agentTools = [...tools];
  let agent;
  if (strategy === "tool-calling") {
    // With an output schema, the model answers through the final_answer tool (never run by the executor).
    const bound = executorOptions.outputSchema ? [...agentTools, finalAnswerTool(executorOptions.outputSchema)] : agentTools;
    agent = createToolCallingAgent({ llm: model as BaseChatModel, tools: bound, prompt });
  } else {
    agent = createReactAgent({ llm: model, tools: agentTools, prompt });
  }
  const executor = new UserMessageAgentExecutor<TStructured, TSteps>({ ...executorOptions, agent, tools: agentTools }, keys.inputKey ?? "input");
  return executor as CreatedAgentExecutor<TStructured, TSteps, TInputKey>;
}

/**
 * The executor {@link createAgentExecutor} returns: an `AgentExecutor` whose new runs (and
 * `fork`'s replacement inputs) must hold the user's message under `inputKey`, which its prompt
 * reads (see {@link requireUserMessage}).
 */
class UserMessageAgentExecutor<TStructured, TSteps extends boolean> extends AgentExecutor<TStructured, TSteps> {
  private readonly requireInput: (inputs: Record<string, unknown>, call: "invoke" | "fork") => void;

  constructor(options: ConstructorParameters<typeof AgentExecutor<TStructured, TSteps>>[0], inputKey: string) {
    super(options);
    this.requireInput = requireUserMessage(inputKey);
  }

  protected override checkRunInputs(inputs: Record<string, unknown>, call: "invoke" | "fork"): void {
    this.requireInput(inputs, call);
  }
}

/**
 * A new run's inputs (`fork`'s replacement inputs too) must hold the user's message under `key`:
 * without it (or with it `undefined`, which the prompt would write as the text "undefined"), the
 * run is refused before it starts, naming the key and the inputs given.
 */
function requireUserMessage(key: string): (inputs: Record<string, unknown>, call: "invoke" | "fork") => void {
  const renamed = key === "input" ? "" : "; `memory.inputKey` names it";
  return (inputs, call) => {
    if (inputs[key] !== undefined) return;
    const found = givenInputs(inputs, key);
    const whose = call === "fork" ? "fork's inputs" : "inputs";
    const fix = call === "fork" ? `executor.fork(runId, { inputs: { ${key}: "..." } })` : `executor.invoke({ ${key}: "..." })`;
    throw new InvalidArgumentError({
      argument: "inputs",
      value: inputs,
      message: `createAgentExecutor: the ${whose} have no \`${key}\` (the user's message, which the agent's prompt reads${renamed}); ${found}. Call ${fix}.`,
    });
  };
}

/** The inputs a `memory` option fills and reads (its own check, with the executor's, names a bad one). */
function memoryKeys(memory: unknown): { historyKey?: string; inputKey?: string } {
  const { historyKey, inputKey } = (typeof memory === "object" && memory !== null ? memory : {}) as { historyKey?: unknown; inputKey?: unknown };
  return {
    ...(typeof historyKey === "string" && historyKey !== "" ? { historyKey } : {}),
    ...(typeof inputKey === "string" && inputKey !== "" ? { inputKey } : {}),
  };
}

/** What `createAgentExecutor` takes: its own options, and the executor's but `agent` (it builds the agent). */
const OWN_KEYS = ["model", "tools", "system", "toolCalling", "outputSchema", "returnIntermediateSteps"] satisfies (keyof CreateAgentExecutorOptions)[];
const KNOWN_KEYS: readonly string[] = [...new Set([...OWN_KEYS, ...EXECUTOR_OPTIONS.names.filter((name) => name !== "agent")])];

/** Where a key people bring from elsewhere goes here. */
const MOVED: Readonly<Record<string, string>> = {
  llm: "the model goes in `model`",
  prompt: "`system` sets the system message; for a prompt of your own, build the agent (createToolCallingAgent) and pass it to new AgentExecutor({ agent, tools })",
  systemPrompt: "the system message goes in `system`",
  agent: "createAgentExecutor builds the agent from `model`; to give your own, use new AgentExecutor({ agent, tools })",
};

