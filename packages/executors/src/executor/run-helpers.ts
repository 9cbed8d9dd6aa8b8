import type { AgentAction, AgentFinish, AgentStep } from "@agentrx/core";
import { InvalidArgumentError, isAgentAction, isThenable, isToolAgentAction, observationText, describeThrown, valueToText } from "@agentrx/core";
import { AIMessage, type BaseMessage, FunctionMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { CallbackManager, type CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import type { SerializedNotImplemented } from "@langchain/core/load/serializable";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { ActionEvent, OutputEvent, StepEvent, StopReason } from "./events";
import { InvalidAgentOutputError } from "./invalid-agent-output-error";
import { SUB_RUN_KEY, type SubRunSink } from "./sub-run";
import type { TokenForwarder } from "./token-forwarder";
import { randomUuid } from "../runs/random-uuid";

// Small helpers of the run loop. @internal

const SERIALIZED_EXECUTOR: SerializedNotImplemented = { lc: 1, type: "not_implemented", id: ["agentrx", "executors", "AgentExecutor"] };

/** A new run's id: a random UUID, as one flat string. */
export function newRunId(): string {
  // `crypto.randomUUID()` builds its string from some 20 concatenated pieces, which V8 keeps as a
  // tree (about 490 bytes) for as long as the run holds its id; `toLowerCase` (the UUID is lower
  // case already) returns it as one flat string (about 65 bytes).
  return randomUuid().toLowerCase();
}

/**
 * Starts the run's chain run in the caller's callbacks (`config.callbacks`, tags, metadata);
 * undefined when there are none. `runId` names it (undefined for a resumed run: a new one).
 */
export function startChainRun(config: RunnableConfig, inputs: Record<string, unknown>, runId: string | undefined): Promise<CallbackManagerForChainRun> | undefined {
  const manager = CallbackManager.configure(config.callbacks, undefined, config.tags, undefined, config.metadata);
  return manager?.handleChainStart(SERIALIZED_EXECUTOR, inputs, runId, undefined, undefined, undefined, config.runName ?? "AgentExecutor");
}

/**
 * The configs of the run's agent calls and tool calls: the caller's `config` with `signal`, under
 * the chain run's callbacks (the agent's also with `forwarder`, which watches its model); tools
 * that are executors (`asTool`) send their sub-run's events to `subRuns`.
 */
export function callConfigs(
  config: RunnableConfig,
  chainRun: CallbackManagerForChainRun | undefined,
  forwarder: TokenForwarder | undefined,
  signal: AbortSignal,
  subRuns: SubRunSink,
): { agent: RunnableConfig; tools: RunnableConfig } {
  let agentCallbacks: RunnableConfig["callbacks"];
  if (chainRun) {
    const child = chainRun.getChild();
    if (forwarder) child.addHandler(forwarder, true);
    agentCallbacks = child;
  } else if (forwarder) {
    agentCallbacks = [forwarder];
  }
  const agent = passOn(config, agentCallbacks, signal);
  const tools = passOn(config, chainRun?.getChild(), signal);
  // The key first, then set again (it wins): a key added after a spread costs V8 a slow path.
  const configurable: Record<string, unknown> = { [SUB_RUN_KEY]: subRuns, ...tools.configurable };
  configurable[SUB_RUN_KEY] = subRuns;
  tools.configurable = configurable;
  return { agent, tools };
}

/** The config passed on to the agent or the tools: the caller's, with our callbacks and signal. */
export function passOn(config: RunnableConfig, callbacks: RunnableConfig["callbacks"], signal: AbortSignal): RunnableConfig {
  const out: RunnableConfig = { signal };
  if (callbacks !== undefined) out.callbacks = callbacks;
  // Tags and metadata also when callbacks are given: the agent or tool reads them from its config
  // (a callback manager carries them only to its handlers); @langchain/core merges the duplicates.
  if (config.tags) out.tags = config.tags;
  if (config.metadata) out.metadata = config.metadata;
  if (config.configurable) out.configurable = config.configurable;
  if (config.recursionLimit !== undefined) out.recursionLimit = config.recursionLimit;
  // Not `timeout`: the run keeps each agent and tool call's time itself (`ExecutorRun.timed`).
  return out;
}

/**
 * What the agent is called with: the run's inputs and its `steps` (which win over an input of
 * that name). `steps` comes first in the literal and is set again: V8 (Node 20) builds an object
 * spread and then given a new key on a slow path (about 0.7 µs and 200 bytes instead of 0.06 µs
 * and 50 bytes), on every agent call.
 *
 * An input whose value is `undefined` is left out, as if it were not given: a prompt variable it
 * would fill is then missing (the prompt's default, or the error {@link missingPromptInput} makes
 * of it), where `@langchain/core` would have written the text "undefined" into the prompt.
 */
export function agentInput(inputs: Record<string, unknown>, steps: readonly AgentStep[]): Record<string, unknown> {
  for (const key in inputs) {
    // Rare: built without the undefined ones (no `delete`, which would put the object in dictionary mode).
    if (inputs[key] === undefined) return withoutUndefined(inputs, steps);
  }
  const input: Record<string, unknown> = { steps, ...inputs };
  input["steps"] = steps;
  return input;
}

/**
 * The agent's input for one call ({@link agentInput}) with a copy of `steps`, trimmed by `trim`
 * when given: a trim function or an agent that edits the list it is given in place (`splice`)
 * must not change the run's steps. One copy per agent call.
 */
export function agentCallInput(inputs: Record<string, unknown>, steps: readonly AgentStep[], trim?: (steps: AgentStep[]) => AgentStep[]): Record<string, unknown> {
  const copy = steps.slice();
  return agentInput(inputs, trim === undefined ? copy : trim(copy));
}

/** {@link agentInput} for inputs that hold an undefined value: a new object of the others, and the steps. */
function withoutUndefined(inputs: Record<string, unknown>, steps: readonly AgentStep[]): Record<string, unknown> {
  const input: Record<string, unknown> = { steps };
  for (const key in inputs) if (inputs[key] !== undefined && key !== "steps") input[key] = inputs[key];
  return input;
}

export function toActions(output: unknown, iteration: number): AgentAction[] {
  if (Array.isArray(output)) {
    if (output.length === 0 || !output.every(isAgentAction)) throw new InvalidAgentOutputError({ output, iteration });
    return output;
  }
  if (isAgentAction(output)) return [output];
  throw new InvalidAgentOutputError({ output, iteration });
}

export function actionEvent(action: AgentAction, iteration: number): ActionEvent {
  const at = Date.now();
  const log = (action as { messageLog?: unknown }).messageLog;
  if (Array.isArray(log) && log.length > 0) return { type: "action", iteration, action, messages: log as BaseMessage[], at };
  let messages: BaseMessage[] | undefined;
  return {
    type: "action",
    iteration,
    at,
    action,
    get messages() {
      return (messages ??= [new AIMessage(action.log)]);
    },
    set messages(value) {
      messages = value;
    },
  };
}

function finishMessages(finish: AgentFinish, output: string): BaseMessage[] {
  const log = (finish as { messageLog?: unknown }).messageLog;
  return Array.isArray(log) && log.length > 0 ? (log as BaseMessage[]) : [new AIMessage(output)];
}

export function forced(output: string): AgentFinish {
  return { returnValues: { output }, log: output };
}

/** A run's output as text: a string as it is, nothing (`undefined`, `null`) as "", anything else as JSON (see `valueToText`); never throws. */
export function toOutputString(value: unknown): string {
  if (value === undefined || value === null) return "";
  return valueToText(value);
}

/** The `output` event; its `messages` are built on first read (`invoke` never reads them). */
export function outputEvent(runId: string, finish: AgentFinish, output: string, stopReason: StopReason): OutputEvent {
  let messages: BaseMessage[] | undefined;
  return {
    type: "output",
    runId,
    at: Date.now(),
    output,
    returnValues: { ...finish.returnValues, output },
    get messages() {
      return (messages ??= finishMessages(finish, output));
    },
    set messages(value) {
      messages = value;
    },
    stopReason,
  };
}

/**
 * The `step` event of a step. Its `messages` (a `ToolMessage` for tool calls, else a
 * `HumanMessage`) are built on first read: many consumers never look at them.
 */
export function stepEvent(step: AgentStep, iteration: number, durationMs: number): StepEvent {
  let messages: BaseMessage[] | undefined;
  return {
    type: "step",
    iteration,
    at: Date.now(),
    step,
    get messages() {
      return (messages ??= resultMessages(step));
    },
    set messages(value) {
      messages = value;
    },
    durationMs,
  };
}

/**
 * The message a step's result is sent back as: a `ToolMessage` for a tool call, a
 * `FunctionMessage` for a legacy function call (an action marked `resultMessageType: "function"`,
 * as the OpenAI-functions agent's scratchpad sends it), else a `HumanMessage`.
 */
function resultMessages(step: AgentStep): BaseMessage[] {
  const { action } = step;
  const observation = step.observation as ToolMessage["content"];
  if (isToolAgentAction(action)) return [new ToolMessage({ content: observation, tool_call_id: action.toolCallId })];
  if ((action as { resultMessageType?: unknown }).resultMessageType === "function") return [new FunctionMessage({ content: observationText(step.observation), name: action.tool })];
  return [new HumanMessage({ content: observation })];
}

/**
 * The error to fail a run with when the agent's prompt refused its inputs for a missing variable
 * (`@langchain/core`'s `INVALID_PROMPT_INPUT`, "Missing value for input variable `x`"): an
 * `InvalidArgumentError` naming the variable and the inputs given (or saying that the input is
 * `undefined`, which {@link agentInput} leaves out), the prompt's error as its cause. Undefined for
 * any other error.
 */
export function missingPromptInput(error: unknown, inputs: Record<string, unknown>): InvalidArgumentError | undefined {
  if ((error as { lc_error_code?: unknown } | null)?.lc_error_code !== "INVALID_PROMPT_INPUT") return undefined;
  const missing = /^Missing value for input variable `([^`]+)`/.exec((error as Error).message)?.[1];
  if (missing === undefined) return undefined;
  const shown = givenInputs(inputs, missing);
  return new InvalidArgumentError({
    argument: "inputs",
    value: inputs,
    message: `AgentExecutor: the agent's prompt reads \`${missing}\`, which the inputs do not have; ${shown}. Pass it in the inputs (invoke({ ${/^[A-Za-z_$][\w$]*$/.test(missing) ? missing : JSON.stringify(missing)}: ... })), or give the prompt a default for it.`,
    cause: error,
  });
}

