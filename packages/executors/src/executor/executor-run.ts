import { AbortError, type InDoubtPolicy, MODEL_CALL_OBSERVER_KEY, getToolInDoubt, idempotencyKeyOf, nextTurn } from "@agentrx/core";
import type { AgentAction, AgentFinish, AgentOutput, AgentStep, ModelCallObserver, ObservedModelCall, StepMetadata } from "@agentrx/core";
import { encodeAction } from "../runs/run-event-codec";
import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import type { UsageMetadata } from "@langchain/core/messages";
import type { RecorderHooks, RunRecorder } from "../runs/run-recorder";
import type { RunCheckpoint } from "../runs/run-store";
import { PromptRecorder } from "../runs/prompt-recorder";
import { AgentLoop, type AgentLoopContext } from "./agent-loop";
import { ApprovalGate, type ApprovalGateContext } from "./approvals";
import type { AgentStreamEvent, Decision, InterruptEvent, StopReason, UsageEvent } from "./events";
import type { SubRunInterruptedError } from "../handoff/sub-run-interrupted-error";
import type { RunUsage } from "../cost/cost";
import type { CallPricer } from "../cost/executor-prices";
import { actionEvent, callConfigs, forced, startChainRun } from "./run-helpers";
import { RunEnding, type RunEndingContext, type RunSubscriber } from "./run-ending";
import type { RunRequest } from "./run-request";
import { type RunState, type RunTransition, isEnded, transition } from "./run-state";
import { CallTimeoutError } from "./call-timeout-error";
import { StopConditionWatcher } from "./stop-condition-watcher";
import { RunWaiter } from "./run-waiter";
import { RunAbortScope } from "./run-abort-scope";
import { type SubRunModelCall, type SubRunModelCalls, type SubRunSink, takeSubRunModelCalls } from "./sub-run";
import { onAbort } from "./shared-abort-listener";
import { lastInboxSeq } from "../steering/message-step-of";
import { RunSteering } from "../steering/run-steering";
import { TokenForwarder, type TokenSink } from "./token-forwarder";
import { observedUsage } from "./model-params";
import { type ResolvedMemory, checkedHistory } from "./conversation-memory";
import { joinMessages } from "../steering/join-messages";
import { type ToolRunContext, ToolRunner } from "./tool-runner";
import type { ResolvedOptions } from "./validate-options";
import type { RunTelemetry } from "../telemetry/run-telemetry";
import { type MiddlewareHost, MiddlewareRun } from "../middleware/middleware-run";
import { AttemptTokens } from "../middleware/attempt-tokens";

/**
 * A test seam: when `made` is set, it is called with each run as the run is made, so a test can
 * read the live run's `state` (the test that a run restored from its record equals the live one,
 * docs/runs.md). Not exported from the package index.
 *
 * @internal
 */
export const executorRunProbe: { made: ((run: ExecutorRun) => void) | undefined } = { made: undefined };

/**
 * One run of the executor: one subscription. Its state is a {@link RunState} that only `dispatch`
 * changes; {@link AgentLoop} is the loop (see docs/executor-options.md), everything here is
 * lifecycle: limits, stop conditions, cancellation, callbacks and recording. Each collaborator (the
 * loop, {@link ToolRunner} (with the early calls of `eagerTools`), {@link ApprovalGate}, {@link RunEnding}, the
 * middleware) is made once per run and is handed this run typed as the narrow context it declares:
 * it sees only that, and a run allocates no per-collaborator adapter objects (thousands of runs in
 * flight hold one object each, not a dozen closures).
 *
 * Its abort controllers are made and aborted in one place, its {@link RunAbortScope}: the loop's
 * calls (and the tool calls started early) stop on cancellation (unsubscribe, `config.signal`,
 * failure) and when a limit or stop condition halts the loop; the "generate" call after a halt runs
 * under its own controller, which only cancellation aborts.
 *
 * @internal
 */
