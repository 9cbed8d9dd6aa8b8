import { AGENT_MODEL_KEY, AGENT_TOOLS_KEY, acceptsOverrides } from "@agentrx/core";
import type { AgentAction, AgentOutput, AgentStep, Observation, StepMetadata } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { AgentStreamEvent, StepsCompaction, StopReason } from "../executor/events";
import type { RunState, RunTransition, RunTurn } from "../executor/run-state";
import { onAbort } from "../executor/shared-abort-listener";
import type { ResolvedOptions } from "../executor/validate-options";
import type { ModelCallRequest, PrepareStepResult, ToolCallRequest } from "./agent-middleware";
import { MiddlewareError, type MiddlewareHook } from "./middleware-error";
import type { MiddlewareChain, NamedMiddleware } from "./resolve-middleware";
import { RunStop } from "./stop-run";

/** What a run's middleware needs of the run. @internal */
export interface MiddlewareHost {
  readonly state: RunState;
  readonly options: Pick<ResolvedOptions, "agent" | "trim" | "toolsByName">;
  /** Whether the run was halted, cancelled or failed. */
  readonly interrupted: boolean;
  dispatch(event: RunTransition): void;
  emit(event: AgentStreamEvent): void;
  /** Asks the recorder (if any) to write what it buffered. */
  schedule(): void;
  /** Resolves once everything recorded so far is durable; undefined when there is nothing to wait for. */
  barrier(): Promise<void> | undefined;
  /** Ends the run gracefully with `reason` (a middleware called `stopRun`). */
  stop(reason: StopReason, stoppedBy: Record<string, unknown>): void;
}

type Execute = (action: AgentAction, config: RunnableConfig) => Promise<{ observation: Observation; metadata: StepMetadata | undefined }>;

/**
 * The middleware of one run (made only when the executor has middleware): runs `prepareStep`,
 * wraps the agent and tool calls in the `wrapModelCall` / `wrapToolCall` chains (the first
 * middleware outermost), and calls `afterTurn`. A hook's error becomes a `MiddlewareError` naming it;
 * errors that only passed through a hook's `next` stay as they are; `stopRun` ends the run gracefully.
 *
 * @internal
 */
export class MiddlewareRun {
  /** Errors that came out of a `next` (the model's, a tool's, an inner middleware's): not blamed on the caller. */
  private readonly passed = new WeakSet<object>();
  private readonly modelChain: (request: ModelCallRequest) => Promise<AgentOutput>;
  private agentConfig: RunnableConfig = {};

  constructor(
    private readonly chain: MiddlewareChain,
    private readonly host: MiddlewareHost,
  ) {
    this.modelChain = this.compose(chain.wrapModelCall, "wrapModelCall", (request: ModelCallRequest) => this.callAgentItself(request));
  }

  /** Whether any middleware has an `afterTurn` hook. */
  get afterTurns(): boolean {
    return this.chain.afterTurn.length > 0;
  }

  /** One agent call: `prepareStep` of each middleware in order, then the `wrapModelCall` chain. */
  async callAgent(config: RunnableConfig, iteration: number): Promise<AgentOutput> {
    this.agentConfig = config;
    return this.prepareAndCall(config, iteration, false);
  }

  /**
   * The one "generate" call of early stopping (the agent's inputs with `forceFinalAnswer: true`),
   * as every agent call: `prepareStep` (so `compactSteps` bounds what it sees), then the
   * `wrapModelCall` chain. The run is already stopping, so only cancellation ends it early;
   * `config` carries the call's own signal. Its steps are not trimmed (`trimIntermediateSteps`),
   * as classic's final call saw every step.
   */
  async callFinal(config: RunnableConfig, iteration: number): Promise<AgentOutput> {
    return this.prepareAndCall(config, iteration, true);
  }

  private async prepareAndCall(config: RunnableConfig, iteration: number, final: boolean): Promise<AgentOutput> {
    const { state } = this.host;
    const { controller, release } = childSignal(config.signal);
    try {
      let inputs: Record<string, unknown> = final ? { ...state.inputs, forceFinalAnswer: true } : state.inputs;
      let steps: readonly AgentStep[] = state.steps;
      let model: PrepareStepResult["model"];
      let tools: PrepareStepResult["tools"];
      for (const entry of this.chain.prepareStep) {
        const result = await this.guard(entry, "prepareStep", () =>
          (entry.middleware.prepareStep as NonNullable<NamedMiddleware["middleware"]["prepareStep"]>)({
            runId: state.runId, iteration, steps, runSteps: state.steps, inputs, usage: state.usage, compaction: state.compaction, signal: controller.signal,
          }),
        );
        if (final ? controller.signal.aborted : this.host.interrupted) throw controller.signal.reason ?? new Error("The run was stopped.");
        if (result === undefined || result === null) continue;
        this.checkResult(entry, result);
        if (result.compaction !== undefined) await this.compacted(entry, result.compaction, iteration);
        if (result.inputs !== undefined) inputs = final ? { ...result.inputs, forceFinalAnswer: true } : result.inputs;
        if (result.steps !== undefined) steps = result.steps;
        if (result.model !== undefined) model = result.model;
        if (result.tools !== undefined) tools = result.tools;
      }
      const request: ModelCallRequest = { runId: state.runId, iteration, inputs: { ...inputs }, steps, runSteps: state.steps, signal: controller.signal, report: noop };
      if (model !== undefined) request.model = model;
      if (tools !== undefined) request.tools = tools;
      const chain = final ? this.compose(this.chain.wrapModelCall, "wrapModelCall", (call: ModelCallRequest) => this.callAgentItself(call, config, false)) : this.modelChain;
      return await chain(request);
    } finally {
      release();
    }
  }

