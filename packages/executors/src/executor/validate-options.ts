import { type ReservedToolName, assertTools, isAgentType } from "@agentrx/agents";
import { EARLY_STOP_OUTPUT, InvalidArgumentError, checkOptionKeys, describeThrown, isInDoubtPolicy, refusePromise, showValue as show } from "@agentrx/core";
import type { InDoubtPolicy } from "@agentrx/core";
import type { AgentAction, AgentStep } from "@agentrx/core";
import type { OutputParserException } from "@langchain/core/output_parsers";
import { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { AgentExecutorOptions } from "./agent-executor-options";
import type { RunStore } from "../runs/run-store";
import { type ApprovalCheck, approvalCheck } from "./approvals";
import type { BudgetSpent } from "../operators/budget-spent";
import { isPriced } from "../operators/priced-condition";
import type { ExecutorMemoryOptions, ResolvedMemory } from "./conversation-memory";
import type { StopReason } from "./events";
import type { StopCondition } from "./stop-condition";
import type { TelemetryOptions } from "../telemetry/telemetry-options";
import { resolveTelemetry } from "../telemetry/with-telemetry";
import { formatUsd, validatePrices } from "../cost/cost";
import { ExecutorPrices } from "../cost/executor-prices";
import { type MiddlewareChain, resolveMiddleware } from "../middleware/resolve-middleware";
import { FOLLOW_UPS, type FollowUp } from "../steering/follow-up";
import { checkAgentPipeline, promptVariablesOf } from "../pipeline/check-agent-pipeline";
import { FINAL_ANSWER_TOOL, isFinalAnswerTool } from "./structured-output";
import { EXECUTOR_OPTIONS } from "./option-keys";
import { toOutputString } from "./run-helpers";

/** Options after validation, with defaults applied. @internal */
export interface ResolvedOptions {
  agent: AgentExecutorOptions["agent"];
  /**
   * The user's message's input (`memory.inputKey`, else `input`) with the variables of the agent's
   * prompt, when that prompt reads the run's inputs as given (see `promptVariablesOf`) and not that
   * one: a run's message there would never reach the model.
   */
  inputUnread: { key: string; variables: ReadonlySet<string> } | undefined;
  tools: readonly StructuredToolInterface[];
  toolsByName: ReadonlyMap<string, StructuredToolInterface>;
  toolNames: readonly string[];
  maxIterations: number;
  maxExecutionTime: number | undefined;
  earlyStoppingMethod: "force" | "generate";
  handleParsingErrors: false | true | string | ((error: OutputParserException) => string);
  handleToolRuntimeErrors: boolean | ((error: Error, action: AgentAction) => string);
  trim: ((steps: AgentStep[]) => AgentStep[]) | undefined;
  returnIntermediateSteps: boolean;
  maxConcurrency: number;
  stopWhen: readonly StopCondition[];
  store: RunStore | undefined;
  leaseMs: number;
  /** How long a store call may take before the run fails with a timeout `RunStoreError`. */
  storeTimeoutMs: number;
  /** What a resume does with a tool call that was started and has no recorded result. */
  inDoubt: InDoubtPolicy;
  recordModelCalls: boolean;
  /** Whether model calls' full requests are recorded; undefined: for `stream()`, not `invoke()`. */
  recordPrompts: boolean | undefined;
  recordTokens: "coalesced" | "each";
  /** How model calls are priced; undefined: they are not. */
  prices: ExecutorPrices | undefined;
  /** Which tools start while the model still streams; undefined: none. */
  eager: ((tool: StructuredToolInterface) => boolean) | undefined;
  /** Whether the executor's own `needsApproval` is set (its calls then never start early). */
  approvalOption: boolean;
  maxObservationLength: number;
  /** The output of a run cut short under "force" (and the fallback under "generate"). */
  earlyStopOutput: (reason: StopReason, stoppedBy: unknown) => string;
  /** Print every run's trace. */
  verbose: boolean;
  memory: ResolvedMemory | undefined;
  /** A zod schema the final answer must fit. */
  outputSchema: { safeParse(value: unknown): unknown } | undefined;
  /** Whether an action needs approval; undefined when nothing ever does. */
  approval: ApprovalCheck | undefined;
  /** OpenTelemetry spans; undefined: none. */
  telemetry: TelemetryOptions | undefined;
  /** The middleware by hook; undefined when there is none (the loop then has no middleware code in its path). */
  middleware: MiddlewareChain | undefined;
  /** What a new input on a busy thread does; undefined: nothing is checked. */
  followUp: FollowUp | undefined;
}

/**
 * The output of a run cut short: LangChain's sentence for the iteration and time limits, and the
 * budget that was spent for a stop condition. @internal
 */
export function defaultEarlyStopOutput(reason: StopReason, stoppedBy: unknown): string {
  const message = (stoppedBy as { message?: unknown } | undefined)?.message;
  // A middleware's `stopRun` gives the output it meant, whatever the reason.
  if ((reason === "guardrail" || reason === "repeated_call" || stoppedByMiddleware(stoppedBy)) && typeof message === "string") return message;
  if (reason !== "budget") return EARLY_STOP_OUTPUT;
  const spent = stoppedBy as Partial<BudgetSpent> | undefined;
  const names: Record<string, string> = { tokens: "token", tool_calls: "tool-call", time: "time", cost: "cost" };
  const name = spent?.budget === undefined ? undefined : names[spent.budget];
  if (name === undefined) return "Agent stopped: a stop condition ended the run.";
  // As formatUsd writes amounts (cents for a dollar or more), and an amount under $0.0001 to three
  // significant digits, so that a budget of a hundredth of a cent still reads as one.
  const dollars = (value: number): string => (value > 0 && value < 0.0001 ? `$${value.toFixed(Math.min(20, 2 - Math.floor(Math.log10(value))))}` : formatUsd(value));
  const used =
    typeof spent?.used !== "number" || typeof spent.limit !== "number"
      ? ""
      : spent.budget === "cost"
        ? ` (${dollars(spent.used)} used of ${dollars(spent.limit)})`
        : ` (${spent.used} used of ${spent.limit})`;
  return `Agent stopped because its ${name} budget was spent${used}.`;
}

/** Whether a run was stopped by a middleware's `stopRun` (its `stoppedBy` names the middleware). @internal */
export function stoppedByMiddleware(stoppedBy: unknown): boolean {
  return typeof (stoppedBy as { middleware?: unknown } | undefined)?.middleware === "string";
}

/** Observations longer than this many characters are truncated unless `maxObservationLength` says otherwise. */
export const DEFAULT_MAX_OBSERVATION_LENGTH = 100_000;

/**
 * With `outputSchema`, the name of the tool the model answers through: a tool of the user's with
 * that name would never run (a call to it is the answer). The executor's own `finalAnswerTool`
 * (given to it by `createAgentExecutor`, or by a user who builds the agent) may have it. @internal
 */
export const RESERVED_FINAL_ANSWER: ReservedToolName = {
  name: FINAL_ANSWER_TOOL,
  reason: `the tool the model answers through with \`outputSchema\` (a call to ${FINAL_ANSWER_TOOL} is the run's answer, so your tool would never run)`,
  allows: isFinalAnswerTool,
};

/** The keys of the `memory` option. */
const MEMORY_KEYS: readonly string[] = ["memory", "historyKey", "inputKey"];

function fail(argument: string, value: unknown, message: string): never {
  throw new InvalidArgumentError({ argument, value, message: `AgentExecutor: ${message}` });
}

/**
 * A trim function whose result is checked: anything but an array (a function that forgot to
 * return, an async one) fails the run with an error naming the option, rather than reaching the
 * agent as its steps.
 */
function checkedTrim(trim: (steps: AgentStep[]) => AgentStep[]): (steps: AgentStep[]) => AgentStep[] {
  return (steps) => {
    const kept: unknown = trim(steps);
    if (!Array.isArray(kept)) {
      const got = refusePromise(kept) ? "a Promise (it is called synchronously, before each agent call)" : show(kept);
      fail("trimIntermediateSteps", kept, `\`trimIntermediateSteps\` must return an array of steps (the ones the agent sees), got ${got}.`);
    }
    return kept as AgentStep[];
  };
}

/**
 * An `earlyStopOutput` function whose result is checked as `handleParsingErrors`' is: a promise
 * (an async function) or nothing (one that forgot to return) fails the run with an error naming
 * the option, rather than end it with "{}" or ""; a value that is not a string is written as JSON.
 */
function checkedEarlyStopOutput(output: (reason: StopReason, stoppedBy: unknown) => string): ResolvedOptions["earlyStopOutput"] {
  return (reason, stoppedBy) => {
    const text: unknown = output(reason, stoppedBy);
    if (typeof text === "string") return text;
    if (text === undefined || refusePromise(text)) {
      fail("earlyStopOutput", text, `\`earlyStopOutput\` must return the run's output text (synchronously), got ${text === undefined ? "undefined" : "a Promise"}.`);
    }
    return toOutputString(text);
  };
}

/**
 * An `eagerTools` function whose answer is checked: a boolean. One that throws, or answers
 * anything else (a promise from an async function, nothing), throws an error naming the option
 * (the thrown error as its `cause`), which fails the run: it is called from the model's callbacks
 * as the model streams, where `@langchain/core` would only log the error.
 */
function checkedEager(eager: (tool: StructuredToolInterface) => boolean): (tool: StructuredToolInterface) => boolean {
  return (tool) => {
    let answer: unknown;
    try {
      answer = eager(tool);
    } catch (error) {
      throw new InvalidArgumentError({
        argument: "eagerTools",
        value: eager,
        message: `AgentExecutor: the \`eagerTools\` function threw for tool "${tool.name}": ${describeThrown(error, "the function")}`,
        cause: error,
      });
    }
    if (typeof answer === "boolean") return answer;
    const got = refusePromise(answer) ? "a Promise (it is called synchronously, as the model streams)" : show(answer);
    return fail("eagerTools", answer, `the \`eagerTools\` function must return a boolean (whether tool "${tool.name}" may start while the model streams), got ${got}.`);
  };
}

/** Where options of LangChain's classic executor that this one does not take go instead. */
const CLASSIC_OPTION_HINTS: Readonly<Record<string, string>> = {
  callbacks: "callbacks are given per call: executor.invoke(inputs, { callbacks })",
  tags: "tags are given per call: executor.invoke(inputs, { tags })",
  metadata: "metadata is given per call: executor.invoke(inputs, { metadata })",
  llm: "the model goes in the agent (createToolCallingAgent({ llm, tools, prompt })), or use createAgentExecutor({ model, tools })",
  // LangChain v1's createAgent({ model, tools }) and the AI SDK name it `model`.
  model: "the model goes in the agent (createToolCallingAgent({ llm, tools, prompt })), or use createAgentExecutor({ model, tools })",
  returnOnlyOutputs: "it has no counterpart: a result holds the inputs, `output`, `stopReason` and the run's details",
};

/** Validates the constructor options and applies defaults. @internal */
export function validateOptions(options: AgentExecutorOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) {
    fail("options", options, "expected an options object `{ agent, tools, ...options }`.");
  }
  checkOptionKeys("AgentExecutor", options, EXECUTOR_OPTIONS.names, { hints: CLASSIC_OPTION_HINTS });
  const {
    agent,
    tools,
    maxIterations = 15,
    maxExecutionTime,
    earlyStoppingMethod = "force",
    handleParsingErrors = false,
    handleToolRuntimeErrors = true,
    trimIntermediateSteps = -1,
    returnIntermediateSteps = false,
    maxConcurrency = Number.POSITIVE_INFINITY,
    stopWhen,
    store,
    leaseMs = 30_000,
    storeTimeoutMs = 10_000,
    inDoubt = "retry",
    recordModelCalls = true,
    recordTokens = "coalesced",
    recordPrompts,
    prices,
    eagerTools = false,
    needsApproval,
    maxObservationLength = DEFAULT_MAX_OBSERVATION_LENGTH,
    earlyStopOutput,
    verbose = false,
    memory,
    outputSchema,
    telemetry,
    middleware,
    followUp,
  } = options;

  if (!Runnable.isRunnable(agent)) {
    // An agent type (defineAgentType, a community package's export) makes agents: it is not one.
    const given: unknown = agent;
    const type = isAgentType(given) ? given.name : undefined;
    fail(
      "agent",
      agent,
      typeof type === "string"
        ? `\`agent\` is the agent type "${type}", not an agent: make one with its create(), e.g. new AgentExecutor({ agent: agentType.create({ llm, tools }), tools }).`
        : "`agent` must be a @langchain/core Runnable (e.g. from createToolCallingAgent or RunnableLambda.from).",
    );
  }
  // A chat model (or a wrapped one) is not an agent: it answers with a message, not an action or
  // an answer, and would fail the run with a LangChain internal (promptValue.toChatMessages).
  if (isChatModel(agent) || isChatModel((agent as { bound?: unknown }).bound)) {
    fail(
      "agent",
      agent,
      "`agent` is a chat model, not an agent: make an agent of it, e.g. createToolCallingAgent({ llm, tools, prompt }) from @agentrx/agents, or use createAgentExecutor({ model, tools }), which does.",
    );
  }
  assertTools(tools, "AgentExecutor", { reserved: outputSchema === undefined ? [] : [RESERVED_FINAL_ANSWER] });
  const toolsByName = new Map<string, StructuredToolInterface>(tools.map((tool) => [tool.name, tool]));
  // A hand-built pipeline that cannot work (a prompt that never gets the steps, other tools): refused now.
  checkAgentPipeline(agent, [...toolsByName.keys()], [FINAL_ANSWER_TOOL]);
  // Infinity is no limit, as in LangChain's classic executor (Python's `None`).
  if (!(maxIterations === Number.POSITIVE_INFINITY || (Number.isInteger(maxIterations) && maxIterations >= 0))) {
    fail("maxIterations", maxIterations, `\`maxIterations\` must be an integer >= 0, or Infinity for no limit, got ${show(maxIterations)}.`);
  }
  if (maxExecutionTime !== undefined && !(typeof maxExecutionTime === "number" && maxExecutionTime >= 0 && maxExecutionTime < 2 ** 31)) {
    fail("maxExecutionTime", maxExecutionTime, `\`maxExecutionTime\` must be a number of milliseconds >= 0 (below 2^31), got ${show(maxExecutionTime)}.`);
  }
  if (earlyStoppingMethod !== "force" && earlyStoppingMethod !== "generate") {
    fail("earlyStoppingMethod", earlyStoppingMethod, `\`earlyStoppingMethod\` must be "force" or "generate", got ${show(earlyStoppingMethod)}.`);
  }
  if (!["boolean", "string", "function"].includes(typeof handleParsingErrors)) {
    fail("handleParsingErrors", handleParsingErrors, `\`handleParsingErrors\` must be a boolean, a string or a function, got ${show(handleParsingErrors)}.`);
  }
  if (!["boolean", "function"].includes(typeof handleToolRuntimeErrors)) {
    fail("handleToolRuntimeErrors", handleToolRuntimeErrors, `\`handleToolRuntimeErrors\` must be a boolean or a function, got ${show(handleToolRuntimeErrors)}.`);
  }
  let trim: ResolvedOptions["trim"];
  if (typeof trimIntermediateSteps === "function") trim = checkedTrim(trimIntermediateSteps);
  else if (Number.isInteger(trimIntermediateSteps)) {
    const keep = trimIntermediateSteps;
    if (keep > 0) trim = (steps) => (steps.length > keep ? steps.slice(-keep) : steps);
  } else {
    fail("trimIntermediateSteps", trimIntermediateSteps, `\`trimIntermediateSteps\` must be an integer or a function, got ${show(trimIntermediateSteps)}.`);
  }
  if (typeof returnIntermediateSteps !== "boolean") {
    fail("returnIntermediateSteps", returnIntermediateSteps, `\`returnIntermediateSteps\` must be a boolean, got ${show(returnIntermediateSteps)}.`);
  }
  if (!(maxConcurrency === Number.POSITIVE_INFINITY || (Number.isInteger(maxConcurrency) && maxConcurrency >= 1))) {
    fail("maxConcurrency", maxConcurrency, `\`maxConcurrency\` must be an integer >= 1 or Infinity, got ${show(maxConcurrency)}.`);
  }
  validateStore(store, "store");
  if (!(typeof leaseMs === "number" && Number.isInteger(leaseMs) && leaseMs >= 100 && leaseMs < 2 ** 31)) {
    fail("leaseMs", leaseMs, `\`leaseMs\` must be an integer number of milliseconds >= 100, got ${show(leaseMs)}.`);
  }
  if (!(typeof storeTimeoutMs === "number" && Number.isInteger(storeTimeoutMs) && storeTimeoutMs >= 1 && storeTimeoutMs < 2 ** 31)) {
    fail("storeTimeoutMs", storeTimeoutMs, `\`storeTimeoutMs\` must be an integer number of milliseconds >= 1, got ${show(storeTimeoutMs)}.`);
  }
  if (!isInDoubtPolicy(inDoubt)) {
    fail("inDoubt", inDoubt, `\`inDoubt\` must be "retry", "interrupt" or "fail", got ${show(inDoubt)}.`);
  }
  if (!(maxObservationLength === Number.POSITIVE_INFINITY || (Number.isInteger(maxObservationLength) && maxObservationLength >= 1))) {
    fail("maxObservationLength", maxObservationLength, `\`maxObservationLength\` must be an integer >= 1 (characters) or Infinity, got ${show(maxObservationLength)}.`);
  }
  if (earlyStopOutput !== undefined && typeof earlyStopOutput !== "string" && typeof earlyStopOutput !== "function") {
    fail("earlyStopOutput", earlyStopOutput, `\`earlyStopOutput\` must be a string or a function (reason, stoppedBy) => string, got ${show(earlyStopOutput)}.`);
  }
  let resolvedMemory: ResolvedMemory | undefined;
  if (memory !== undefined) {
    const given = memory as Partial<ExecutorMemoryOptions> | null;
    const inner = given?.memory;
    if (typeof inner?.getMessages !== "function" || typeof inner.addMessages !== "function") {
      fail("memory", memory, "`memory` must be { memory: ThreadMemory (from @agentrx/runs) or an object with getMessages and addMessages, historyKey?, inputKey? }.");
    }
    for (const key of Object.keys(given as object)) {
      if (!MEMORY_KEYS.includes(key)) fail(`memory.${key}`, (given as Record<string, unknown>)[key], `unknown option \`memory.${key}\`. Known: ${MEMORY_KEYS.join(", ")}.`);
    }
    const { historyKey = "chat_history", inputKey = "input" } = given as ExecutorMemoryOptions;
    if (typeof historyKey !== "string" || historyKey === "") fail("memory.historyKey", historyKey, "`memory.historyKey` must be a non-empty string.");
    if (typeof inputKey !== "string" || inputKey === "") fail("memory.inputKey", inputKey, "`memory.inputKey` must be a non-empty string.");
    resolvedMemory = { memory: inner, historyKey, inputKey };
  }
  if (outputSchema !== undefined && typeof (outputSchema as { safeParse?: unknown } | null)?.safeParse !== "function") {
    fail("outputSchema", outputSchema, "`outputSchema` must be a zod schema (e.g. z.object({ ... })).");
  }
  if (typeof verbose !== "boolean") fail("verbose", verbose, `\`verbose\` must be a boolean, got ${show(verbose)}.`);
  if (needsApproval !== undefined && typeof needsApproval !== "function") {
    fail("needsApproval", needsApproval, `\`needsApproval\` must be a function (action) => boolean, got ${show(needsApproval)}.`);
  }
  if (typeof eagerTools !== "boolean" && typeof eagerTools !== "function") {
    fail("eagerTools", eagerTools, `\`eagerTools\` must be a boolean or a function (tool) => boolean, got ${show(eagerTools)}.`);
  }
  if (recordTokens !== "coalesced" && recordTokens !== "each") {
    fail("recordTokens", recordTokens, `\`recordTokens\` must be "coalesced" or "each", got ${show(recordTokens)}.`);
  }
  const keptPrices = validatePrices(prices);
  if (recordPrompts !== undefined && typeof recordPrompts !== "boolean") {
    fail("recordPrompts", recordPrompts, `\`recordPrompts\` must be a boolean, got ${show(recordPrompts)}.`);
  }
  if (recordPrompts === true && recordModelCalls === false) {
    fail("recordPrompts", recordPrompts, "`recordPrompts: true` needs `recordModelCalls` (prompts are recorded with the model calls); remove `recordModelCalls: false`.");
  }
  if (typeof recordModelCalls !== "boolean") {
    fail("recordModelCalls", recordModelCalls, `\`recordModelCalls\` must be a boolean, got ${show(recordModelCalls)}.`);
  }
  const promptVariables = promptVariablesOf(agent);
  const messageKey = resolvedMemory?.inputKey ?? "input";
  return {
    agent,
    inputUnread: promptVariables !== undefined && !promptVariables.has(messageKey) ? { key: messageKey, variables: promptVariables } : undefined,
    tools,
    toolsByName,
    toolNames: [...toolsByName.keys()],
    maxIterations,
    maxExecutionTime,
    earlyStoppingMethod,
    handleParsingErrors,
    handleToolRuntimeErrors,
    trim,
    returnIntermediateSteps,
    maxConcurrency,
    stopWhen: normalizeStopWhen(stopWhen, "stopWhen", prices !== undefined),
    store,
    leaseMs,
    storeTimeoutMs,
    inDoubt,
    recordModelCalls,
    recordTokens,
    recordPrompts: recordModelCalls ? recordPrompts : false,
    prices: keptPrices === undefined ? undefined : new ExecutorPrices(keptPrices),
    eager: eagerTools === true ? () => true : typeof eagerTools === "function" ? checkedEager(eagerTools) : undefined,
    approvalOption: needsApproval !== undefined,
    approval: approvalCheck(toolsByName, needsApproval),
    maxObservationLength,
    earlyStopOutput:
      typeof earlyStopOutput === "string" ? () => earlyStopOutput : typeof earlyStopOutput === "function" ? checkedEarlyStopOutput(earlyStopOutput) : defaultEarlyStopOutput,
    verbose,
    memory: resolvedMemory,
    outputSchema: outputSchema as ResolvedOptions["outputSchema"],
    telemetry: resolveTelemetry(telemetry),
    middleware: resolveMiddleware(middleware),
    followUp: checkFollowUp(followUp, store),
  };
}

