import { AbortError, IDEMPOTENCY_KEY_METADATA, STEP_METADATA_KEY, getStepMetadata, getToolApproval, invalidToolObservation, unwrapSingleArgument } from "@agentrx/core";
import type { AgentAction, AgentStep, Observation, StepMetadata } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { TELEMETRY_PARENT_KEY, type RunTelemetry, type ToolSpan, UnnamedCall } from "../telemetry/run-telemetry";
import type { ResolvedOptions } from "./validate-options";
import type { RunAbortScope } from "./run-abort-scope";
import type { MiddlewareRun } from "../middleware/middleware-run";
import { earlyCallKey, inputKey } from "./run-state";
import { HeldSubRunSink, SUB_RUN_CALL_KEY, SUB_RUN_DECISIONS_KEY, SUB_RUN_KEY, subRunSinkOf } from "./sub-run";
import type { Decision } from "./events";
import { SubRunInterruptedError } from "../handoff/sub-run-interrupted-error";
import { subRunExecutorOf } from "./executor-tool";
import {
  truncateObservation,
  invalidInputObservation,
  isToolInputParsingException,
  stringInputObservation,
  toObservation,
  toolErrorObservation,
} from "./observations";

/**
 * What the tool runner needs of its run, and nothing more: the options it reads (which tools may
 * start early among them), the run's abort scope (the signal its calls listen on, and the
 * controllers of early calls), whether the run was interrupted, and where a finished call goes.
 *
 * @internal
 */
export interface ToolRunContext {
  readonly options: Pick<ResolvedOptions, "toolsByName" | "toolNames" | "maxConcurrency" | "handleToolRuntimeErrors" | "maxObservationLength" | "eager" | "approvalOption">;
  /** The run's abort scope: its `signal` is the one the run's tool calls listen on; an early call's controller is its `child()`. */
  readonly aborts: Pick<RunAbortScope, "signal" | "child">;
  /** Whether anyone sees `step` events (else they are not built). */
  readonly observed: boolean;
  /** Whether the run was halted, cancelled or failed: results are then dropped. */
  readonly interrupted: boolean;
  /** The run's spans, when traced without callbacks: each tool call gets one. */
  readonly telemetry?: RunTelemetry | undefined;
  /** A tool call finished: `index` is its action's position in the turn. */
  toolFinished(index: number, step: AgentStep, durationMs: number, metadata: StepMetadata | undefined): void;
  /**
   * Called right before a tool call starts: throws when the run must not act any more (a recorded
   * run that can no longer be sure it holds its lease).
   */
  beforeToolStart(): void;
  /**
   * Resolves once an early call's intent (with its idempotency `key`) is durable (a recorded run
   * writes it ahead of the call); at once when the run is not recorded.
   */
  admitEarly(action: AgentAction, key: string): Promise<void>;
  /**
   * Write-ahead before a turn's next tool call starts (when `maxConcurrency` holds it back): `true`
   * at once when the run is not recorded; else resolves true once the steps that finished so far
   * are durable (those that finish in the same turn of the event loop go into one write), false
   * when the run was halted or ended meanwhile. Rejects when the store failed.
   */
  stepsDurable(): Promise<boolean> | boolean;
  /**
   * The id of the call of `action` at `index` of the current turn (its `toolCallId`, else
   * `"<iteration>:<index>"`): what a sub-run it starts carries (`subRunCallIds`).
   */
  callId(action: AgentAction, index: number | undefined, early?: number): string;
  /**
   * The idempotency key of a call of `action` at `index` of the current turn that did not start
   * early (`undefined`: an early call, before its turn is known): unique within the run, and the
   * same on resume. `early` numbers the early calls without a tool-call id (the model streamed
   * none), which the turn's position cannot tell apart.
   */
  idempotencyKey(action: AgentAction, index: number | undefined, early?: number): string;
  /** The run's middleware (its `wrapToolCall` chain); undefined without middleware. */
  readonly middleware: MiddlewareRun | undefined;
  /**
   * Whether the run is recorded (it can be resumed): a call whose sub-run paused and can be
   * resumed (a `handoff`'s or `asTool`'s `SubRunInterruptedError` with `resumable`) then pauses the run rather
   * than fail (see docs/agent-types.md, "Pauses inside a handoff").
   */
  readonly recorded: boolean;
  /** `promise`, a call of the agent or of `tool`, under the call's `timeout` (see `ExecutorRun.timed`). */
  timed<T>(promise: Promise<T>, call: "agent" | "tool", tool?: string): Promise<T>;
  /** The sub-run of the turn's call at `index` paused: the call waits, with no result, on its interrupts. */
  subRunPaused(index: number, error: SubRunInterruptedError): void;
  /** The decisions a resume brought for the paused sub-run of the turn's call at `index`, by the sub-run's interrupt ids. */
  subRunDecisions(index: number): Record<string, Decision> | undefined;
  /**
   * The result a person supplied (a `result` decision) for the turn's call at `index`, which goes
   * through the middleware's `wrapToolCall` chain in place of the tool's (set only with middleware).
   */
  suppliedResult(index: number): string | undefined;
}