export class ExecutorRun implements TokenSink, ToolRunContext, AgentLoopContext, RunEndingContext, ApprovalGateContext, MiddlewareHost {
  /** The run's abort controllers: its calls', early calls' and the "generate" call's after a halt. */
  readonly aborts = new RunAbortScope();
  /** The run's state; changed only through `dispatch`. */
  readonly state: RunState;
  private readonly waiter = new RunWaiter();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private conditions: StopConditionWatcher | undefined;
  chainRun: CallbackManagerForChainRun | undefined;
  /** The turn's tool calls, those started while the model streams (`eagerTools`) among them. */
  readonly tools: ToolRunner;
  /** Approval decisions and pauses. */
  readonly approvals: ApprovalGate;
  /** The ids of the interrupts this resume's own decisions answer (their calls never started). */
  readonly freshDecisions: ReadonlySet<string>;
  /** The loop: agent calls, turns, structured output and early stopping. */
  private readonly loop: AgentLoop;
  /** How the run ends: with its output or a pause, a failure or a cancellation. */
  private readonly ending: RunEnding;
  /** Stops watching the caller's `config.signal`. */
  private unwatchSignal: (() => void) | undefined;
  recorder: RunRecorder | undefined;
  /** Prices model calls (the executor's `prices`); resolved when the run begins. */
  private price: CallPricer | undefined;
  /** Where messages sent to the run come from (`executor.send`); opened when the run starts. */
  steering: RunSteering | undefined;
  /** `Date.now()` when this segment of the run started. */
  readonly startedAt = Date.now();
  /** The run's middleware (made only when the executor has middleware). */
  readonly middleware: MiddlewareRun | undefined;
  onModelCall: TokenSink["onModelCall"];
  /** When this run is a sub-run whose caller (or a run above it) records model calls: where its model calls go. */
  private readonly parentModelCalls: SubRunModelCalls | undefined;
  /** The caller's config, without what only this run reads (see `takeSubRunModelCalls`). */
  private readonly config: RunRequest["config"];
  onToolCallComplete: TokenSink["onToolCallComplete"];
  onModelError: TokenSink["onModelError"];

  constructor(
    readonly options: ResolvedOptions,
    private readonly request: RunRequest,
    readonly subscriber: RunSubscriber,
  ) {
    this.state = request.state;
    const taken = takeSubRunModelCalls(request.config);
    this.parentModelCalls = taken.modelCalls;
    this.config = taken.config;
    this.middleware = options.middleware === undefined ? undefined : new MiddlewareRun(options.middleware, this);
    this.tools = new ToolRunner(this);
    this.ending = new RunEnding(this);
    this.approvals = new ApprovalGate(this);
    // Nothing to allocate for a run that was given no decisions (every new run).
    const { newDecisions, unstartedDecisions } = request;
    this.freshDecisions = newDecisions === undefined && unstartedDecisions === undefined ? NO_DECISIONS : new Set([...Object.keys(newDecisions ?? {}), ...(unstartedDecisions ?? [])]);
    this.loop = new AgentLoop(this);
    executorRunProbe.made?.(this);
  }

  // What the collaborators' contexts ask of the run, beyond its own members.

  /** A fork whose last copied step's observation was edited (see `AgentLoop`'s check of it). */
  get forkEdited(): boolean {
    return this.request.forkEdited === true;
  }

  /** The run's spans, when traced without callbacks. */
  get telemetry(): RunTelemetry | undefined {
    return this.request.telemetry;
  }

  /**
   * Whether the loop counts the usage the agent's parser attached to its output: no callbacks
   * watch the model and no observer reports each call's usage (set when the run begins).
   */
  usageFromOutput = true;

  get approval(): ResolvedOptions["approval"] {
    return this.options.approval;
  }

  get decisions(): RunRequest["decisions"] {
    return this.request.decisions;
  }

  complete(finish: AgentFinish, stopReason: StopReason, interrupt?: InterruptEvent): Promise<void> {
    return this.ending.complete(finish, stopReason, interrupt);
  }

  inDoubtPolicy(action: AgentAction): InDoubtPolicy {
    return getToolInDoubt(this.options.toolsByName.get(action.tool)) ?? this.options.inDoubt;
  }

  schedule(): void {
    this.recorder?.schedule();
  }

  barrier(): Promise<void> | undefined {
    return this.recorder?.barrier();
  }

  finalSignal(): AbortSignal {
    return this.aborts.finalSignal();
  }

  stop(reason: StopReason, stoppedBy: Record<string, unknown>): void {
    if (this.state.phase === "stopping") this.dispatch({ type: "stopReplaced", reason, stoppedBy });
    else this.halt(reason, stoppedBy);
  }

