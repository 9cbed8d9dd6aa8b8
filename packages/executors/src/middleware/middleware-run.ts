import { AGENT_MODEL_KEY, AGENT_TOOLS_KEY, acceptsOverrides, isAgentAction, isAgentFinish } from "@agentrx/core";
import type { AgentAction, AgentOutput, AgentStep, Observation, StepMetadata } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { AgentStreamEvent, StepsCompaction, StopReason } from "../executor/events";
import { type RunState, type RunTransition, type RunTurn, isEnded } from "../executor/run-state";
import { onAbort } from "../executor/shared-abort-listener";
import { agentCallInput } from "../executor/run-helpers";
import { MODEL_ATTEMPT_KEY } from "../executor/token-forwarder";
import type { ResolvedOptions } from "../executor/validate-options";
import type { ModelCallRequest, PrepareStepArgs, PrepareStepResult, ToolCallRequest } from "./agent-middleware";
import type { AttemptTokens } from "./attempt-tokens";
import { MiddlewareError, type MiddlewareHook } from "./middleware-error";
import type { MiddlewareChain, NamedMiddleware } from "./resolve-middleware";
import { RunStop } from "./stop-run";

/** What a run's middleware needs of the run. @internal */
export interface MiddlewareHost {
  readonly state: RunState;
  readonly options: Pick<ResolvedOptions, "agent" | "trim" | "toolsByName">;
  /** The run's abort scope: its `signal` aborts on a halt, a failure or a cancellation. */
  readonly aborts: { readonly signal: AbortSignal };
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
  /** The tokens of the agent call in progress, by model attempt, while the run holds them (see {@link MiddlewareRun.holdsTokens}). */
  readonly heldTokens: Pick<AttemptTokens, "begin" | "answered"> | undefined;
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
  /** The run's model attempts so far (each call of the agent the `wrapModelCall` chain made while tokens were held). */
  private attempts = 0;

  constructor(
    private readonly chain: MiddlewareChain,
    private readonly host: MiddlewareHost,
  ) {
    this.modelChain = this.compose(chain.wrapModelCall, "wrapModelCall", (request: ModelCallRequest) => this.callAgentItself(request));
  }