/** A tool call started while the model still streamed. @internal */
export interface EarlyCall {
  action: AgentAction;
  /** `performance.now()` when it started. */
  start: number;
  /** Its idempotency key (the turn's matching call keeps it). */
  key: string;
  result: Promise<ToolOutcome>;
  /** Aborts it (when the model call fails or its answer does not include the call). */
  controller: AbortController | undefined;
  /** A call streamed without an id, when traced: its span waits for the id the turn gives it. */
  unnamed?: UnnamedCall | undefined;
  /** Where its sub-run's events wait for its action (see `HeldSubRunSink`), when the run takes sub-run events. */
  port?: HeldSubRunSink | undefined;
}

/**
 * An early call while it waits for the model's answer: the model call that streamed it, how to
 * unlink it, and how it settled while the run went on (`finished`, or `failed` with the tool's
 * error; neither once the run was halted: what settles after a halt is not kept).
 */
type PendingEarlyCall = EarlyCall & {
  modelRun: string;
  unlink: () => void;
  finished?: { outcome: ToolOutcome; durationMs: number } | undefined;
  failed?: { error: unknown } | undefined;
};

/**
 * An early call that finished before the run was halted while the model still streamed (see
 * `ToolRunner.takeFinishedEarly`): what it ran, under which key, and its result.
 *
 * @internal
 */
export interface FinishedEarlyCall {
  action: AgentAction;
  /** The idempotency key it ran with. */
  key: string;
  observation: Observation;
  durationMs: number;
  metadata: StepMetadata | undefined;
  /** Where its sub-run's events wait for its action. */
  port: HeldSubRunSink | undefined;
}

/**
 * A turn's tool calls: those started early while the model still streamed (eager dispatch, the
 * `eagerTools` option), matched to the turn's actions once the model answered (the others are
 * aborted), and the rest, run concurrently up to `maxConcurrency`, each result reported to the run
 * as it comes (so `step` events come in completion order).
 *
 * @internal
 */
export class ToolRunner {
  private config: RunnableConfig = {};
  private listenersLifted = false;
  /** Tool calls started while the model streamed, by call key, with their model call (made on the first one). */
  private early: Map<string, PendingEarlyCall> | undefined;
  /** The current turn's early starts, by action index. */
  private turnEarly: (EarlyCall | undefined)[] | undefined;
  /** Early calls started without a tool-call id so far (their keys are numbered apart). */
  private keylessEarly = 0;
  /**
   * The keys of this agent call's early calls, by call (`earlyCallKey`): a call streamed again
   * after the model call was retried is the same call, under the same key (the first start may
   * have had its effect before it was aborted).
   */
  private earlyKeys: Map<string, string> | undefined;

  constructor(private readonly run: ToolRunContext) {}

  /** Sets the config every tool call starts from (callbacks, signal, configurable). */
  configure(config: RunnableConfig): void {
    this.config = config;
  }