  /** Starts the run; returns the teardown for the subscription. */
  start(): () => void {
    const { config, conditions } = this.request;
    const signal = config.signal;
    if (signal?.aborted) {
      this.dispatch({ type: "cancelled" });
      this.subscriber.error(new AbortError({ reason: signal.reason }));
      return noop;
    }
    if (signal) {
      this.unwatchSignal = onAbort(signal, () => this.ending.cancel(new AbortError({ reason: signal.reason }), true));
    }
    const { maxExecutionTime } = this.options;
    if (maxExecutionTime !== undefined) {
      const left = maxExecutionTime - this.state.elapsedMs;
      if (maxExecutionTime === 0 || left <= 0) this.dispatch({ type: "halted", reason: "max_execution_time" });
      else this.timer = setTimeout(() => this.halt("max_execution_time"), left);
    }
    if (conditions.length > 0) {
      this.conditions = new StopConditionWatcher(
        conditions,
        (value) => {
          this.halt("budget", value);
        },
        (error) => this.fail(error),
      );
    }
    this.begin().then(noop, (error: unknown) => this.fail(error));
    return () => {
      if (!isEnded(this.state)) this.ending.cancel(new AbortError({ message: UNSUBSCRIBED }), false);
      else this.cancelledEnd?.(new AbortError({ message: UNSUBSCRIBED }), false);
    };
  }

  /** What `onCancel` was given, while the run's end watches for a cancellation. */
  private cancelledEnd: ((error: AbortError, notify: boolean) => void) | undefined;

  /**
   * See `RunEndingContext.onCancel`: the caller's signal is watched again (the run's `cleanup`
   * stopped watching it when its end began) and an unsubscribe is passed on, until `cancelled` is
   * called (once) or the returned function is.
   */
  onCancel(cancelled: (error: AbortError, notify: boolean) => void): () => void {
    const signal = this.config.signal;
    if (signal?.aborted) {
      cancelled(new AbortError({ reason: signal.reason }), true);
      return noop;
    }
    if (this.subscriber.closed) {
      cancelled(new AbortError({ message: UNSUBSCRIBED }), false);
      return noop;
    }
    const unwatch = signal === undefined ? undefined : onAbort(signal, () => this.cancelledEnd?.(new AbortError({ reason: signal.reason }), true));
    const stop = () => {
      this.cancelledEnd = undefined;
      unwatch?.();
    };
    this.cancelledEnd = (error, notify) => {
      stop();
      cancelled(error, notify);
    };
    return stop;
  }

  /** The one place the run's state changes. */
  dispatch(event: RunTransition): void {
    transition(this.state, event);
  }

  /**
   * Whether anyone sees `action`/`step`/`token`/`usage` events: `stream()` subscribers, stop
   * conditions or a recorder. `invoke` without them sees only the output, so the loop skips building them.
   */
  get observed(): boolean {
    return this.request.observeModel;
  }

  /** Whether the loop must not start or record anything more (halted, ended). */
  get interrupted(): boolean {
    const phase = this.state.phase;
    return phase !== "agent" && phase !== "tools";
  }

  /** The 0-based iteration of the agent call in progress (for token and usage events). */
  get iteration(): number {
    return Math.max(0, this.state.iteration - 1);
  }

  /** Emits an event to the subscriber, the stop conditions and the recorder. */
  emit(event: AgentStreamEvent, index?: number): void {
    this.subscriber.next(event);
    // An early call's action was shown to the stop conditions when it started.
    if (!(event.type === "action" && event.early === true)) this.conditions?.next(event);
    this.recorder?.record(event, index);
  }

  onToken(text: string, iteration = this.iteration, attempt?: number): void {
    // A model call of an agent call the run halted, that did not stop with its signal: its text is
    // not the "generate" call's (and that agent call's answer is discarded).
    if (isEnded(this.state) || !this.request.streamTokens || iteration !== this.iteration) return;
    const held = this.heldTokens;
    // A model attempt's token once its agent call returned (an attempt the chain left running): not the answer's.
    if (held === undefined && attempt !== undefined) return;
    const event: AgentStreamEvent = { type: "token", iteration, text, at: Date.now() };
    if (held !== undefined) held.add(attempt, event);
    else this.emit(event);
  }

  /**
   * The tokens of the agent call in progress, by model attempt, held until the `wrapModelCall`
   * chain returned (see `MiddlewareRun.holdsTokens`): only the attempt whose output the chain
   * returned (and which passed an output guardrail) streams its text; a failed attempt's, one the
   * chain replaced (a fallback, a second `next`) and a tripped answer's are never streamed.
   * Undefined when nothing is held (always without middleware that wraps the model call).
   */
  heldTokens: AttemptTokens | undefined;

  /** An agent call begins: with a middleware that wraps the model call, its tokens are held (see `heldTokens`). */
  holdTokens(): void {
    if (this.middleware?.holdsTokens === true && this.request.streamTokens) this.heldTokens = new AttemptTokens();
  }

