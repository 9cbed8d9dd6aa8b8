import { AbortError, EARLY_STOP_OUTPUT, isAgentAction, isAgentFinish } from "@agentrx/core";
import type { AgentAction, AgentFinish, AgentOutput, AgentStep } from "@agentrx/core";
import { CallbackManager, type CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import type { SerializedNotImplemented } from "@langchain/core/load/serializable";
import type { UsageMetadata } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Subject, type Subscriber, Subscription } from "rxjs";
import type { AgentStreamEvent, StopReason } from "./events";
import { InvalidAgentOutputError } from "./invalid-agent-output-error";
import { isOutputParserException, parsingErrorStep } from "./observations";
import { actionEvent, forced, outputEvent, passOn, toActions, toOutputString } from "./run-helpers";
import type { StopCondition } from "./stop-condition";
import { TokenForwarder, type TokenSink } from "./token-forwarder";
import { ToolRunner } from "./tool-runner";
import type { ResolvedOptions } from "./validate-options";

const SERIALIZED_EXECUTOR: SerializedNotImplemented = { lc: 1, type: "not_implemented", id: ["agentrx", "executors", "AgentExecutor"] };

/** What one subscription needs to run. @internal */
export interface RunRequest {
  inputs: Record<string, unknown>;
  config: RunnableConfig;
  conditions: readonly StopCondition[];
  /** Forward model tokens (`stream()`), or only usage (`invoke` with stop conditions). */
  streamTokens: boolean;
  /** Whether anyone needs token/usage events at all. */
  observeModel: boolean;
}

/**
 * One run of the executor: the state of a single subscription. `execute` is the loop of SPEC §4.1;
 * everything else is its lifecycle (limits, stop conditions, cancellation, callbacks).
 *
 * `work` aborts the loop's calls on cancellation (unsubscribe, `config.signal`, failure) and when a
 * limit or stop condition halts the loop; the "generate" call after a halt runs under its own
 * controller, which only cancellation aborts.
 *
 * @internal
 */
export class ExecutorRun implements TokenSink {
  /** Aborts the agent and tool calls of the loop: on cancellation, a limit or a stop condition. */
  readonly work = new AbortController();
  /** Aborts the one "generate" call after a halt: only on cancellation. Created when needed. */
  private final: AbortController | undefined;
  /** Set once the loop must stop (a limit or a stop condition); the output then comes from early stopping. */
  stopReason: StopReason | undefined;
  /** The run was cancelled or failed: nothing more may start or be emitted. */
  cancelled = false;
  /** The 0-based index of the agent call in progress (for token and usage events). */
  iteration = 0;
  /** What the stop condition that ended the run emitted (with stopReason "budget"). */
  private stoppedBy: unknown;

  private done = false;
  private rejectWait: ((reason: unknown) => void) | undefined;
  private waitHalts = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private conditionSubscription: Subscription | undefined;
  private conditionInput: Subject<AgentStreamEvent> | undefined;
  private chainRun: CallbackManagerForChainRun | undefined;
  private agentConfig!: RunnableConfig;
  private readonly tools: ToolRunner;
  private onConfigAbort: (() => void) | undefined;

  constructor(
    readonly options: ResolvedOptions,
    private readonly request: RunRequest,
    private readonly subscriber: Subscriber<AgentStreamEvent>,
  ) {
    this.tools = new ToolRunner(this);
  }

  /** Starts the run; returns the teardown for the subscription. */
  start(): () => void {
    const { config, conditions } = this.request;
    const signal = config.signal;
    if (signal?.aborted) {
      this.done = true;
      this.subscriber.error(new AbortError({ reason: signal.reason }));
      return noop;
    }
    if (signal) {
      this.onConfigAbort = () => this.cancel(new AbortError({ reason: signal.reason }), true);
      signal.addEventListener("abort", this.onConfigAbort);
    }
    const { maxExecutionTime } = this.options;
    if (maxExecutionTime === 0) this.stopReason = "max_execution_time";
    else if (maxExecutionTime !== undefined) this.timer = setTimeout(() => this.halt("max_execution_time"), maxExecutionTime);
    if (conditions.length > 0) this.watch(conditions);
    this.begin().then(noop, (error: unknown) => this.fail(error));
    return () => {
      if (!this.done) this.cancel(new AbortError({ message: "The run was cancelled: its subscriber unsubscribed." }), false);
    };
  }