  /** Runs the actions at `indexes` of the turn; resolves when all have finished. */
  runAll(actions: readonly AgentAction[], indexes: readonly number[]): Promise<void> {
    const count = indexes.length;
    const limit = Math.min(count, this.run.options.maxConcurrency);
    // Each concurrent call listens on the run's signals (the tool, @langchain/core's own race):
    // lift Node's 10-listener leak warning for these short-lived, per-run signals.
    if (limit > 3 && !this.listenersLifted) {
      this.listenersLifted = true;
      liftListenerLimit(this.run.aborts.signal);
    }
    if (count === 1) {
      // The common case, without the scheduling below.
      const index = indexes[0] as number;
      return this.runOne(actions[index] as AgentAction, index);
    }
    // The calls started early (at most `maxConcurrency` of them run) take the first slots, so that
    // with the others the turn never runs more than `maxConcurrency` at once.
    const turnEarly = this.turnEarly;
    if (turnEarly !== undefined && turnEarly.some((entry) => entry !== undefined)) {
      indexes = [...indexes.filter((index) => turnEarly[index] !== undefined), ...indexes.filter((index) => turnEarly[index] === undefined)];
    }
    return new Promise<void>((resolve, reject) => {
      let next = 0;
      let settled = 0;
      /** Calls that will start once the steps before them are durable. */
      let admitting = 0;
      let failed = false;
      const fail = (error: unknown): void => {
        if (failed) return;
        failed = true;
        reject(error);
      };
      const launch = (): void => {
        const index = indexes[next++] as number;
        this.runOne(actions[index] as AgentAction, index).then(finished, fail);
      };
      // Write-ahead (see docs/runs.md): a call starts only once every step that finished before it
      // is durable; at once, without a promise, when the run is not recorded.
      const admit = (): void => {
        const durable = this.run.stepsDurable();
        if (durable === true) {
          admitting--;
          launch();
        } else if (durable !== false) {
          const before = settled;
          durable.then((ok) => {
            if (!ok || failed || this.run.interrupted) return;
            if (settled !== before) return admit(); // a call finished meanwhile: its step too
            admitting--;
            launch();
          }, fail);
        }
      };
      const finished = (): void => {
        if (failed || this.run.interrupted) return;
        if (++settled === count) resolve();
        else if (next + admitting < count) {
          admitting++;
          admit();
        }
      };
      for (let i = 0; i < limit; i++) launch();
    });
  }

  /** Whether the action's tool returns its observation directly. */
  returnsDirect(action: AgentAction): boolean {
    return this.run.options.toolsByName.get(action.tool)?.returnDirect === true;
  }

  /** Starts a streamed tool call at once (eager dispatch), when its tool may start early. */
  startStreamed(modelRun: string, call: { id: string | undefined; name: string; args: string }): void {
    if (this.run.interrupted) return;
    const { options } = this.run;
    const tool = options.toolsByName.get(call.name);
    if (tool === undefined || !options.eager?.(tool) || options.approvalOption || getToolApproval(tool) !== undefined) return;
    let args: unknown;
    try {
      args = call.args.trim() === "" ? {} : JSON.parse(call.args);
    } catch {
      return; // not valid JSON: the agent's parser reports it, and nothing starts early
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) return;
    // The input as the agent's parser gives it (a string tool's `{ __arg1 }` is its string), so the
    // turn's action matches it.
    const toolInput = unwrapSingleArgument(args);
    const id = call.id === "" ? undefined : call.id;
    const key = id ?? inputKey(call.name, toolInput);
    const early = (this.early ??= new Map());
    if (early.has(key)) return;
    // `maxConcurrency` holds for early calls too: past it, a call waits for the turn (`runAll`),
    // which starts the early ones' slots first.
    if (runningEarly(early) >= options.maxConcurrency) return;
    const action: AgentAction = { tool: call.name, toolInput, log: "", ...(id ? { toolCallId: id } : {}) };
    const { controller, unlink } = this.run.aborts.child();
    const started = this.startEarly(action, controller.signal);
    started.controller = controller;
    const entry: PendingEarlyCall = { ...started, modelRun, unlink };
    // Awaited by the turn if it keeps the call; dropped otherwise. How it settled while the run went
    // on is noted: a halt while the model streams keeps the calls that finished before it.
    started.result.then(
      (outcome) => {
        if (!this.run.interrupted) entry.finished = { outcome, durationMs: performance.now() - started.start };
      },
      (error: unknown) => {
        if (this.run.interrupted) return;
        // Paused through middleware (see `invoke`): kept by a halt as the outcome it has without middleware.
        const paused = this.pausedThrough?.get(started.key);
        if (paused !== undefined) entry.finished = { outcome: { observation: pausedObservation(action.tool, paused), metadata: undefined, paused }, durationMs: performance.now() - started.start };
        else entry.failed = { error };
      },
    );
    early.set(key, entry);
  }