  /** One tool call through the `wrapToolCall` chain (`execute` is the call itself). */
  async callTool(action: AgentAction, index: number | undefined, config: RunnableConfig, execute: Execute): Promise<{ observation: Observation; metadata: StepMetadata | undefined }> {
    const { state } = this.host;
    const { controller, release } = childSignal(config.signal);
    let metadata: StepMetadata | undefined;
    const inner = async (call: ToolCallRequest): Promise<Observation> => {
      const result = await execute(call.action, { ...config, signal: call.signal });
      metadata = result.metadata;
      return result.observation;
    };
    const chain = this.compose(this.chain.wrapToolCall, "wrapToolCall", inner);
    try {
      const iteration = state.turn?.iteration ?? Math.max(0, state.iteration - 1);
      const observation = await chain({ runId: state.runId, iteration, index, action, runSteps: state.steps, signal: controller.signal, report: noop });
      return { observation, metadata };
    } finally {
      release();
    }
  }

  /** `afterTurn` of each middleware in order, after the turn `turn` ended. */
  async afterTurn(turn: RunTurn | undefined): Promise<void> {
    const { state } = this.host;
    const count = turn?.actions.length ?? 0;
    const turnSteps = count === 0 ? [] : state.steps.slice(-count);
    const iteration = turn?.iteration ?? Math.max(0, state.iteration - 1);
    const { controller, release } = childSignal(this.agentConfig.signal);
    try {
      for (const entry of this.chain.afterTurn) {
        const hook = entry.middleware.afterTurn as NonNullable<NamedMiddleware["middleware"]["afterTurn"]>;
        await this.guard(entry, "afterTurn", () =>
          hook({ runId: state.runId, iteration, turnSteps, steps: state.steps, inputs: state.inputs, usage: state.usage, signal: controller.signal }),
        );
        if (this.host.interrupted) return;
      }
    } finally {
      release();
    }
  }

  /** The agent itself, with the request's inputs, steps, signal, model and tools. */
  private callAgentItself(request: ModelCallRequest, base: RunnableConfig = this.agentConfig, trims = true): Promise<AgentOutput> {
    const { agent } = this.host.options;
    const trim = trims ? this.host.options.trim : undefined;
    const steps = request.steps as AgentStep[];
    let config: RunnableConfig = { ...base, signal: request.signal };
    if (request.model !== undefined || request.tools !== undefined) {
      const configurable: Record<string, unknown> = { ...config.configurable };
      if (request.model !== undefined) configurable[AGENT_MODEL_KEY] = request.model;
      if (request.tools !== undefined) configurable[AGENT_TOOLS_KEY] = request.tools;
      config = { ...config, configurable };
    }
    return agent.invoke({ ...request.inputs, steps: trim ? trim(steps) : steps }, config);
  }