  /**
   * Whether anyone sees `action`/`step`/`token`/`usage` events: `stream()` subscribers or stop
   * conditions. `invoke` without conditions sees only the output, so the loop skips building them.
   */
  get observed(): boolean {
    return this.request.observeModel;
  }

  /** Emits an event to the subscriber and to the stop conditions. */
  emit(event: AgentStreamEvent): void {
    this.subscriber.next(event);
    this.conditionInput?.next(event);
  }

  onToken(text: string): void {
    if (!this.done) this.emit({ type: "token", iteration: this.iteration, text });
  }

  onUsage(usage: UsageMetadata): void {
    if (!this.done) this.emit({ type: "usage", iteration: this.iteration, usage });
  }

  /**
   * Awaits `promise` unless the run is cancelled or (when `halts`) halted first: then rejects at
   * once, without waiting for work that ignores its signal.
   */
  wait<T>(promise: Promise<T>, halts: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.cancelled || (halts && this.stopReason !== undefined)) {
        promise.catch(noop);
        reject(this.work.signal.reason);
        return;
      }
      this.rejectWait = reject;
      this.waitHalts = halts;
      promise.then(resolve, reject);
    });
  }

  /** Whether the loop must not start or record anything more. */
  get interrupted(): boolean {
    return this.cancelled || this.stopReason !== undefined;
  }

  /** Stops the loop gracefully: in-flight work is aborted and early stopping produces the output. */
  halt(reason: "max_execution_time" | "budget"): void {
    if (this.done || this.stopReason !== undefined) return;
    this.stopReason = reason;
    const error = new AbortError({ message: `The run was stopped (${reason}).` });
    this.work.abort(error);
    if (this.waitHalts) this.rejectWait?.(error);
  }

  private async begin(): Promise<void> {
    if (this.done) return; // a stop condition failed on subscription
    const { config, streamTokens, observeModel, inputs } = this.request;
    const manager = CallbackManager.configure(config.callbacks, undefined, config.tags, undefined, config.metadata);
    if (manager) {
      this.chainRun = await manager.handleChainStart(
        SERIALIZED_EXECUTOR,
        inputs,
        config.runId,
        undefined,
        undefined,
        undefined,
        config.runName ?? "AgentExecutor",
      );
      if (this.done) return;
    }
    const forwarder = observeModel ? new TokenForwarder(this, streamTokens) : undefined;
    let agentCallbacks: RunnableConfig["callbacks"];
    if (this.chainRun) {
      const child = this.chainRun.getChild();
      if (forwarder) child.addHandler(forwarder, true);
      agentCallbacks = child;
    } else if (forwarder) {
      agentCallbacks = [forwarder];
    }
    this.agentConfig = passOn(config, agentCallbacks, this.work.signal);
    this.tools.configure(passOn(config, this.chainRun?.getChild(), this.work.signal));
    await this.execute();
  }

  /** The loop (SPEC §4.1). */
  private async execute(): Promise<void> {
    const { options } = this;
    const { agent, maxIterations, trim } = options;
    const { inputs } = this.request;
    let steps: AgentStep[] = [];
    let iteration = 0;
    for (;;) {
      if (this.interrupted) break;
      if (iteration >= maxIterations) {
        this.stopReason = "max_iterations";
        break;
      }
      this.iteration = iteration;
      let output: AgentOutput;
      try {
        output = await this.wait(agent.invoke({ ...inputs, steps: trim ? trim(steps) : steps }, this.agentConfig), true);
      } catch (error) {
        // A call cut short still counts: the "generate" call after it gets the next iteration.
        if (this.interrupted) {
          iteration++;
          break;
        }
        if (!isOutputParserException(error)) throw error;
        const step = parsingErrorStep(options, error);
        steps = [...steps, step];
        if (this.observed) this.emit(this.tools.stepEvent(step, iteration, 0));
        iteration++;
        continue;
      }
      if (this.interrupted) {
        iteration++;
        break;
      }
      if (isAgentFinish(output)) return this.complete(output, steps, "finish");
      const actions = toActions(output, iteration);
      if (this.observed) {
        for (const action of actions) this.emit(actionEvent(action, iteration));
      }
      iteration++;
      if (this.interrupted) break;
      let done: AgentStep[];
      try {
        done = await this.wait(this.tools.runAll(actions, iteration - 1), true);
      } catch (error) {
        if (this.cancelled) return;
        if (this.stopReason === undefined) throw error;
        steps = steps.concat(this.tools.completed());
        break;
      }
      steps = steps.concat(done);
      if (actions.length === 1 && this.tools.returnsDirect(actions[0] as AgentAction)) {
        const observation = (done[0] as AgentStep).observation;
        return this.complete({ returnValues: { output: observation }, log: observation }, steps, "return_direct");
      }
    }
    if (this.cancelled) return;
    return this.earlyStop(steps, iteration);
  }

  /** Ends a run cut short by a limit or stop condition (SPEC §4.3). */
  private async earlyStop(steps: AgentStep[], iteration: number): Promise<void> {
    const reason = this.stopReason as StopReason;
    if (this.options.earlyStoppingMethod === "force") return this.complete(forced(EARLY_STOP_OUTPUT), steps, reason);
    this.iteration = iteration;
    this.final = new AbortController();
    const config = { ...this.agentConfig, signal: this.final.signal };
    let output: AgentOutput;
    try {
      output = await this.wait(this.options.agent.invoke({ ...this.request.inputs, steps, forceFinalAnswer: true }, config), false);
    } catch (error) {
      if (this.cancelled) return;
      if (!isOutputParserException(error)) throw error;
      return this.complete(forced(error.llmOutput || EARLY_STOP_OUTPUT), steps, reason);
    }
    if (this.cancelled) return;
    if (isAgentFinish(output)) return this.complete(output, steps, reason);
    const first = (Array.isArray(output) ? output[0] : output) as AgentAction | undefined;
    if (first === undefined || !isAgentAction(first)) throw new InvalidAgentOutputError({ output, iteration });
    return this.complete(forced(first.log || EARLY_STOP_OUTPUT), steps, reason);
  }

  private async complete(finish: AgentFinish, steps: AgentStep[], stopReason: StopReason): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.cleanup();
    const output = toOutputString(finish.returnValues["output"]);
    const event = outputEvent(finish, output, stopReason);
    if (this.options.returnIntermediateSteps) event.intermediateSteps = steps;
    if (stopReason === "budget") event.stoppedBy = this.stoppedBy;
    if (this.chainRun) {
      try {
        await this.chainRun.handleChainEnd({ ...event.returnValues, stopReason });
      } catch (error) {
        // A handler with `raiseError` refused the run's end: the run fails with its error.
        this.subscriber.error(error);
        return;
      }
    }
    if (this.subscriber.closed) return;
    this.subscriber.next(event);
    this.subscriber.complete();
  }

  /** Fails the run: aborts everything in flight, starts nothing more and errors the observable. */
  fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.cancelled = true;
    this.work.abort(error);
    this.final?.abort(error);
    this.rejectWait?.(error);
    this.cleanup();
    const chainRun = this.chainRun;
    if (chainRun) {
      chainRun.handleChainError(error).then(
        () => this.subscriber.error(error),
        () => this.subscriber.error(error),
      );
    } else {
      this.subscriber.error(error);
    }
  }

  private cancel(error: AbortError, notify: boolean): void {
    if (this.done) return;
    this.cancelled = true;
    this.done = true;
    this.work.abort(error);
    this.final?.abort(error);
    this.rejectWait?.(error);
    this.cleanup();
    this.chainRun?.handleChainError(error).catch(noop);
    if (notify) this.subscriber.error(error);
  }

  private watch(conditions: readonly StopCondition[]): void {
    const input = new Subject<AgentStreamEvent>();
    const subscription = new Subscription();
    this.conditionInput = input;
    this.conditionSubscription = subscription;
    const observer = {
      next: (value: unknown) => {
        if (!this.done && this.stopReason === undefined) this.stoppedBy = value;
        this.halt("budget");
      },
      error: (error: unknown) => this.fail(error),
    };
    for (const condition of conditions) {
      try {
        subscription.add(condition(input.asObservable()).subscribe(observer));
      } catch (error) {
        this.fail(error);
        return;
      }
    }
  }

  private cleanup(): void {
    this.rejectWait = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.onConfigAbort) this.request.config.signal?.removeEventListener("abort", this.onConfigAbort);
    this.conditionInput = undefined;
    this.conditionSubscription?.unsubscribe();
  }
}

function noop(): void {}