  /**
   * A model call failed: its early calls still running stop. Those that finished stay, for the
   * agent call's next attempt (a retry, a `modelFallback`'s backup model) to take when it asks for
   * the same call: they had their effect, and are not run again.
   */
  dropModelCall(modelRun: string): void {
    if (this.early === undefined) return;
    for (const [key, entry] of this.early) {
      if (entry.modelRun === modelRun && entry.finished === undefined) this.drop(key, entry);
    }
  }

  /** Aborts and forgets every early call not taken by a turn (the agent call failed: they are not the turn's). */
  dropEarly(): void {
    if (this.early === undefined) return;
    for (const [key, entry] of this.early) this.drop(key, entry);
  }

  /**
   * The run was halted (a limit, a stop condition) while the model still streamed: the early calls
   * that finished before the halt, in the order they started, leave the pending ones (which
   * `dropEarly` then aborts) to become the agent call's partial turn. Throws the error of an early
   * call that failed before the halt (the run fails, as it would had its turn kept the call).
   */
  takeFinishedEarly(): FinishedEarlyCall[] {
    const early = this.early;
    if (early === undefined || early.size === 0) return [];
    // A failure first: the run fails with it, and no call is taken (named, unlinked) for a turn that is never recorded.
    for (const entry of early.values()) if (entry.failed !== undefined) throw entry.failed.error;
    const kept: FinishedEarlyCall[] = [];
    for (const [key, entry] of early) {
      const finished = entry.finished;
      if (finished === undefined) continue;
      early.delete(key);
      entry.unlink();
      entry.unnamed?.name((entry.action as { toolCallId?: string }).toolCallId);
      const { observation, metadata } = finished.outcome;
      kept.push({ action: entry.action, key: entry.key, observation, durationMs: finished.durationMs, metadata, port: entry.port });
    }
    return kept;
  }

  /** A new agent call begins: the previous turn's early starts are forgotten. */
  resetTurn(): void {
    this.turnEarly = undefined;
    this.earlyKeys = undefined;
  }

  /**
   * A turn started with `actions`: it keeps the early calls its actions match (same call id, tool
   * and input), by action index; the rest are aborted.
   */
  matchTurn(actions: readonly AgentAction[]): void {
    if (this.early !== undefined && this.early.size > 0) this.turnEarly = this.match(actions);
  }

  /** The turn's actions are out: the sub-run events its early calls held go on (see `HeldSubRunSink`). */
  releaseEarly(): void {
    const kept = this.turnEarly;
    if (kept !== undefined) for (const call of kept) call?.port?.release();
  }

  /** The early start of the current turn's action at `index`, if it was dispatched eagerly. */
  earlyCall(index: number): EarlyCall | undefined {
    return this.turnEarly?.[index];
  }

  /**
   * The idempotency key of the call of `action` at `index` of the current turn: the key an early
   * call started with, else the run's (see `ToolRunContext.idempotencyKey`).
   */
  idempotencyKey(action: AgentAction, index: number): string {
    const early = this.turnEarly?.[index];
    return early !== undefined ? early.key : this.run.idempotencyKey(action, index);
  }