  /**
   * The agent call returned `output` (it passed the chain): the tokens of the attempt that answered
   * with it go out, the others' are dropped; without `output` (the call failed, its answer tripped,
   * or the loop was halted as it came), all are. Nothing goes out once the run ended.
   */
  releaseTokens(output?: AgentOutput): void {
    const held = this.heldTokens;
    this.heldTokens = undefined;
    if (held === undefined || output === undefined || isEnded(this.state)) return;
    const tokens = held.of(output);
    if (tokens !== undefined) for (const event of tokens) this.emit(event);
  }

  onUsage(reported: UsageMetadata, model?: string, iteration = this.iteration): void {
    if (isEnded(this.state)) return;
    let usage: RunUsage = reported;
    if (this.price !== undefined) {
      try {
        usage = this.price(model, reported);
      } catch (error) {
        // From a callback (streamed runs), a throw would only be logged and the call's usage lost.
        this.fail(error);
        return;
      }
    }
    this.dispatch({ type: "usageReported", usage });
    if (!this.observed) return;
    const event: UsageEvent = { type: "usage", iteration, usage, at: Date.now() };
    if (model !== undefined) event.model = model;
    this.emit(event);
  }

  /** A model call the agent reported: its usage, priced by its model, as the forwarder gives it. */
  private onObservedUsage(call: ObservedModelCall): void {
    const observed = observedUsage(call);
    if (observed !== undefined) this.onUsage(observed.usage, observed.model);
  }

  /** Receives the events of sub-runs (executors called as tools by this run). */
  private readonly subRunSink: SubRunSink = new SubRunPort(this);
  /** Where sub-runs' model calls go (made when first asked for). */
  private subRunModelCallSink: SubRunModelCalls | undefined;

  /** The run's conversation so far, for a sub-run (what a handoff passes on). */
  subRunConversation(): { inputs: Record<string, unknown>; steps: readonly AgentStep[] } {
    return { inputs: this.state.inputs, steps: this.state.steps };
  }

  /** An event of a sub-run (its `subRun` path relative to this run). */
  subRunEvent(event: AgentStreamEvent): void {
    if (isEnded(this.state)) return;
    if (event.type === "usage") {
      const counted = this.subRunUsage(event);
      if (counted === undefined) return;
      event = counted;
    }
    // In the record too (not its tokens: its steps and output carry its text), so a follower that
    // reconnects and a resumed caller see the sub-run.
    if (event.type !== "token") this.recorder?.record(event);
    if (!this.observed) return;
    this.subscriber.next(event);
    this.conditions?.next(event);
  }

  /**
   * A sub-run's `usage` event counted toward this run's usage (its own sub-runs' too: they come
   * through it), priced by this run's `prices` when the sub-run's executor has none (docs/cost.md);
   * undefined when pricing it failed the run.
   */
  subRunUsage(event: UsageEvent): UsageEvent | undefined {
    if (isEnded(this.state)) return undefined;
    if (this.price !== undefined && event.usage.cost === undefined && event.usage.unpricedCalls === undefined) {
      try {
        event = { ...event, usage: this.price(event.model, event.usage) };
      } catch (error) {
        this.fail(error);
        return undefined;
      }
    }
    this.dispatch({ type: "usageReported", usage: event.usage });
    return event;
  }

  /** Where sub-runs send their model calls: only when someone records them (this run, or one above it). */
  subRunModelCalls(): SubRunModelCalls | undefined {
    if (!((this.recorder !== undefined && this.options.recordModelCalls) || this.parentModelCalls !== undefined)) return undefined;
    return (this.subRunModelCallSink ??= (call) => this.onSubRunModelCall(call));
  }

  /** A sub-run's model call: in the record (marked with its `subRun` path), and on up to the run above. */
  private onSubRunModelCall(call: SubRunModelCall): void {
    if (isEnded(this.state)) return;
    if (this.options.recordModelCalls) this.recorder?.recordSubRunModelCall(call);
    this.parentModelCalls?.(call);
  }

  get recorded(): boolean {
    return this.recorder !== undefined;
  }

  subRunPaused(index: number, error: SubRunInterruptedError): void {
    this.approvals.subRunPaused(index, error);
  }

  subRunDecisions(index: number): Record<string, Decision> | undefined {
    return this.approvals.subRunDecisions(index);
  }

  suppliedResult(index: number): string | undefined {
    return this.approvals.suppliedResult(index);
  }

