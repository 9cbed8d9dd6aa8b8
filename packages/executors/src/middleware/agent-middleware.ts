import type { AgentAction, AgentOutput, AgentStep, Observation } from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { UsageMetadata } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { StepsCompaction } from "../executor/events";

/** What `prepareStep` sees before each agent call. */
export interface PrepareStepArgs {
  /** The run's id. */
  readonly runId: string;
  /** The 0-based iteration of the agent call about to be made. */
  readonly iteration: number;
  /**
   * The steps the agent would see: every step of the run, or what an earlier middleware's
   * `prepareStep` made of them (a compacted list, say). `trimIntermediateSteps` applies after.
   */
  readonly steps: readonly AgentStep[];
  /** Every step of the run so far, whatever earlier middleware did to `steps`. */
  readonly runSteps: readonly AgentStep[];
  /** The inputs the agent would be called with (an earlier middleware may have changed them). */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** The run's usage so far; undefined until a model reports usage. */
  readonly usage: UsageMetadata | undefined;
  /** The run's latest recorded compaction (see `compactSteps`), if any. */
  readonly compaction: StepsCompaction | undefined;
  /** Aborts when the run is cancelled or stopped. */
  readonly signal: AbortSignal;
}

/** What `prepareStep` may change, for the next agent call only (every field optional). */
export interface PrepareStepResult {
  /** The inputs to call the agent with instead. */
  inputs?: Record<string, unknown> | undefined;
  /**
   * The steps the agent sees instead (the run keeps every step: results and events are unchanged).
   * Read-only: the steps given (`args.steps`) may be returned as they are, or a filtered copy; the
   * executor never changes the list.
   */
  steps?: readonly AgentStep[] | undefined;
  /**
   * Another chat model for this call. The agent must take one: the built-in agents of
   * `@agentrx/agents` do (their model is a swappable stage); others are refused with a clear error.
   */
  model?: BaseChatModel | undefined;
  /** The tools offered to the model for this call: some of the executor's tools (by name). */
  tools?: readonly StructuredToolInterface[] | undefined;
  /**
   * Records a compaction: the first `compaction.steps` steps of the run are summarized by
   * `compaction.summary` (a `compaction` event, which resume and replay read instead of summarizing again).
   */
  compaction?: StepsCompaction | undefined;
}

/** One agent call as middleware sees it; `wrapModelCall` may pass `next` a changed copy. */
export interface ModelCallRequest {
  readonly runId: string;
  /** The 0-based iteration of this agent call. */
  readonly iteration: number;
  /** The inputs the agent is called with (the `steps` are added). */
  inputs: Record<string, unknown>;
  /** The steps the agent sees. */
  steps: readonly AgentStep[];
  /** Every step of the run so far. */
  readonly runSteps: readonly AgentStep[];
  /** The chat model to use instead of the agent's own (see {@link PrepareStepResult.model}). */
  model?: BaseChatModel;
  /** The tools offered for this call (see {@link PrepareStepResult.tools}). */
  tools?: readonly StructuredToolInterface[];
  /** The call's signal: aborts on cancellation, a limit, or when the wrapped call settles. */
  signal: AbortSignal;
  /** Records a `middleware` event named after this middleware, with `data` (JSON-serializable). */
  report(data: Record<string, unknown>): void;
}

/** One tool call as middleware sees it; `wrapToolCall` may pass `next` a changed copy. */
export interface ToolCallRequest {
  readonly runId: string;
  /** The 0-based iteration (agent call) that asked for it. */
  readonly iteration: number;
  /** Its position among the turn's actions (undefined for a call started while the model streams). */
  readonly index: number | undefined;
  /** The action: the tool's name and input. */
  action: AgentAction;
  /**
   * Whether the action's tool returns directly (`returnDirect`): its observation may end the run as
   * its answer, without a model call after it (when every call of the turn is of such a tool).
   */
  readonly returnDirect: boolean;
  /** Every step of the run so far (the current turn's steps are added when the turn ends). */
  readonly runSteps: readonly AgentStep[];
  /** The call's signal: aborts on cancellation, a limit, or when the wrapped call settles. */
  signal: AbortSignal;
  /** Records a `middleware` event named after this middleware, with `data` (JSON-serializable). */
  report(data: Record<string, unknown>): void;
}

/** What `afterTurn` sees: the run after a turn's tools all finished. */
export interface AfterTurnState {
  readonly runId: string;
  /** The 0-based iteration of the turn that ended. */
  readonly iteration: number;
  /** The turn's steps, in the order of its actions. */
  readonly turnSteps: readonly AgentStep[];
  /** Every step of the run so far. */
  readonly steps: readonly AgentStep[];
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly usage: UsageMetadata | undefined;
  /** Aborts when the run is cancelled or stopped. */
  readonly signal: AbortSignal;
}

/**
 * A middleware of the executor's loop (see docs/middleware.md). Every hook is optional. With
 * several middleware the first is the outermost: its `prepareStep` runs first, its `wrapModelCall`
 * and `wrapToolCall` wrap all the others', and its `afterTurn` runs first. A hook that throws fails
 * the run with a `MiddlewareError` naming the middleware and the hook; a hook that calls
 * {@link stopRun} ends it gracefully with that stop reason.
 *
 * @example
 * ```ts
 * import { AgentExecutor, type AgentMiddleware } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const timing: AgentMiddleware = {
 *   name: "timing",
 *   async wrapModelCall(request, next) {
 *     const started = Date.now();
 *     try {
 *       return await next(request);
 *     } finally {
 *       request.report({ ms: Date.now() - started });
 *     }
 *   },
 * };
 * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
 * const executor = new AgentExecutor({ agent, tools: [], middleware: [timing] });
 * console.log((await executor.invoke({ input: "hello" })).output); // "hi"
 * ```
 */
export interface AgentMiddleware {
  /** Names the middleware in errors and in its `middleware` events. @default `middleware[i]` */
  name?: string;
  /** Changes the next agent call only: its inputs, the steps it sees, the model, the tools offered. */
  prepareStep?(args: PrepareStepArgs): PrepareStepResult | void | Promise<PrepareStepResult | void>;
  /**
   * Wraps each agent call (retry, fall back, cache, redact, measure, check its answer). A streamed
   * run's `token` events stream live, as the model writes them, every call of `next` included;
   * with an output guardrail they are held until the chain returned, and only those of the model
   * attempt (a call of `next`) whose output the chain returned, unchanged, are streamed.
   */
  wrapModelCall?(request: ModelCallRequest, next: (request: ModelCallRequest) => Promise<AgentOutput>): Promise<AgentOutput>;
  /** Wraps each tool call (retry, cache, redact, measure, check its input or result). */
  wrapToolCall?(call: ToolCallRequest, next: (call: ToolCallRequest) => Promise<Observation>): Promise<Observation>;
  /** Sees the run after each turn whose tools all ran (not after a final answer). */
  afterTurn?(state: AfterTurnState): void | Promise<void>;
}