  /**
   * Whether a streamed run holds each agent call's tokens until the `wrapModelCall` chain returned
   * (see `AttemptTokens`): a middleware checks the answer after the model call (an output
   * guardrail), so no text it has not passed may stream. Only the tokens of the model attempt whose
   * output the chain returned are streamed then: not those of an attempt that failed (a fallback's
   * primary), nor of one the chain replaced (a second `next`), which the guardrail never saw.
   * Without one, tokens stream live, as the model writes them (see docs/middleware.md).
   */
  get holdsTokens(): boolean {
    return this.chain.holdsAnswerTokens;
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
      // A copy of the run's steps for the hooks and the request (one per agent call): a hook that
      // edits the list it is given in place must not change the run's steps. `steps` and
      // `runSteps` start as the same list, so a hook can tell whether steps were changed.
      const runSteps = state.steps.slice();
      let steps: readonly AgentStep[] = runSteps;
      let model: PrepareStepResult["model"];
      let tools: PrepareStepResult["tools"];
      for (const entry of this.chain.prepareStep) {
        const args: PrepareStepArgs = { runId: state.runId, iteration, steps, runSteps, inputs, usage: state.usage, compaction: state.compaction, signal: controller.signal };
        const result = await this.guard(entry, "prepareStep", () => (entry.middleware.prepareStep as NonNullable<NamedMiddleware["middleware"]["prepareStep"]>)(args));
        if (final ? controller.signal.aborted : this.host.interrupted) throw controller.signal.reason ?? new Error("The run was stopped.");
        if (result === undefined || result === null) continue;
        this.checkResult(entry, result, args);
        if (result.compaction !== undefined) await this.compacted(entry, result.compaction, iteration);
        if (result.inputs !== undefined) inputs = final ? { ...result.inputs, forceFinalAnswer: true } : result.inputs;
        if (result.steps !== undefined) steps = result.steps;
        if (result.model !== undefined) model = result.model;
        if (result.tools !== undefined) tools = result.tools;
      }
      const request: ModelCallRequest = { runId: state.runId, iteration, inputs: { ...inputs }, steps, runSteps, signal: controller.signal, report: noop };
      if (model !== undefined) request.model = model;
      if (tools !== undefined) request.tools = tools;
      const chain = final ? this.compose(this.chain.wrapModelCall, "wrapModelCall", (call: ModelCallRequest) => this.callAgentItself(call, config, false)) : this.modelChain;
      return await chain(request);
    } finally {
      release();
    }
  }

  /**
   * One tool call through the `wrapToolCall` chain (`execute` is the call itself); `runSteps`, the
   * steps its request carries (by default the run's).
   */
  async callTool(action: AgentAction, index: number | undefined, config: RunnableConfig, execute: Execute, runSteps: readonly AgentStep[] = this.host.state.steps): Promise<{ observation: Observation; metadata: StepMetadata | undefined }> {
    const { state } = this.host;
    const { controller, release } = childSignal(config.signal);
    // The calls the chain made, in order: the step's metadata is the one whose observation it gave.
    const ran: { action: AgentAction; observation: Observation; metadata: StepMetadata | undefined }[] = [];
    const inner = async (call: ToolCallRequest): Promise<Observation> => {
      const result = await execute(call.action, { ...config, signal: call.signal });
      ran.push({ action: call.action, observation: result.observation, metadata: result.metadata });
      return result.observation;
    };
    const chain = this.compose(this.chain.wrapToolCall, "wrapToolCall", inner);
    try {
      const iteration = state.turn?.iteration ?? Math.max(0, state.iteration - 1);
      const returnDirect = this.host.options.toolsByName.get(action.tool)?.returnDirect === true;
      const observation = await chain({ runId: state.runId, iteration, index, action, returnDirect, runSteps, signal: controller.signal, report: noop });
      return { observation, metadata: ran.length === 0 ? undefined : stepMetadata(action, observation, ran) };
    } finally {
      release();
    }
  }

  /** `afterTurn` of each middleware in order, after the turn `turn` ended. */
  async afterTurn(turn: RunTurn | undefined): Promise<void> {
    const { state } = this.host;
    const count = turn?.actions.length ?? 0;
    const turnSteps = count === 0 ? [] : state.steps.slice(-count);
    // A copy, as every agent call's: a hook that edits it in place does not change the run's steps.
    const steps = this.chain.afterTurn.length === 0 ? state.steps : state.steps.slice();
    const iteration = turn?.iteration ?? Math.max(0, state.iteration - 1);
    // The run's own signal: a resumed run ends a turn a pause left pending before any agent call.
    const { controller, release } = childSignal(this.host.aborts.signal);
    try {
      for (const entry of this.chain.afterTurn) {
        const hook = entry.middleware.afterTurn as NonNullable<NamedMiddleware["middleware"]["afterTurn"]>;
        await this.guard(entry, "afterTurn", () =>
          hook({ runId: state.runId, iteration, turnSteps, steps, inputs: state.inputs, usage: state.usage, signal: controller.signal }),
        );
        if (this.host.interrupted) return;
      }
    } finally {
      release();
    }
  }

  /**
   * The agent itself, with the request's inputs, steps, signal, model and tools. While the run
   * holds tokens, the call is a model attempt of its own: its model calls carry the attempt's
   * number in their metadata (the token forwarder hands it on with their tokens), and what it
   * resolves to is noted, so that the run streams only the tokens of the attempt whose output the
   * chain returned.
   */
  private callAgentItself(request: ModelCallRequest, base: RunnableConfig = this.agentConfig, trims = true): Promise<AgentOutput> {
    const { agent } = this.host.options;
    const trim = trims ? this.host.options.trim : undefined;
    let config: RunnableConfig = { ...base, signal: request.signal };
    if (request.model !== undefined || request.tools !== undefined) {
      const configurable: Record<string, unknown> = { ...config.configurable };
      if (request.model !== undefined) configurable[AGENT_MODEL_KEY] = request.model;
      if (request.tools !== undefined) configurable[AGENT_TOOLS_KEY] = request.tools;
      config = { ...config, configurable };
    }
    const held = this.host.heldTokens;
    if (held === undefined) return agent.invoke(agentCallInput(request.inputs, request.steps, trim), config);
    const attempt = ++this.attempts;
    held.begin(attempt);
    config.metadata = { ...config.metadata, [MODEL_ATTEMPT_KEY]: attempt };
    return agent.invoke(agentCallInput(request.inputs, request.steps, trim), config).then((output) => {
      held.answered(attempt, output);
      return output;
    });
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
      next = (request: R) => {
        const given = { ...request, report: this.reporter(entry, hook, request) };
        // What `next` rejected with during this call that is not an object (a thrown string): a
        // WeakSet cannot hold it, and it passed through all the same.
        let thrownValues: unknown[] | undefined;
        // What `next` resolved to during this call: an answer the hook only passed on is not blamed on it.
        let resolved: unknown[] | undefined;
        const checkedNext = (changed: R): Promise<T> => {
          this.checkNextKeys(entry, hook, changed, given);
          this.checkRequest(entry, hook, changed);
          return inside(changed).then(
            (value) => ((resolved ??= []).push(value), value),
            (error: unknown) => {
              if (typeof error === "object" && error !== null) this.passed.add(error);
              else (thrownValues ??= []).push(error);
              throw error;
            },
          );
        };
        const passedThrough = (error: unknown) => thrownValues !== undefined && thrownValues.some((value) => Object.is(value, error));
        const passedOn = (answer: unknown) => resolved !== undefined && resolved.some((value) => Object.is(value, answer));
        return this.guard(entry, hook, async () => checkAnswer(entry, hook, await wrap.call(entry.middleware, given, checkedNext), passedOn), passedThrough);
      };
    }
    return next;
  }

  /**
   * What a wrap hook passed to `next`: only what the request may change, and what it may not change
   * given back as it was. A misspelt key (`input`, `step`) or a changed `iteration` would be ignored
   * by the call: refused instead.
   */
  private checkNextKeys(entry: NamedMiddleware, hook: "wrapModelCall" | "wrapToolCall", changed: object, given: object): void {
    const bad = (message: string): never => {
      throw new MiddlewareError({ middleware: entry.name, hook, message });
    };
    if (typeof changed !== "object" || changed === null || Array.isArray(changed)) bad(`next() takes the request (or a changed copy of it), got ${changed === null ? "null" : Array.isArray(changed) ? "an array" : typeof changed}.`);
    const { changeable, fixed } = hook === "wrapModelCall" ? MODEL_REQUEST_KEYS : TOOL_REQUEST_KEYS;
    const request = changed as Record<string, unknown>;
    for (const key of Object.keys(changed)) {
      if (changeable.includes(key)) continue;
      if (fixed.includes(key)) {
        if (request[key] === (given as Record<string, unknown>)[key]) continue;
        bad(`next() was given the request with \`${key}\` changed, which a ${hook === "wrapModelCall" ? "model" : "tool"} call cannot change (it would be ignored); it may change ${changeable.join(", ")}.`);
      }
      bad(`next() was given the request with an unknown key \`${key}\` (it would be ignored); it may change ${changeable.join(", ")}.`);
    }
    // What it may change, of the type the call takes: a wrong one would fail deep in the call,
    // blamed on the agent, the prompt or the tool. (`model` and `tools`: checkRequest.)
    const wrong = (key: string, wanted: string): never => bad(`next() was given the request with \`${key}\` ${describeValue(request[key])}; it must be ${wanted}.`);
    if (!(request["signal"] instanceof AbortSignal)) wrong("signal", "an AbortSignal (the request's own, or one that aborts with it)");
    if (hook === "wrapToolCall") {
      if (!isAgentAction(request["action"])) wrong("action", "an AgentAction ({ tool, toolInput, log }, e.g. { ...request.action, toolInput })");
      return;
    }
    const inputs = request["inputs"];
    if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs)) wrong("inputs", "an object (the agent's inputs)");
    if (!Array.isArray(request["steps"])) wrong("steps", "an array of AgentSteps");
    const problem = notAgentSteps(request["steps"] as unknown[]);
    if (problem !== undefined) bad(`next() was given the request with \`steps\` that are not all AgentSteps ({ action: { tool, toolInput, log }, observation }): ${problem}.`);
  }

  /** Runs a hook: its errors are blamed on it, unless they passed through or stop the run. */
  private async guard<T>(entry: NamedMiddleware, hook: MiddlewareHook, call: () => T | Promise<T>, passedThrough?: (error: unknown) => boolean): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw passedThrough?.(error) === true ? error : this.blame(entry, hook, error);
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
  private reporter(entry: NamedMiddleware, hook: MiddlewareHook, request: { iteration: number; signal: AbortSignal }): (data: Record<string, unknown>) => void {
    return (data) => {
      // Dropped only once the call was cancelled (its signal aborted) or the run ended: the
      // "generate" call after a halt reports as every agent call does.
      if (request.signal.aborted || isEnded(this.host.state)) return;
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

  private checkResult(entry: NamedMiddleware, result: PrepareStepResult, args: PrepareStepArgs): void {
    const bad = (message: string): never => {
      throw new MiddlewareError({ middleware: entry.name, hook: "prepareStep", message });
    };
    if (typeof result !== "object" || Array.isArray(result)) bad(`prepareStep must return an object ({ inputs?, steps?, model?, tools?, compaction? }) or nothing, got ${Array.isArray(result) ? "an array" : typeof result}.`);
    // A misspelt key (`step`, `input`) would leave the call as it was: refused, not ignored. What
    // the hook was given may come back unchanged (`{ ...args, steps }`); changed, it is refused too.
    for (const key of Object.keys(result)) {
      if (PREPARE_STEP_KEYS.includes(key)) continue;
      const given = key in args;
      if (given && (result as Record<string, unknown>)[key] === (args as unknown as Record<string, unknown>)[key]) continue;
      bad(
        given
          ? `prepareStep returned \`${key}\` changed, but it cannot change it (it would be ignored); it may return ${PREPARE_STEP_KEYS.join(", ")}.`
          : `prepareStep returned an unknown key \`${key}\` (it would be ignored); it may return ${PREPARE_STEP_KEYS.join(", ")}.`,
      );
    }
    if (result.inputs !== undefined && (typeof result.inputs !== "object" || result.inputs === null || Array.isArray(result.inputs))) bad("`inputs` must be an object.");
    if (result.steps !== undefined) {
      if (!Array.isArray(result.steps)) bad("`steps` must be an array of AgentSteps.");
      const problem = notAgentSteps(result.steps);
      if (problem !== undefined) bad(`\`steps\` must be an array of AgentSteps ({ action: { tool, toolInput, log }, observation }), but ${problem}.`);
    }
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

/** What `prepareStep` may return (see {@link PrepareStepResult}). */
const PREPARE_STEP_KEYS: readonly string[] = Object.keys({ inputs: true, steps: true, model: true, tools: true, compaction: true } satisfies Record<keyof PrepareStepResult, true>);

/** The keys of a model call's request: what `wrapModelCall` may change for `next`, and what it must give back as it was. */
const MODEL_REQUEST_KEYS = requestKeys<ModelCallRequest>({ inputs: true, steps: true, model: true, tools: true, signal: true, runId: false, iteration: false, runSteps: false, report: false });
/** The same for a tool call's request and `wrapToolCall`. */
const TOOL_REQUEST_KEYS = requestKeys<ToolCallRequest>({ action: true, signal: true, runId: false, iteration: false, index: false, returnDirect: false, runSteps: false, report: false });

function requestKeys<R>(keys: Record<keyof R, boolean>): { changeable: readonly string[]; fixed: readonly string[] } {
  const entries = Object.entries(keys);
  return { changeable: entries.filter(([, may]) => may).map(([key]) => key), fixed: entries.filter(([, may]) => !may).map(([key]) => key) };
}

/**
 * What a wrap hook resolved to: a tool call's observation (a string or message content), an agent
 * call's output (an `AgentFinish`, an `AgentAction` or a non-empty array of them). A hook that
 * forgot to return its `next`'s result, or made an output of another shape, fails, named, rather
 * than leaving an empty observation or blaming the agent; an agent's output the hook only passed
 * on (`passedOn`) is left for the loop to blame on the agent.
 */
function checkAnswer<T>(entry: NamedMiddleware, hook: "wrapModelCall" | "wrapToolCall", answer: T, passedOn: (answer: unknown) => boolean): T {
  const value = answer as unknown;
  const fine = hook === "wrapToolCall" ? typeof value === "string" || Array.isArray(value) : isAgentOutput(value) || passedOn(value);
  if (fine) return answer;
  const wanted =
    hook === "wrapToolCall"
      ? "the tool call's observation (a string or message content, as `next(call)` resolves to)"
      : "the agent's output (an AgentFinish, an AgentAction or a non-empty array of AgentActions, as `next(request)` resolves to)";
  throw new MiddlewareError({ middleware: entry.name, hook, message: `${hook} must resolve to ${wanted}, got ${shapeOf(value)}.` });
}

/** Whether `value` is an agent call's output the loop takes: an `AgentFinish`, an `AgentAction` or a non-empty array of `AgentAction`s. */
function isAgentOutput(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(isAgentAction);
  return isAgentFinish(value) || isAgentAction(value);
}

/**
 * What is wrong with the first element of `steps` that is not an `AgentStep` (an object with an
 * `action` whose `tool` is a string, and an `observation` that is a string or message content),
 * for a hook's error ("steps[1] is a number"); undefined when every element is one. The agent's
 * scratchpad would otherwise fail on it, blamed on the agent.
 */
function notAgentSteps(steps: readonly unknown[]): string | undefined {
  for (let index = 0; index < steps.length; index++) {
    const step = steps[index] as { action?: unknown; observation?: unknown } | null | undefined;
    const at = `steps[${index}]`;
    if (typeof step !== "object" || step === null || Array.isArray(step)) return `${at} is ${kindOf(step)}`;
    const action = step.action as { tool?: unknown } | null | undefined;
    if (typeof action !== "object" || action === null || Array.isArray(action)) return `${at}.action is ${kindOf(action)}`;
    if (typeof action.tool !== "string") return `${at}.action.tool is ${kindOf(action.tool)}, not a tool name`;
    const { observation } = step;
    if (typeof observation !== "string" && !Array.isArray(observation)) return `${at}.observation is ${kindOf(observation)}, not a string or message content`;
  }
  return undefined;
}

/** What kind of value `value` is, for an error: "undefined", "null", "an array", "a number", "an object with keys a, b". */
function kindOf(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value !== "object") return `${/^[aeiou]/.test(typeof value) ? "an" : "a"} ${typeof value}`;
  const keys = Object.keys(value);
  return keys.length === 0 ? "an empty object" : `an object with keys ${keys.slice(0, 8).join(", ")}${keys.length > 8 ? ", ..." : ""}`;
}

/** A value a hook gave where another kind was wanted, for its error: "set to null", "set to a string". */
function describeValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "set to null";
  if (Array.isArray(value)) return "set to an array";
  return `set to ${typeof value === "object" ? `an object with keys ${Object.keys(value).slice(0, 8).join(", ") || "(none)"}` : typeof value === "string" ? "a string" : typeof value}`;
}

/** What a hook's answer is, for its error. */
function shapeOf(value: unknown): string {
  if (value === undefined) return "undefined (a missing `return`?)";
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array that is not all AgentActions";
  if (typeof value !== "object") return typeof value === "string" ? "a string" : typeof value;
  const keys = Object.keys(value);
  return keys.length === 0 ? "an empty object" : `an object with keys ${keys.slice(0, 8).join(", ")}${keys.length > 8 ? ", ..." : ""}`;
}

/**
 * The metadata of a tool call's step made through `wrapToolCall` (see docs/middleware.md): that of
 * the call whose observation the chain gave (the last one with it), else the last call's without
 * `failed` and `error` (a hook answered with an observation of its own: the failure is not the
 * step's); with `ranWith` when that call ran another action than the one the model asked for.
 */
function stepMetadata(asked: AgentAction, observation: Observation, ran: readonly { action: AgentAction; observation: Observation; metadata: StepMetadata | undefined }[]): StepMetadata | undefined {
  let call: (typeof ran)[number] | undefined;
  for (let i = ran.length - 1; i >= 0 && call === undefined; i--) if (ran[i]?.observation === observation) call = ran[i];
  let metadata = call?.metadata;
  if (call === undefined) {
    call = ran.at(-1) as (typeof ran)[number];
    if (call.metadata !== undefined && (call.metadata.failed !== undefined || call.metadata.error !== undefined)) {
      const { failed: _failed, error: _error, ...rest } = call.metadata;
      metadata = rest;
    } else metadata = call.metadata;
  }
  const { tool, toolInput } = call.action;
  if (tool === asked.tool && (toolInput === asked.toolInput || JSON.stringify(toolInput) === JSON.stringify(asked.toolInput))) return metadata;
  return { ...metadata, ranWith: { tool, toolInput } };
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