  beforeToolStart(): void {
    this.recorder?.checkLease();
  }

  admitEarly(action: AgentAction, key: string): Promise<void> {
    if (this.conditions !== undefined) {
      // Budgets count an early call before it starts (its action event later is not counted again).
      const early = actionEvent(action, this.iteration);
      early.early = true;
      this.conditions.next(early);
      if (this.interrupted) return Promise.reject(new AbortError({ message: "A stop condition ended the run before this early tool call started." }));
    }
    // In doubt from here until its turn is recorded (a resume settles it by its in-doubt policy).
    this.dispatch({ type: "earlyCallStarted", iteration: this.iteration, action, key });
    const recorder = this.recorder;
    // Write-ahead: the early call is in the record before it starts.
    const intent = recorder === undefined ? undefined : recorder.recordIntent({ type: "tool_intent", iteration: this.iteration, action: encodeAction(action), idempotencyKey: key });
    const chainRun = this.chainRun;
    if (chainRun === undefined) return intent ?? RESOLVED;
    // The callbacks hear of the action before its call starts, once: not again with its turn (see `AgentLoop`).
    return this.tellEarlyAction(chainRun, action, intent);
  }

  /**
   * Tells the callbacks' chain run of an early call's `action` (`handleAgentAction`); resolves once
   * the handlers and `intent` (the call's write-ahead, when recorded) are done. A handler with
   * `raiseError` that throws fails the run with its error (the call then never starts: the promise
   * rejects with it too).
   */
  private tellEarlyAction(chainRun: CallbackManagerForChainRun, action: AgentAction, intent: Promise<void> | undefined): Promise<void> {
    const told = this.wait(chainRun.handleAgentAction(action), false).catch((error: unknown) => {
      this.fail(error);
      throw error;
    });
    return intent === undefined ? told : Promise.all([told, intent]).then(noop);
  }

  durable(): Promise<boolean> | boolean {
    const pending = this.recorder?.barrier();
    if (pending === undefined) return !this.interrupted;
    return this.durableAfter(pending);
  }

  private async durableAfter(pending: Promise<void>): Promise<boolean> {
    try {
      await this.wait(pending, true);
    } catch (error) {
      if (this.interrupted) return false;
      throw error;
    }
    return !this.interrupted;
  }

  stepsDurable(): Promise<boolean> | boolean {
    if (this.recorder === undefined) return !this.interrupted;
    // After the event loop turns: the calls that finish together go into one write.
    return nextTurn().then(() => this.durable());
  }

  callId(action: AgentAction, index: number | undefined, early?: number): string {
    const id = (action as { toolCallId?: unknown }).toolCallId;
    if (typeof id === "string" && id !== "") {
      // An id an earlier call of the turn has too (some providers repeat one): `<id>#<index>`, as its key.
      const turn = this.state.turn;
      return index !== undefined && turn !== undefined && repeatsEarlierId(turn.actions, id, index) ? `${id}#${index}` : id;
    }
    const iteration = this.state.turn?.iteration ?? this.iteration;
    return index === undefined && early !== undefined ? `${iteration}:early-${early}` : `${iteration}:${index ?? 0}`;
  }

  idempotencyKey(action: AgentAction, index: number | undefined, early?: number): string {
    const { runId, turn } = this.state;
    if (index !== undefined) {
      // (A call started early has the key it started with: see `ToolRunner.idempotencyKey`.)
      // A turn restored from its record: the key recorded with the action; none recorded (an older
      // release's record): the key that release gave it, `<runId>:<toolCallId>`.
      const recorded = turn?.keys;
      if (recorded !== undefined) return recorded[index] ?? `${runId}:${this.callId(action, index)}`;
    }
    // `<runId>:<iteration>:<toolCallId>` (providers number ids per response: the turn tells them
    // apart), else `<runId>:<iteration>:<index>` (what `idempotencyKeyOf` gives).
    const iteration = turn?.iteration ?? this.iteration;
    const id = (action as { toolCallId?: unknown }).toolCallId;
    if (typeof id === "string" && id !== "") {
      // An id the turn gave an earlier call too (some providers repeat one in a response): this
      // call is told apart by its place in the turn, `<runId>:<iteration>:<toolCallId>#<index>`
      // (the turn's actions are recorded: a resume makes the same key).
      if (index !== undefined && turn !== undefined && repeatsEarlierId(turn.actions, id, index)) return `${runId}:${iteration}:${id}#${index}`;
      return `${runId}:${iteration}:${id}`;
    }
    // An early call without an id: numbered apart from the turn's positions (and from each other).
    if (index === undefined && early !== undefined) return `${runId}:${iteration}:early-${early}`;
    return idempotencyKeyOf(runId, iteration, index ?? 0);
  }