  private match(actions: readonly AgentAction[]): (EarlyCall | undefined)[] {
    const early = this.early as Map<string, PendingEarlyCall>;
    const kept = actions.map((action) => {
      const id = (action as { toolCallId?: string }).toolCallId;
      // By the streamed call's id; a call streamed without one (its id given by the agent's parser
      // afterwards) by its tool and input.
      const key = id && early.has(id) ? id : inputKey(action.tool, action.toolInput);
      const entry = early.get(key);
      if (entry === undefined || entry.action.tool !== action.tool || JSON.stringify(entry.action.toolInput) !== JSON.stringify(action.toolInput)) return undefined;
      if (key !== id && (entry.action as { toolCallId?: string }).toolCallId !== undefined) return undefined; // streamed with another id
      early.delete(key);
      entry.unnamed?.name((action as { toolCallId?: string }).toolCallId);
      // Still linked to the run's signal (a limit or a cancellation stops it) until it settles.
      entry.result.then(entry.unlink, entry.unlink);
      return entry;
    });
    this.dropEarly();
    return kept;
  }

  private drop(key: string, entry: PendingEarlyCall): void {
    this.early?.delete(key);
    entry.unlink();
    entry.unnamed?.name(undefined);
    entry.controller?.abort(new AbortError({ message: "The model's answer did not keep this early tool call." }));
    entry.port?.drop();
  }

  /**
   * Starts a tool call before the agent has returned (eager dispatch, see `startStreamed`), under
   * its own signal; the result is used only if the agent's actions include the same call (see
   * `matchTurn`).
   */
  startEarly(action: AgentAction, signal: AbortSignal): EarlyCall {
    const start = performance.now();
    const id = (action as { toolCallId?: unknown }).toolCallId;
    const keyless = typeof id === "string" && id !== "" ? undefined : this.keylessEarly++;
    const callId = this.run.callId(action, undefined, keyless);
    const base: RunnableConfig = { ...this.config, signal };
    // Its sub-run's events wait for the action that asks for the call (see `HeldSubRunSink`).
    const parent = subRunSinkOf(this.config);
    const port = parent === undefined ? undefined : new HeldSubRunSink(parent);
    if (port !== undefined) base.configurable = { ...this.config.configurable, [SUB_RUN_KEY]: port };
    const keys = (this.earlyKeys ??= new Map());
    const call = earlyCallKey(action);
    const known = keys.get(call);
    const key = known ?? this.run.idempotencyKey(action, undefined, keyless);
    if (known === undefined) keys.set(call, key);
    const unnamed = keyless !== undefined && this.run.telemetry !== undefined ? new UnnamedCall() : undefined;
    const result = this.run.admitEarly(action, key).then(() => {
      if (signal.aborted) throw signal.reason;
      this.run.beforeToolStart();
      return this.call(action, undefined, callId, base, key, unnamed);
    });
    return { action, start, key, result, controller: undefined, unnamed, port };
  }