const STORE_METHODS = ["createRun", "claimRun", "write", "getRun", "readEvents"] as const;

/** Checks that `store` is a `RunStore` (or undefined). @internal */
export function validateStore(store: unknown, argument: string, owner = "AgentExecutor"): asserts store is RunStore | undefined {
  if (store === undefined) return;
  const missing = STORE_METHODS.filter((name) => typeof (store as Record<string, unknown> | null)?.[name] !== "function");
  if (missing.length > 0) {
    const what = typeof store !== "object" || store === null ? `it is ${store === null ? "null" : typeof store}` : `it has no ${missing.join(", ")} method`;
    throw new InvalidArgumentError({ argument, value: store, message: `${owner}: \`${argument}\` must be a RunStore (e.g. new SqliteRunStore() from @agentrx/runs); ${what}.` });
  }
}

/** Whether `value` is a `@langchain/core` chat model (`BaseChatModel`, from any copy of the package). */
function isChatModel(value: unknown): boolean {
  const modelType = (value as { _modelType?: unknown } | null | undefined)?._modelType;
  if (typeof modelType !== "function") return false;
  try {
    return (modelType as () => unknown).call(value) === "base_chat_model";
  } catch {
    return false;
  }
}

/** What LangGraph's `BaseStore` has, and a `RunStore` has not. */
const LANGGRAPH_STORE_METHODS = ["batch", "get", "put", "search"] as const;