  /** A tool call of the turn finished (the loop records it). */
  toolFinished(index: number, step: AgentStep, durationMs: number, metadata: StepMetadata | undefined): void {
    this.loop.toolFinished(index, step, durationMs, metadata);
  }

  /**
   * Awaits `promise` unless the run is cancelled or (when `halts`) halted first: then rejects at
   * once, without waiting for work that ignores its signal.
   */
  wait<T>(promise: Promise<T>, halts: boolean): Promise<T> {
    const phase = this.state.phase;
    const stopped = phase === "cancelled" || phase === "failed" || (halts && this.state.stopReason !== undefined);
    return this.waiter.wait(promise, halts, stopped, this.aborts.signal.reason);
  }

  /**
   * `wait(promise, true)` for the loop's agent and tool calls (its hot path). When nothing can halt
   * the run while it waits (no `maxExecutionTime`, stop condition or middleware), `promise` itself,
   * without a promise around it: a cancellation or a failure still ends the run at once (its
   * subscriber hears of it, its calls' signal aborts, its record is closed), and the loop, which
   * checks `interrupted` once the call settles, then stops.
   */
  waitCall<T>(promise: Promise<T>): Promise<T> {
    if (this.options.maxExecutionTime === undefined && this.conditions === undefined && this.middleware === undefined && !this.interrupted) return promise;
    return this.wait(promise, true);
  }

  /**
   * `promise` under the call's `timeout` (the caller's config), when one is given: past it the run
   * fails with a `CallTimeoutError` (which aborts the call's signal). The executor keeps the time
   * itself rather than pass `timeout` on: `@langchain/core` would join an `AbortSignal.timeout` to
   * the call's signal with `AbortSignal.any`, whose timeout Node 20 can collect before it fires.
   */
  timed<T>(promise: Promise<T>, call: "agent" | "tool", tool?: string): Promise<T> {
    const timeoutMs = this.config.timeout;
    if (timeoutMs === undefined) return promise;
    const timer = setTimeout(() => {
      if (!isEnded(this.state)) this.fail(new CallTimeoutError({ runId: this.state.runId, call, ...(tool === undefined ? {} : { tool }), timeoutMs }));
    }, timeoutMs);
    return promise.finally(() => clearTimeout(timer));
  }

  /** Stops the loop gracefully: in-flight work is aborted and early stopping produces the output. */
  halt(reason: StopReason, stoppedBy?: unknown): void {
    if (isEnded(this.state) || this.state.stopReason !== undefined) return;
    this.dispatch(stoppedBy === undefined ? { type: "halted", reason } : { type: "halted", reason, stoppedBy });
    const error = new AbortError({ message: `The run was stopped (${reason}).` });
    this.aborts.halt(error);
    this.waiter.rejectHalting(error);
  }