  /**
   * Runs one action (or takes the result of its early start) and reports its step, unless the run
   * was interrupted meanwhile. (A promise callback, not an async function: less to allocate per call.)
   */
  private runOne(action: AgentAction, index: number): Promise<void> {
    const { observed } = this.run;
    const early = this.turnEarly?.[index];
    const start = early ? early.start : observed ? performance.now() : 0;
    let pending: Promise<ToolOutcome>;
    let key: string;
    if (early) {
      pending = early.result;
      key = early.key;
    } else {
      try {
        this.run.beforeToolStart();
        const callId = this.run.callId(action, index);
        key = this.run.idempotencyKey(action, index);
        pending = this.call(action, index, callId, this.config, key);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const done = ({ observation, metadata, paused }: ToolOutcome): void => {
      if (this.run.interrupted) return;
      // Paused through middleware that gave a text of its own all the same: it is no result.
      paused ??= this.takePause(key);
      if (paused !== undefined) return this.run.subRunPaused(index, paused);
      this.run.toolFinished(index, { action, observation }, observed || early ? performance.now() - start : 0, metadata);
    };
    // Through middleware, a `handoff`'s or `asTool`'s call whose sub-run paused rejects with the
    // pause (see `invoke`): only such calls need this handler.
    if (!this.rejectsOnPause(action)) return pending.then(done);
    return pending.then(done, (error: unknown) => {
      // Whatever the chain made of the pause (rethrown, wrapped), the call paused.
      const paused = this.takePause(key);
      if (paused === undefined) throw error;
      if (!this.run.interrupted) this.run.subRunPaused(index, paused);
    });
  }

  /**
   * The pauses of calls made through middleware (see `invoke`), by the call's idempotency key;
   * made at the first such pause (until then, `takePause` costs nothing).
   */
  private pausedThrough: Map<string, SubRunInterruptedError> | undefined;

  /**
   * Whether a call of `action` whose sub-run paused rejects with the pause in the `wrapToolCall`
   * chain (see `invoke`): the run has middleware and is recorded (else it never pauses so), and
   * the tool is a `handoff`'s or an `asTool`'s. (A tool that calls one of those in its own code
   * pauses all the same; its middleware then sees the failure's text.)
   */
  private rejectsOnPause(action: AgentAction): boolean {
    // Every call asks: without middleware (the common case), one property read answers.
    const run = this.run;
    return run.middleware !== undefined && run.recorded && subRunExecutorOf(run.options.toolsByName.get(action.tool)) !== undefined;
  }

  /** The pause of the call of `key` made through middleware, if it paused (forgotten once taken). */
  private takePause(key: string): SubRunInterruptedError | undefined {
    const pauses = this.pausedThrough;
    if (pauses === undefined) return undefined;
    const paused = pauses.get(key);
    if (paused !== undefined) pauses.delete(key);
    return paused;
  }

  /**
   * Calls the action's tool with `base` and the call's idempotency `key`, through the middleware's
   * `wrapToolCall` chain when there is one.
   */
  private call(action: AgentAction, index: number | undefined, callId: string, base: RunnableConfig, key: string, unnamed?: UnnamedCall): Promise<ToolOutcome> {
    // A call that ran a sub-run which paused: it hands the sub-run the decisions a resume brought.
    const decisions = index === undefined ? undefined : this.run.subRunDecisions(index);
    if (decisions !== undefined) base = { ...base, configurable: { ...base.configurable, [SUB_RUN_DECISIONS_KEY]: decisions } };
    const middleware = this.run.middleware;
    if (middleware === undefined) return this.execute(action, base, callId, key, unnamed);
    // A result a person supplied: the chain's `next` resolves to it, and the tool does not run.
    const supplied = index === undefined ? undefined : this.run.suppliedResult(index);
    if (supplied !== undefined) return middleware.callTool(action, index, withKey(base, key), () => Promise.resolve({ observation: supplied, metadata: { observationEdited: true } }));
    const rejects = this.rejectsOnPause(action);
    return middleware.callTool(action, index, withKey(base, key), (a, c) => this.execute(a, c, callId, undefined, unnamed, key, rejects));
  }

  /**
   * Calls the action's tool: its observation (truncated when too long) and what policies reported.
   * `key`, when given, is put in the config's metadata (else `base` has it already); `unnamed`, an
   * early call streamed without an id (its span waits for the turn's); `throughMiddleware`, the
   * call's key when the `wrapToolCall` chain made the call, and `rejects`, whether a pause then
   * rejects (see `invoke`). Promise callbacks, not async functions: a tool call costs as few
   * promises and microtasks as it can.
   */
  private execute(action: AgentAction, base: RunnableConfig, callId: string, key: string | undefined, unnamed?: UnnamedCall, throughMiddleware?: string, rejects = false): Promise<ToolOutcome> {
    const { options } = this.run;
    const tool = options.toolsByName.get(action.tool);
    if (tool === undefined) return Promise.resolve({ observation: invalidToolObservation(action.tool, options.toolNames), metadata: { failed: true } });
    const metadata: StepMetadata = {};
    const span = this.run.telemetry?.toolStarted(action, unnamed, tool.description);
    // Our keys come first in each literal and are set again after the spread (so they win): V8
    // builds an object spread and then given new keys on a slow path (see `agentInput`).
    // A sub-run (an executor used as this tool) tags its events with this call's id.
    const configurable: Record<string, unknown> = { [STEP_METADATA_KEY]: metadata, [SUB_RUN_CALL_KEY]: callId, ...base.configurable };
    configurable[STEP_METADATA_KEY] = metadata;
    configurable[SUB_RUN_CALL_KEY] = callId;
    // A sub-run (an executor used as this tool) puts its spans under this call's.
    if (span !== undefined) configurable[TELEMETRY_PARENT_KEY] = span.parent;
    let config: RunnableConfig;
    if (key === undefined) config = { configurable, ...base };
    else {
      config = { configurable, metadata: undefined, ...base };
      config.metadata = base.metadata === undefined ? { [IDEMPOTENCY_KEY_METADATA]: key } : { ...base.metadata, [IDEMPOTENCY_KEY_METADATA]: key };
    }
    config.configurable = configurable;
    const finish = (result: unknown): ToolOutcome => {
      let observation = toObservation(result); // what `recover` gives is one already (and stays as it is)
      span?.end(observation);
      // Content with images is kept whole (each image is capped when recorded), and so is a
      // `returnDirect` tool's answer: it is the user's answer, not text for the model to read.
      if (typeof observation === "string" && observation.length > options.maxObservationLength && tool.returnDirect !== true) {
        metadata.observationLength = observation.length;
        observation = truncateObservation(observation, options.maxObservationLength);
      }
      return { observation, metadata };
    };
    if (span === undefined) return this.invoke(tool, action, config, finish, undefined, throughMiddleware, rejects);
    return span.run(() => this.invoke(tool, action, config, finish, span, throughMiddleware, rejects));
  }

  /**
   * Calls the tool; `finish` makes the outcome of what it returned, or of the observation an error
   * becomes (see `recover`). A call whose sub-run paused the run (`pausesOn`) has no result: its
   * outcome carries the pause; made through middleware (`throughMiddleware`, the call's key), the
   * pause is noted for `runOne` (`takePause`), which pauses the run with it whatever the chain
   * made of the call, and with `rejects` (`rejectsOnPause`) the call rejects with the pause, so
   * that no `wrapToolCall` takes a text for its result (a guardrail would check it as a
   * `returnDirect` tool's answer).
   */
  private invoke(
    tool: StructuredToolInterface,
    action: AgentAction,
    config: RunnableConfig,
    finish: (result: unknown) => ToolOutcome,
    span: ToolSpan | undefined,
    throughMiddleware: string | undefined,
    rejects: boolean,
  ): Promise<ToolOutcome> {
    let result: Promise<unknown>;
    try {
      result = this.run.timed(Promise.resolve(tool.invoke(action.toolInput as never, config)), "tool", action.tool);
    } catch (error) {
      result = Promise.reject(error);
    }
    return result.then(finish, (error: unknown) => {
      if (!this.pausesOn(error)) return this.recover(tool, action, config, error, span).then(finish);
      const outcome = finish(pausedObservation(action.tool, error));
      if (throughMiddleware !== undefined) {
        (this.pausedThrough ??= new Map()).set(throughMiddleware, error);
        if (rejects) throw error;
      }
      outcome.paused = error;
      return outcome;
    });
  }

  /**
   * Whether `error` pauses the run rather than fail the call: the call's sub-run paused, can be
   * resumed, and this run is recorded (see docs/agent-types.md, "Pauses inside a handoff").
   */
  private pausesOn(error: unknown): error is SubRunInterruptedError {
    return this.run.recorded && !this.run.interrupted && SubRunInterruptedError.isInstance(error) && error.resumable && error.interrupts.length > 0;
  }

  /**
   * The observation of a call that failed, its step metadata marked `failed` (a UI shows it as an
   * error), and `refusedInput` when its input was refused before the tool ran.
   */
  private failed(config: RunnableConfig, observation: Observation, refusedInput = false): Observation {
    const metadata = getStepMetadata(config);
    if (metadata !== undefined) {
      metadata.failed = true;
      if (refusedInput) metadata.refusedInput = true;
    }
    return observation;
  }

  /**
   * A failed tool call's observation: a runtime error as `handleToolRuntimeErrors` says, input the
   * tool's schema refused as what was wrong; a string given to a tool that takes named arguments
   * is tried again as a JSON object. Rethrows when the run was interrupted.
   */
  private async recover(tool: StructuredToolInterface, action: AgentAction, config: RunnableConfig, error: unknown, span: ToolSpan | undefined): Promise<Observation> {
    const input = action.toolInput as unknown;
    span?.fail(error);
    if (this.run.interrupted) throw error;
    if (!isToolInputParsingException(error)) return this.failed(config, toolErrorObservation(this.run.options, error, action));
    if (typeof input !== "string") return this.failed(config, invalidInputObservation(action.tool, error, tool.schema, input), true);
    // A string given to a tool that takes named arguments: accept it when it is a JSON object.
    const parsed = parseObject(input);
    if (typeof parsed === "string") return this.failed(config, stringInputObservation(action.tool, input, parsed), true);
    if (parsed === undefined) return this.failed(config, stringInputObservation(action.tool, input), true);
    try {
      return toObservation(await this.run.timed(Promise.resolve(tool.invoke(parsed as never, config)), "tool", action.tool));
    } catch (retryError) {
      if (this.run.interrupted) throw retryError;
      return this.failed(
        config,
        isToolInputParsingException(retryError) ? invalidInputObservation(action.tool, retryError, tool.schema, parsed) : toolErrorObservation(this.run.options, retryError, action),
        isToolInputParsingException(retryError),
      );
    }
  }
}

/**
 * A finished tool call: its observation and what policies reported; `paused` when the call's
 * sub-run paused and the run pauses with it (the call then has no result).
 */
type ToolOutcome = { observation: Observation; metadata: StepMetadata | undefined; paused?: SubRunInterruptedError };

/** The observation of a call whose sub-run paused the run, should its result be needed after all (a halt keeps an early call's). */
function pausedObservation(tool: string, error: SubRunInterruptedError): string {
  return `Tool "${tool}" failed with error: ${error.message}`;
}

/** `config` with the tool call's idempotency key in its metadata (see `getIdempotencyKey`). */
function withKey(config: RunnableConfig, key: string): RunnableConfig {
  return { ...config, metadata: { ...config.metadata, [IDEMPOTENCY_KEY_METADATA]: key } };
}

/**
 * The JSON object in `text`; else, when `text` looks like JSON (starts with `{` or `[`), what is
 * wrong with it; else undefined (plain text).
 */
function parseObject(text: string): Record<string, unknown> | string | undefined {
  const looksLikeJson = /^\s*[[{]/.test(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return looksLikeJson ? `invalid JSON: ${(error as Error).message}` : undefined;
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  return looksLikeJson ? "got an array" : undefined;
}

type SetMaxListeners = (n: number, ...targets: EventTarget[]) => void;
let setMaxListeners: SetMaxListeners | null | undefined;

/** `events.setMaxListeners(0, ...signals)` on Node; nothing elsewhere. */
function liftListenerLimit(...signals: AbortSignal[]): void {
  if (setMaxListeners === undefined) {
    const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
      ?.getBuiltinModule;
    const events = getBuiltinModule?.("node:events") as { setMaxListeners?: SetMaxListeners } | undefined;
    setMaxListeners = events?.setMaxListeners ?? null;
  }
  setMaxListeners?.(0, ...signals);
}

/** How many early calls are still running (not settled). */
function runningEarly(early: Map<string, PendingEarlyCall>): number {
  let running = 0;
  for (const entry of early.values()) if (entry.finished === undefined && entry.failed === undefined) running++;
  return running;
}
