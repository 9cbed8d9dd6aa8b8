import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { InvalidArgumentError } from "../errors/invalid-argument-error";

/**
 * The `config.configurable` key under which an executor that records model calls passes the agent
 * a {@link ModelCallObserver}. An agent that reports its model calls to it (every built-in agent
 * does) lets the executor record them without attaching a `@langchain/core` callback handler,
 * which would cost a callback run per runnable of the pipeline on every turn.
 */
export const MODEL_CALL_OBSERVER_KEY = "__agentrx_model_call_observer";

/** One finished model call of an agent turn, as an agent reports it to a {@link ModelCallObserver}. */
export interface ObservedModelCall {
  /** The messages the model was sent. */
  input: BaseMessage[];
  /** What it answered; absent when it failed. */
  output?: BaseMessage;
  /** Why it failed (a cancellation included); absent when it answered. */
  error?: unknown;
  /** When it started (epoch milliseconds). */
  startedAt: number;
  /**
   * When the first chunk of a streamed reply arrived (epoch milliseconds); absent when the call
   * did not stream, or the agent did not see its chunks. A traced run records it as the call's
   * `gen_ai.response.time_to_first_chunk` (see docs/telemetry.md).
   */
  firstChunkAt?: number;
  /** The model runnable called (a chat model, or a binding of one such as `model.bindTools(tools)`), for its name and settings. */
  model?: unknown;
}

/** Receives each finished (or failed) model call of an agent turn. */
export type ModelCallObserver = (call: ObservedModelCall) => void;

const OBSERVES = Symbol.for("agentrx.agent.observesModelCalls");

/**
 * Marks an agent runnable as one that reports its model calls to the observer found by
 * {@link takeModelCallObserver}. The executor then passes the observer instead of watching the
 * model through callbacks. Mark only an agent that really reports every model call it makes.
 * Throws an `InvalidArgumentError` naming `agent` for anything but an object (or function), and for
 * a frozen (non-extensible) agent, which cannot carry the mark.
 *
 * @example
 * ```ts
 * import { markObservesModelCalls, observesModelCalls } from "@agentrx/core";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = markObservesModelCalls(RunnableLambda.from(async () => ({ returnValues: { output: "hi" }, log: "hi" })));
 * console.log(observesModelCalls(agent)); // true
 * ```
 */
export function markObservesModelCalls<T extends object>(agent: T): T {
  if ((typeof agent !== "object" && typeof agent !== "function") || agent === null) {
    throw new InvalidArgumentError({
      argument: "agent",
      value: agent,
      message: `markObservesModelCalls: \`agent\` must be an agent runnable (an object), got ${agent === null ? "null" : typeof agent}.`,
    });
  }
  if ((agent as Record<symbol, unknown>)[OBSERVES] === true && Object.hasOwn(agent, OBSERVES)) return agent;
  if (!Object.isExtensible(agent)) {
    throw new InvalidArgumentError({
      argument: "agent",
      value: agent,
      message: "markObservesModelCalls: `agent` is frozen (or not extensible), so it cannot be marked: mark the agent before freezing it.",
    });
  }
  Object.defineProperty(agent, OBSERVES, { value: true, enumerable: false, configurable: true });
  return agent;
}

/**
 * Whether `agent` reports its model calls to a {@link ModelCallObserver}: marked itself, or a
 * binding (`agent.withConfig(...)`) of a marked agent.
 *
 * @example
 * ```ts
 * import { observesModelCalls } from "@agentrx/core";
 *
 * console.log(observesModelCalls({})); // false
 * ```
 */
export function observesModelCalls(agent: unknown): boolean {
  for (let current = agent, depth = 0; typeof current === "object" && current !== null && depth < 8; depth++) {
    if ((current as Record<symbol, unknown>)[OBSERVES] === true) return true;
    current = (current as { bound?: unknown }).bound;
  }
  return false;
}

/**
 * Takes the model-call observer out of `config`: the observer (if the executor passed one) and the
 * config without it, to pass on to the agent's own steps (so a model called inside a tool, or a
 * nested agent, never reports into the outer run). When the observer was all `configurable` held,
 * the config's `configurable` is `undefined`: the agent's steps get the config they would get
 * without an observer, and `@langchain/core` copies and scans no empty `configurable` at each step.
 *
 * @example
 * ```ts
 * import { MODEL_CALL_OBSERVER_KEY, takeModelCallObserver } from "@agentrx/core";
 *
 * const { observer, config } = takeModelCallObserver({ configurable: { [MODEL_CALL_OBSERVER_KEY]: () => {}, thread_id: "t" } });
 * console.log(typeof observer, config.configurable); // function { thread_id: "t" }
 * const alone = takeModelCallObserver({ configurable: { [MODEL_CALL_OBSERVER_KEY]: () => {} } });
 * console.log(alone.config.configurable); // undefined
 * ```
 */
export function takeModelCallObserver<C extends Partial<RunnableConfig>>(config: C | undefined): { observer: ModelCallObserver | undefined; config: C } {
  const configurable = config?.configurable as Record<string, unknown> | undefined;
  const observer = configurable?.[MODEL_CALL_OBSERVER_KEY];
  if (typeof observer !== "function") return { observer: undefined, config: (config ?? {}) as C };
  if (onlyObserver(configurable as Record<string, unknown>)) return { observer: observer as ModelCallObserver, config: { ...config, configurable: undefined } as C };
  const { [MODEL_CALL_OBSERVER_KEY]: _taken, ...rest } = configurable as Record<string, unknown>;
  return { observer: observer as ModelCallObserver, config: { ...config, configurable: rest } as C };
}

/** Whether the observer is the only key of `configurable` (as the executor passes it without `configurable` of its caller). */
function onlyObserver(configurable: Record<string, unknown>): boolean {
  for (const key in configurable) if (key !== MODEL_CALL_OBSERVER_KEY) return false;
  return Object.getOwnPropertySymbols(configurable).length === 0;
}