/**
 * Whether `value` is LangGraph's store (a `BaseStore`, the long-term memory a compiled graph hands
 * its nodes in `config.store`) and not a `RunStore`: it has LangGraph's methods and none of a
 * RunStore's. A call's config that holds one (the executor run inside a LangGraph node, given the
 * node's config) records the run where it would without it.
 *
 * @internal
 */
export function isLangGraphStore(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const methods = value as Record<string, unknown>;
  return LANGGRAPH_STORE_METHODS.every((name) => typeof methods[name] === "function") && STORE_METHODS.every((name) => typeof methods[name] !== "function");
}

/**
 * The `RunStore` a call's `store` names: `undefined` for none, or for LangGraph's store (see
 * {@link isLangGraphStore}); any other value is checked to be a `RunStore`.
 *
 * @throws InvalidArgumentError naming `argument` when it is neither
 * @internal
 */
export function callStoreOf(store: unknown, argument: string): RunStore | undefined {
  if (isLangGraphStore(store)) return undefined;
  validateStore(store, argument);
  return store;
}

/** Normalises `stopWhen` (one condition or many) to an array, validating each. @internal */
export function normalizeStopWhen(value: unknown, argument: string, priced: boolean): readonly StopCondition[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  list.forEach((condition, index) => {
    const name = `${argument}${Array.isArray(value) ? `[${index}]` : ""}`;
    if (typeof condition !== "function") {
      fail(argument, condition, `\`${name}\` must be a stop condition (a function from the event observable to an observable), got ${show(condition)}.`);
    }
    // Without prices no model call has a cost: a cost budget would never stop the run.
    if (!priced && isPriced(condition)) {
      fail(argument, condition, `\`${name}\` is a costBudget, but the executor has no \`prices\`: no model call would have a cost, so it would never stop the run. Give the executor \`prices\` ("auto", a price table or a function; see docs/cost.md).`);
    }
  });
  return list as StopCondition[];
}