/**
 * A thrown value as text for a failed run's `error`, an answer or a trace: an `Error` as
 * `Name: message`; anything else as {@link describeThrown} writes it (`{ message: "quota exceeded",
 * status: 429 }` as `quota exceeded`, never `[object Object]`). It never throws.
 */
export function errorMessage(error: unknown): string {
  try {
    if (error instanceof Error && typeof error.message === "string") return `${error.name}: ${error.message}`;
  } catch {
    // a `name` or `message` getter that throws, a revoked proxy: described below
  }
  return describeThrown(error);
}

/**
 * The error for a new run's inputs (`invoke`'s, `fork`'s replacement ones) that would not reach the
 * model as given, else undefined: an input that is a Promise (not awaited: the prompt would write
 * it as "{}"), or the user's message under a key the agent's prompt never reads (`unread`, see
 * `ResolvedOptions.inputUnread`).
 */
export function unusableInputs(inputs: Record<string, unknown>, unread: { key: string; variables: ReadonlySet<string> } | undefined, where: string): InvalidArgumentError | undefined {
  for (const key of Object.keys(inputs)) {
    if (isThenable(inputs[key])) {
      return new InvalidArgumentError({ argument: `inputs.${key}`, value: inputs[key], message: `${where}: \`inputs.${key}\` is a Promise (did you forget to \`await\` it?): pass its value.` });
    }
  }
  if (unread === undefined || inputs[unread.key] === undefined) return undefined;
  const variables = [...unread.variables].map((name) => JSON.stringify(name)).join(", ") || "none";
  return new InvalidArgumentError({
    argument: `inputs.${unread.key}`,
    value: inputs[unread.key],
    message:
      `${where}: the agent's prompt never reads \`${unread.key}\` (its variables: ${variables}), so the user's message would not reach the model. ` +
      `Add it to the prompt, e.g. ["human", "{${unread.key}}"], or pass the message under the name the prompt reads.`,
  });
}

/**
 * What `inputs` is when it is not an object of named inputs (for the error that says so), else
 * undefined. A promise (inputs not awaited) and a `Map` or `Set` are objects whose entries the run
 * would never see.
 */
export function notAnInputsObject(inputs: unknown): string | undefined {
  if (typeof inputs !== "object" || inputs === null) return inputs === null ? "null" : typeof inputs;
  if (Array.isArray(inputs)) return "an array";
  if (isThenable(inputs)) return "a Promise (did you forget to `await` the inputs?)";
  if (inputs instanceof Map) return "a Map (pass Object.fromEntries(map))";
  if (inputs instanceof Set) return "a Set";
  return undefined;
}

/**
 * What inputs that lack `key` have, as an error's message says it: "`key` is undefined", "no
 * inputs were given", or "the inputs given are `a`, `b`". @internal
 */
export function givenInputs(inputs: Record<string, unknown>, key: string): string {
  if (Object.hasOwn(inputs, key) && inputs[key] === undefined) return `\`${key}\` is undefined`;
  const names = Object.keys(inputs);
  return names.length === 0 ? "no inputs were given" : `the inputs given are ${names.map((name) => `\`${name}\``).join(", ")}`;
}