  /** The chain of `entries`' `hook` around `inner`: the first entry outermost. */
  private compose<R extends { report(data: Record<string, unknown>): void; signal: AbortSignal; iteration: number; model?: unknown; tools?: unknown }, T>(
    entries: readonly NamedMiddleware[],
    hook: "wrapModelCall" | "wrapToolCall",
    inner: (request: R) => Promise<T>,
  ): (request: R) => Promise<T> {
    let next = inner;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i] as NamedMiddleware;
      const wrap = entry.middleware[hook] as unknown as (request: R, next: (request: R) => Promise<T>) => Promise<T>;
      const inside = next;
      const checkedNext = (request: R): Promise<T> => {
        this.checkRequest(entry, hook, request);
        return inside(request).catch((error: unknown) => {
          if (typeof error === "object" && error !== null) this.passed.add(error);
          throw error;
        });
      };
      next = (request: R) => this.guard(entry, hook, () => wrap.call(entry.middleware, { ...request, report: this.reporter(entry, hook, request) }, checkedNext));
    }
    return next;
  }

  /** Runs a hook: its errors are blamed on it, unless they passed through or stop the run. */
  private async guard<T>(entry: NamedMiddleware, hook: MiddlewareHook, call: () => T | Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.blame(entry, hook, error);
    }
  }

  private blame(entry: NamedMiddleware, hook: MiddlewareHook, error: unknown): unknown {
    if (RunStop.isInstance(error)) {
      this.host.stop(error.reason, { middleware: entry.name, ...error.details });
      return error;
    }
    if (MiddlewareError.isInstance(error) || this.host.interrupted) return error;
    if (typeof error === "object" && error !== null && this.passed.has(error)) return error;
    return new MiddlewareError({ middleware: entry.name, hook, cause: error });
  }

  /** `report` for `entry`'s hook: a `middleware` event named after it. */
  private reporter(entry: NamedMiddleware, hook: MiddlewareHook, request: { iteration: number }): (data: Record<string, unknown>) => void {
    return (data) => {
      if (this.host.interrupted) return;
      if (typeof data !== "object" || data === null || Array.isArray(data)) {
        throw new MiddlewareError({ middleware: entry.name, hook, message: "report(data) takes an object." });
      }
      this.host.emit({ type: "middleware", name: entry.name, iteration: request.iteration, data, at: Date.now() });
      this.host.schedule();
    };
  }

  /** A compaction made by `entry` joins the run's state and record (durable before the agent call). */
  private async compacted(entry: NamedMiddleware, compaction: StepsCompaction, iteration: number): Promise<void> {
    const current = this.host.state.compaction;
    if (current !== undefined && current.steps === compaction.steps && current.summary === compaction.summary) return;
    const { steps, summary } = compaction;
    this.host.dispatch({ type: "compacted", compaction: { steps, summary } });
    this.host.emit({ type: "compaction", iteration, middleware: entry.name, steps, summary, at: Date.now() });
    this.host.schedule();
    await this.host.barrier();
  }

  private checkResult(entry: NamedMiddleware, result: PrepareStepResult): void {
    const bad = (message: string): never => {
      throw new MiddlewareError({ middleware: entry.name, hook: "prepareStep", message });
    };
    if (typeof result !== "object" || Array.isArray(result)) bad(`prepareStep must return an object ({ inputs?, steps?, model?, tools? }) or nothing, got ${Array.isArray(result) ? "an array" : typeof result}.`);
    if (result.inputs !== undefined && (typeof result.inputs !== "object" || result.inputs === null || Array.isArray(result.inputs))) bad("`inputs` must be an object.");
    if (result.steps !== undefined && !Array.isArray(result.steps)) bad("`steps` must be an array of AgentSteps.");
    const compaction = result.compaction;
    if (compaction !== undefined) {
      const count = this.host.state.steps.length;
      if (typeof compaction !== "object" || compaction === null || !Number.isInteger(compaction.steps) || compaction.steps < 0 || compaction.steps > count || typeof compaction.summary !== "string") {
        bad(`\`compaction\` must be { steps: an integer from 0 to ${count} (the run's steps), summary: string }.`);
      }
    }
    this.checkRequest(entry, "prepareStep", result);
  }

  /** A model or tools set for a call: the agent must take them, and the tools must be the executor's. */
  private checkRequest(entry: NamedMiddleware, hook: MiddlewareHook, request: { model?: unknown; tools?: unknown }): void {
    const { model, tools } = request;
    if (model === undefined && tools === undefined) return;
    const bad = (message: string): never => {
      throw new MiddlewareError({ middleware: entry.name, hook, message });
    };
    if (!acceptsOverrides(this.host.options.agent)) {
      bad("it sets the model or the tools of an agent call, but this agent always uses its own (the built-in agents of @agentrx/agents take them; a custom agent sets AGENT_OVERRIDES and reads getAgentOverrides(config) from @agentrx/core).");
    }
    if (model !== undefined && typeof (model as { invoke?: unknown } | null)?.invoke !== "function") bad("`model` must be a @langchain/core chat model.");
    if (tools !== undefined) {
      if (!Array.isArray(tools)) bad("`tools` must be an array of the executor's tools.");
      const known = this.host.options.toolsByName;
      for (const tool of tools as { name?: unknown }[]) {
        if (typeof tool?.name !== "string" || known.get(tool.name) === undefined) {
          bad(`\`tools\` may only hold the executor's own tools (${[...known.keys()].join(", ") || "none"}); got ${typeof tool?.name === "string" ? `"${tool.name}"` : "something that is not a tool"}.`);
        }
      }
    }
  }
}

/** A signal that aborts with `parent` and when released (a wrapped call settled: what it left running stops). */
function childSignal(parent: AbortSignal | undefined): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  if (parent === undefined) return { controller, release: () => controller.abort() };
  if (parent.aborted) controller.abort(parent.reason);
  const unlink = onAbort(parent, () => controller.abort(parent.reason));
  return {
    controller,
    release: () => {
      unlink();
      controller.abort(new Error("The wrapped call settled."));
    },
  };
}

function noop(): void {}