  private async begin(): Promise<void> {
    const { streamTokens } = this.request;
    const config = this.config;
    const memory = this.options.memory;
    // Halted (a time limit, a budget) while the thread's history was read: the run ends without it.
    let historyMissing = false;
    if (memory && this.state.threadId !== undefined && !this.request.resumed && !(memory.historyKey in this.state.inputs)) {
      // The thread's history is part of the run's inputs (recorded with them: a resume sees the same).
      const history = await this.readHistory(memory, this.state.threadId);
      if (history !== undefined) this.dispatch({ type: "inputAdded", key: memory.historyKey, value: history });
      else historyMissing = true;
    }
    const { inputs, runId } = this.state;
    if (this.options.prices !== undefined) this.price = await this.wait(Promise.resolve(this.options.prices.forRun()), false);
    if (this.request.record) {
      const recorder = await this.request.record(this);
      this.recorder = recorder;
      // `recordModelCalls: false` keeps model calls out of the record, however they are watched.
      if (this.options.recordModelCalls) {
        const prompts = this.request.recordPrompts ? new PromptRecorder() : undefined;
        this.onModelCall = (input, message, startedAt, start) => recorder.recordModelCall(input, message, startedAt, this.iteration, prompts?.record(input, start));
      }
    }
    const parent = this.parentModelCalls;
    if (parent !== undefined) {
      // A sub-run: its model calls go up to the caller's record (and into its own, as they would without).
      const own = this.options.recordModelCalls ? this.onModelCall : undefined;
      let call = 0;
      this.onModelCall = (input, message, startedAt, start) => {
        own?.(input, message, startedAt, start);
        parent({ subRun: [], subRunCallIds: [], call: call++, iteration: this.iteration, input, message, startedAt });
      };
    }
    const recorder = this.recorder;
    if (recorder !== undefined) {
      if (isEnded(this.state)) {
        // Cancelled while the record was being opened: the record says so.
        void this.ending.endRecording({ status: this.state.phase === "failed" ? "failed" : "cancelled", error: "The run ended before it started." });
        return;
      }
      recorder.startHeartbeat();
    }
    if (isEnded(this.state)) return; // a stop condition failed on subscription, or the run was cancelled
    this.steering = RunSteering.open(runId, recorder?.store, lastInboxSeq(this.state.steps), this.options.storeTimeoutMs, recorder && ((after) => recorder.closeInbox(after)));
    const event: AgentStreamEvent = { type: "start", runId, inputs, resumed: this.request.resumed, at: Date.now() };
    if (this.state.threadId !== undefined) event.threadId = this.state.threadId;
    if (this.request.forkOf !== undefined) event.forkOf = this.request.forkOf;
    this.emit(event);
    if (this.request.newDecisions) this.recorder?.recordDecisions(this.request.newDecisions);
    if (this.request.telemetry) await this.request.telemetry.begin(inputs);
    if (isEnded(this.state)) return;
    const chainStart = startChainRun(config, inputs, this.request.resumed ? undefined : runId);
    if (chainStart) {
      this.chainRun = await chainStart;
      if (isEnded(this.state)) return;
    }
    if (historyMissing) return this.stopWithoutHistory();
    // Watching the model through callbacks costs @langchain/core a run tree per runnable: only
    // when someone looks and the agent does not report its model calls itself.
    const eager = this.options.eager !== undefined;
    if (eager) {
      this.onToolCallComplete = (modelRun, call) => this.tools.startStreamed(modelRun, call);
      this.onModelError = (modelRun) => this.tools.dropModelCall(modelRun);
    }
    // With eager dispatch the model streams (for its tool-call chunks) even when nobody wants tokens.
    const forwarder = this.request.watchModel || eager ? new TokenForwarder(this, streamTokens || eager) : undefined;
    const configs = callConfigs(config, this.chainRun, forwarder, this.aborts.signal, this.subRunSink);
    // Each model call's usage comes from the forwarder when there is one (it reports every call),
    // else from the observer when calls are priced or counted by stop conditions, else from the
    // agent's output (the loop adds it): never from two of them.
    const usage = forwarder === undefined && this.request.observeUsage === true;
    this.usageFromOutput = forwarder === undefined && !usage;
    // The agent reports its model calls to an observer (it strips it from what its own steps see,
    // so models called inside tools never report here): for their usage and the record when no
    // callbacks watch the model, and for the run's spans.
    const record = forwarder === undefined && (this.options.recordModelCalls || this.parentModelCalls !== undefined) ? this.onModelCall : undefined;
    const telemetry = this.request.telemetry;
    if (usage || record !== undefined || telemetry !== undefined) {
      const observer: ModelCallObserver = (call) => {
        // Usage first, as the forwarder reports it: a budget sees it before the call is recorded.
        if (usage) this.onObservedUsage(call);
        if (record !== undefined && call.output !== undefined) record(call.input, call.output, call.startedAt, undefined);
        // With the time of the streamed reply's first chunk: the agent's own for its call, else
        // the one the forwarder saw when the step's chunks could only be this call's.
        telemetry?.modelCall(call, call.firstChunkAt ?? forwarder?.firstChunkAt);
      };
      // The key first, then set again (it wins): a key added after a spread costs V8 a slow path.
      const configurable: Record<string, unknown> = { [MODEL_CALL_OBSERVER_KEY]: observer, ...configs.agent.configurable };
      configurable[MODEL_CALL_OBSERVER_KEY] = observer;
      configs.agent.configurable = configurable;
    }
    this.tools.configure(configs.tools);
    // Returned, not awaited: this frame (and what it holds) is not kept alive for the whole run.
    return this.loop.execute(configs.agent);
  }