/** `followUp` checked: one of its values, with a store to find a thread's running run in. */
function checkFollowUp(followUp: unknown, store: RunStore | undefined): FollowUp | undefined {
  if (followUp === undefined) return undefined;
  if (!FOLLOW_UPS.includes(followUp as FollowUp)) fail("followUp", followUp, `\`followUp\` must be "queue", "interrupt" or "reject", got ${show(followUp)}.`);
  if (store === undefined) fail("followUp", followUp, "`followUp` needs a `store`: the running runs of a thread are found there (pass `store`, e.g. new SqliteRunStore() from @agentrx/runs).");
  return followUp as FollowUp;
}

/**
 * Checks the `RunnableConfig` of one call (`invoke`/`stream`'s `config`, `resume`/`fork`'s
 * `options`): the settings the executor reads or hands on to every agent and tool call, so that a
 * wrong one fails the call naming it, not deep inside the run. Once per call, never per step.
 *
 * @param owner the method, as messages name it (`"AgentExecutor"`, `"AgentExecutor.resume"`)
 * @param name what the caller called the object (`"config"` or `"options"`), the prefix of `argument`
 * @throws InvalidArgumentError naming the setting (`config.signal`, ...)
 * @internal
 */
export function validateCallConfig(config: unknown, owner: string, name: string): void {
  const invalid = (key: string, value: unknown, expected: string): never => {
    const argument = key === "" ? name : `${name}.${key}`;
    throw new InvalidArgumentError({ argument, value, message: `${owner}: \`${key === "" ? name : key}\` must be ${expected}, got ${show(value)}.` });
  };
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    invalid("", config, "an object (a RunnableConfig such as { runId, signal, tags, configurable })");
  }
  const { runId, signal, configurable, timeout, tags, metadata, callbacks, maxConcurrency } = config as Record<string, unknown>;
  if (runId !== undefined && (typeof runId !== "string" || runId === "")) invalid("runId", runId, "a non-empty string");
  if (signal !== undefined && !(typeof (signal as AbortSignal | null)?.addEventListener === "function" && typeof (signal as AbortSignal).aborted === "boolean")) {
    invalid("signal", signal, "an AbortSignal (e.g. new AbortController().signal)");
  }
  if (configurable !== undefined && (typeof configurable !== "object" || configurable === null || Array.isArray(configurable))) {
    invalid("configurable", configurable, "an object (passed on to the agent and every tool)");
  }
  if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0 && timeout < 2 ** 31)) {
    invalid("timeout", timeout, "a number of milliseconds > 0 (below 2^31), the limit of each agent and tool call");
  }
  if (maxConcurrency !== undefined && !(maxConcurrency === Number.POSITIVE_INFINITY || (Number.isInteger(maxConcurrency) && (maxConcurrency as number) >= 1))) {
    invalid("maxConcurrency", maxConcurrency, "an integer >= 1 or Infinity (how many of a turn's tool calls run at once)");
  }
  if (tags !== undefined && !(Array.isArray(tags) && tags.every((tag) => typeof tag === "string"))) invalid("tags", tags, "an array of strings");
  if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))) invalid("metadata", metadata, "an object");
  // `@langchain/core`'s Callbacks: handlers (objects), or a CallbackManager (which holds `handlers`).
  const handlers = Array.isArray(callbacks) ? callbacks : (callbacks as { handlers?: unknown } | null | undefined)?.handlers;
  if (callbacks !== undefined && callbacks !== null && !(Array.isArray(handlers) && handlers.every((handler) => typeof handler === "object" && handler !== null))) {
    invalid("callbacks", callbacks, "an array of callback handlers or a CallbackManager");
  }
}

/**
 * The options of a run under its call's `maxConcurrency` (checked by {@link validateCallConfig}):
 * the lower of it and the executor's caps the turn's tool calls; `options` itself when the call's
 * is absent or no lower (no copy).
 *
 * @internal
 */
export function withCallConcurrency(options: ResolvedOptions, config: { maxConcurrency?: number }): ResolvedOptions {
  const cap = config.maxConcurrency;
  return cap === undefined || cap >= options.maxConcurrency ? options : { ...options, maxConcurrency: cap };
}