  /**
   * The thread's history (`getMessages`, checked), read under the run's limits: a halt (a time
   * limit, a budget) while it is read ends the wait at once, and the run goes on without it
   * (undefined). A run halted before it began (`maxExecutionTime: 0`) reads it for its "generate"
   * call, which is made after a halt: only a cancellation ends that read, as it ends the call.
   */
  private async readHistory(memory: ResolvedMemory, threadId: string): Promise<unknown[] | undefined> {
    const halts = this.state.stopReason === undefined;
    let history: unknown;
    try {
      // (A memory written without `async` returns the messages themselves.)
      history = await this.wait(Promise.resolve(memory.memory.getMessages(threadId)), halts);
    } catch (error) {
      if (halts && this.state.phase === "stopping") return undefined;
      throw error;
    }
    return checkedHistory(history, threadId);
  }

  /**
   * Ends a run halted while it read its thread's history, before its first agent call: with the
   * "force" output whatever `earlyStoppingMethod` says (a "generate" call would answer without the
   * history it was to see). Messages sent to the run meanwhile join as unanswered, as they do in
   * the loop's forced stop (docs/steering.md).
   */
  private async stopWithoutHistory(): Promise<void> {
    const steering = this.steering;
    while (steering !== undefined && !(await this.wait(steering.closeInbox(), false))) {
      await joinMessages(this, { unanswered: true, halts: false });
      if (isEnded(this.state)) return;
    }
    if (isEnded(this.state)) return;
    const reason = this.state.stopReason as StopReason;
    return this.complete(forced(this.options.earlyStopOutput(reason, this.state.stoppedBy)), reason);
  }

  /** Aborts everything in flight and stops the timer, the signal watch and the stop conditions. */
  abortAll(error: unknown): void {
    this.aborts.abortAll(error);
    this.waiter.rejectAll(error);
    this.cleanup();
  }

  /** Fails the run: aborts everything in flight, starts nothing more and errors the observable. */
  fail(error: unknown): void {
    this.ending.fail(error);
  }

  /**
   * What a recorder needs of this run: its checkpoint, where a store failure goes, and the agent
   * calls its record counts already (made when the record opens, before any agent call: a resumed
   * run's or a fork's restored count, 0 for a new run).
   */
  recorderHooks(): RecorderHooks {
    return {
      iteration: this.state.iteration,
      // The iterations the record counts (the recorder's), not the live count: a call under way
      // (cut off, should the run be cancelled or its process die now) is not counted, as a resume
      // does not count it (docs/runs.md, Resume).
      checkpoint: (iteration) => {
        const checkpoint: RunCheckpoint = {
          schemaVersion: this.state.schemaVersion,
          iteration,
          elapsedMs: this.state.elapsedMs + (Date.now() - this.startedAt),
          ...(this.state.usage === undefined ? {} : { usage: this.state.usage }),
          phase: this.state.phase,
        };
        // The traceparent of the run's last traced segment (this one's, when traced): the next traced segment links to it (docs/telemetry.md).
        const traceparent = this.request.trace?.traceparent();
        if (traceparent !== undefined) checkpoint.traceparent = traceparent;
        return checkpoint;
      },
      onFailure: (error) => this.fail(error),
      onWritten: (result) => this.steering?.noteInbox(result.inboxSeq),
    };
  }

  cleanup(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.unwatchSignal?.();
    this.unwatchSignal = undefined;
    this.conditions?.close();
    this.steering?.close();
  }
}

/** The sink a run hands its tool calls for their sub-runs' events: one small object per run, no closures. */
class SubRunPort implements SubRunSink {
  constructor(private readonly run: ExecutorRun) {}

  emit(event: AgentStreamEvent): void {
    this.run.subRunEvent(event);
  }

  conversation(): { inputs: Record<string, unknown>; steps: readonly AgentStep[] } {
    return this.run.subRunConversation();
  }

  modelCalls(): SubRunModelCalls | undefined {
    return this.run.subRunModelCalls();
  }

  countUsage(event: UsageEvent): void {
    this.run.subRunUsage(event);
  }
}

function noop(): void {}

/** The message of the `AbortError` of a run whose subscriber unsubscribed. */
const UNSUBSCRIBED = "The run was cancelled: its subscriber unsubscribed.";

/** Whether an action before `index` in `actions` has the tool-call id `id`. */
function repeatsEarlierId(actions: readonly AgentAction[], id: string, index: number): boolean {
  for (let i = 0; i < index && i < actions.length; i++) if ((actions[i] as { toolCallId?: unknown }).toolCallId === id) return true;
  return false;
}

const RESOLVED = Promise.resolve();

/** The fresh decisions of a run that brought none (most runs): one set for all. */
const NO_DECISIONS: ReadonlySet<string> = new Set();
