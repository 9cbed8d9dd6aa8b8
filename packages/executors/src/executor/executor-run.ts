import { AbortError, getOutputUsage, isAgentAction, isAgentFinish } from "@agentrx/core";
import type { AgentAction, AgentFinish, AgentOutput, AgentStep, StepMetadata } from "@agentrx/core";
import { CallbackManager, type CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import type { SerializedNotImplemented } from "@langchain/core/load/serializable";
import type { UsageMetadata } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Subscriber } from "rxjs";
import type { RecorderHooks, RunRecorder } from "../runs/run-recorder";
import { ApprovalGate } from "./approval-gate";
import { runMessages } from "./conversation-memory";
import { EagerDispatch } from "./eager-dispatch";
import { OutputValidationError } from "./output-validation-error";
import { checkFinalAnswer, finalAnswerCall, invalidAnswerStep } from "./structured-output";
import type { AgentStreamEvent, Decision, InterruptEvent, StopReason } from "./events";
import { InvalidAgentOutputError } from "./invalid-agent-output-error";
import { isOutputParserException, parsingErrorStep } from "./observations";
import { actionEvent, forced, outputEvent, passOn, stepEvent, toActions, toOutputString } from "./run-helpers";
import { type RunState, type RunTransition, isEnded, pendingActions, transition } from "./run-state";
import type { StopCondition } from "./stop-condition";
import { StopConditionWatcher } from "./stop-condition-watcher";
import { RunWaiter } from "./run-waiter";
import { SUB_RUN_KEY, type SubRunSink } from "./sub-run";
import { onAbort } from "./shared-abort-listener";
import { TokenForwarder, type TokenSink } from "./token-forwarder";
import { type EarlyCall, type ToolRunContext, ToolRunner } from "./tool-runner";
import type { ResolvedOptions } from "./validate-options";

const SERIALIZED_EXECUTOR: SerializedNotImplemented = { lc: 1, type: "not_implemented", id: ["agentrx", "executors", "AgentExecutor"] };

/** What one subscription needs to run. @internal */
export interface RunRequest {
  /** The run's state: fresh for a new run, restored from the record for a resumed one. */
  state: RunState;
  config: RunnableConfig;
  conditions: readonly StopCondition[];
  /** Forward model tokens (`stream()`), or only usage (`invoke`). */
  streamTokens: boolean;
  /** Whether anyone needs action/step/token/usage events (a stream, stop conditions, a recorder). */
  observeModel: boolean;
  /** Whether to watch the agent's model through callbacks (tokens, usage, recorded model calls). */
  watchModel: boolean;
  /** Opens the run's record (creates or claims it); absent when the run is not recorded. */
  record?: (run: ExecutorRun) => Promise<RunRecorder>;
  /** Whether this run continues a recorded one. */
  resumed: boolean;
  /** Checked decisions on the interrupts the resumed run waits for (recorded ones included). */
  decisions?: Record<string, Decision>;
  /** Decisions given to this resume (recorded as the segment starts). */
  newDecisions?: Record<string, Decision>;
}

/**
 * One run of the executor: one subscription. Its state is a {@link RunState} that only `dispatch`
 * changes; `execute` is the loop (see docs/executor-options.md), everything else is lifecycle:
 * limits, stop conditions, cancellation, callbacks and recording.
 *
 * `work` aborts the loop's calls on cancellation (unsubscribe, `config.signal`, failure) and when a
 * limit or stop condition halts the loop; the "generate" call after a halt runs under its own
 * controller, which only cancellation aborts.
 *
 * @internal
 */
export class ExecutorRun implements TokenSink, ToolRunContext {
  /** Aborts the agent and tool calls of the loop: on cancellation, a limit or a stop condition. */
  readonly work = new AbortController();
  /** Aborts the one "generate" call after a halt: only on cancellation. Created when needed. */
  private final: AbortController | undefined;
  /** The run's state; changed only through `dispatch`. */
  readonly state: RunState;
  /** What the stop condition that ended the run emitted (with stopReason "budget"). */
  private stoppedBy: unknown;
  /** Why the "generate" call failed, when it did. */
  private generateError: string | undefined;
  private readonly waiter = new RunWaiter();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private conditions: StopConditionWatcher | undefined;
  private chainRun: CallbackManagerForChainRun | undefined;
  private agentConfig!: RunnableConfig;
  private readonly tools: ToolRunner;
  /** Stops watching the caller's `config.signal`. */
  private unwatchSignal: (() => void) | undefined;
  private recorder: RunRecorder | undefined;
  private readonly startedAt = Date.now();
  /** Tool calls started while the model streams (`eagerTools`). */
  private readonly eager: EagerDispatch;
  /** Approval checks, pauses and the decisions of a resume. */
  private readonly approvals: ApprovalGate;
  onModelCall: TokenSink["onModelCall"];
  onToolCallComplete: TokenSink["onToolCallComplete"];
  onModelError: TokenSink["onModelError"];

  constructor(
    readonly options: ResolvedOptions,
    private readonly request: RunRequest,
    private readonly subscriber: Subscriber<AgentStreamEvent>,
  ) {
    this.state = request.state;
    this.tools = new ToolRunner(this);
    // Each collaborator gets only what it needs of the run (callbacks made here, once per run).
    const run = this;
    this.eager = new EagerDispatch({
      options,
      signal: this.work.signal,
      get interrupted() { return run.interrupted; },
      startCall: (action, signal) => this.tools.startEarly(action, signal),
    });
    this.approvals = new ApprovalGate({
      state: this.state,
      approval: options.approval,
      decisions: request.decisions,
      dispatch: (event) => this.dispatch(event),
      wait: (promise, halts) => this.wait(promise, halts),
      toolFinished: (index, step, durationMs, metadata) => this.toolFinished(index, step, durationMs, metadata),
      complete: (finish, stopReason, interrupt) => this.complete(finish, stopReason, interrupt),
    });
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
      this.unwatchSignal = onAbort(signal, () => this.cancel(new AbortError({ reason: signal.reason }), true));
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
          if (!isEnded(this.state) && this.state.stopReason === undefined) this.stoppedBy = value;
          this.halt("budget");
        },
        (error) => this.fail(error),
      );
    }
    this.begin().then(noop, (error: unknown) => this.fail(error));
    return () => {
      if (!isEnded(this.state)) this.cancel(new AbortError({ message: "The run was cancelled: its subscriber unsubscribed." }), false);
    };
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

  /** The signal the loop's agent and tool calls listen on. */
  get signal(): AbortSignal {
    return this.work.signal;
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
    this.conditions?.next(event);
    this.recorder?.record(event, index);
  }

  onToken(text: string): void {
    if (!isEnded(this.state) && this.request.streamTokens) this.emit({ type: "token", iteration: this.iteration, text, at: Date.now() });
  }

  onUsage(usage: UsageMetadata): void {
    if (isEnded(this.state)) return;
    this.dispatch({ type: "usageReported", usage });
    if (this.observed) this.emit({ type: "usage", iteration: this.iteration, usage, at: Date.now() });
  }

  /** Receives the events of sub-runs (executors called as tools by this run). */
  private readonly subRunSink: SubRunSink = {
    emit: (event) => {
      if (isEnded(this.state)) return;
      // A sub-run's model calls count toward this run's usage (its own sub-runs' too: they come through it).
      if (event.type === "usage") this.dispatch({ type: "usageReported", usage: event.usage });
      if (!this.observed) return;
      this.subscriber.next(event);
      this.conditions?.next(event);
    },
  };

  earlyCall(index: number): EarlyCall | undefined {
    return this.eager.call(index);
  }

  /** Counts the usage an agent's parser attached to its output (when the model is not watched). */
  private addOutputUsage(output: AgentOutput): void {
    const usage = getOutputUsage(output);
    if (usage !== undefined) this.onUsage(usage);
  }

  toolFinished(index: number, step: AgentStep, durationMs: number, metadata: StepMetadata | undefined): void {
    const iteration = this.state.turn?.iteration ?? this.iteration;
    this.dispatch({ type: "toolFinished", index, step });
    if (this.observed) {
      const event = stepEvent(step, iteration, durationMs);
      if (metadata !== undefined && hasKeys(metadata)) event.metadata = metadata;
      this.emit(event, index);
    }
    this.recorder?.schedule();
  }

  /**
   * Awaits `promise` unless the run is cancelled or (when `halts`) halted first: then rejects at
   * once, without waiting for work that ignores its signal.
   */
  wait<T>(promise: Promise<T>, halts: boolean): Promise<T> {
    const phase = this.state.phase;
    const stopped = phase === "cancelled" || phase === "failed" || (halts && this.state.stopReason !== undefined);
    return this.waiter.wait(promise, halts, stopped, this.work.signal.reason);
  }

  /** Stops the loop gracefully: in-flight work is aborted and early stopping produces the output. */
  halt(reason: "max_execution_time" | "budget"): void {
    if (isEnded(this.state) || this.state.stopReason !== undefined) return;
    this.dispatch({ type: "halted", reason });
    const error = new AbortError({ message: `The run was stopped (${reason}).` });
    this.work.abort(error);
    this.waiter.rejectHalting(error);
  }

  private async begin(): Promise<void> {
    const { config, streamTokens } = this.request;
    const memory = this.options.memory;
    if (memory && this.state.threadId !== undefined && !this.request.resumed && !(memory.historyKey in this.state.inputs)) {
      // The thread's history is part of the run's inputs (recorded with them: a resume sees the same).
      const history = await this.wait(memory.memory.getMessages(this.state.threadId), false);
      this.dispatch({ type: "inputAdded", key: memory.historyKey, value: history });
    }
    const { inputs, runId } = this.state;
    if (this.request.record) {
      const recorder = await this.request.record(this);
      this.recorder = recorder;
      this.onModelCall = (input, message, startedAt) => recorder.recordModelCall(input, message, startedAt, this.iteration);
      if (isEnded(this.state)) {
        // Cancelled while the record was being opened: the record says so.
        this.endRecording({ status: this.state.phase === "failed" ? "failed" : "cancelled", error: "The run ended before it started." });
        return;
      }
      recorder.startHeartbeat();
    }
    if (isEnded(this.state)) return; // a stop condition failed on subscription, or the run was cancelled
    const event: AgentStreamEvent = { type: "start", runId, inputs, resumed: this.request.resumed, at: Date.now() };
    if (this.state.threadId !== undefined) event.threadId = this.state.threadId;
    this.emit(event);
    if (this.request.newDecisions) this.recorder?.recordDecisions(this.request.newDecisions);
    const manager = CallbackManager.configure(config.callbacks, undefined, config.tags, undefined, config.metadata);
    if (manager) {
      this.chainRun = await manager.handleChainStart(
        SERIALIZED_EXECUTOR,
        inputs,
        this.request.resumed ? undefined : runId,
        undefined,
        undefined,
        undefined,
        config.runName ?? "AgentExecutor",
      );
      if (isEnded(this.state)) return;
    }
    // Watching the model through callbacks costs @langchain/core a run tree per runnable: only
    // when someone looks. Otherwise usage comes from what the agent's parser attached to its output.
    const eager = this.options.eager !== undefined;
    if (eager) {
      this.onToolCallComplete = (modelRun, call) => this.eager.start(modelRun, call);
      this.onModelError = (modelRun) => this.eager.dropModelCall(modelRun);
    }
    // With eager dispatch the model streams (for its tool-call chunks) even when nobody wants tokens.
    const forwarder = this.request.watchModel || eager ? new TokenForwarder(this, streamTokens || eager) : undefined;
    let agentCallbacks: RunnableConfig["callbacks"];
    if (this.chainRun) {
      const child = this.chainRun.getChild();
      if (forwarder) child.addHandler(forwarder, true);
      agentCallbacks = child;
    } else if (forwarder) {
      agentCallbacks = [forwarder];
    }
    this.agentConfig = passOn(config, agentCallbacks, this.work.signal);
    const toolConfig = passOn(config, this.chainRun?.getChild(), this.work.signal);
    // Tools that are executors (`asTool`) send their sub-run's events here.
    toolConfig.configurable = { ...toolConfig.configurable, [SUB_RUN_KEY]: this.subRunSink };
    this.tools.configure(toolConfig);
    await this.execute();
  }

  /** The loop: call the agent, run the tools it asked for, feed the steps back, until it finishes. */
  private async execute(): Promise<void> {
    const { options, state } = this;
    const { agent, maxIterations, trim } = options;
    const { inputs } = state;
    if (state.turn !== undefined && !this.interrupted) {
      // A resumed run whose last turn has tool calls without a result: run those (and the ones a
      // person decided on), then go on.
      this.approvals.applyDecisions();
      const outcome = await this.runTurn(pendingActions(state));
      if (outcome !== "continue") return outcome === "stop" ? this.earlyStop() : undefined;
    }
    for (;;) {
      if (this.interrupted) break;
      if (state.iteration >= maxIterations) {
        this.dispatch({ type: "halted", reason: "max_iterations" });
        break;
      }
      // Checked before each agent call too, as LangChain does: work that never yields to the event
      // loop (synchronous tools) would otherwise outrun the timer.
      if (options.maxExecutionTime !== undefined && state.elapsedMs + (Date.now() - this.startedAt) >= options.maxExecutionTime) {
        this.halt("max_execution_time");
        break;
      }
      this.dispatch({ type: "agentCalled" });
      const iteration = state.iteration - 1;
      this.eager.resetTurn();
      let output: AgentOutput;
      try {
        output = await this.wait(agent.invoke({ ...inputs, steps: trim ? trim(state.steps) : state.steps }, this.agentConfig), true);
      } catch (error) {
        this.eager.dropAll(); // the model call's early tool calls are not the turn's
        // A call cut short still counts: the "generate" call after it gets the next iteration.
        if (this.interrupted) break;
        if (!isOutputParserException(error)) throw error;
        const step = parsingErrorStep(options, error);
        this.dispatch({ type: "parsingErrorHandled", step });
        if (this.observed) this.emit(stepEvent(step, iteration, 0));
        this.recorder?.schedule();
        continue;
      }
      if (this.interrupted) break;
      if (!this.request.watchModel) this.addOutputUsage(output);
      const answer = isAgentFinish(output) ? output : options.outputSchema ? finalAnswerCall(toActions(output, iteration)) : undefined;
      if (answer !== undefined) {
        if (!options.outputSchema) return this.complete(answer, "finish");
        if ((await this.finishTyped(answer, "finish", iteration)) === "done") return;
        continue; // the answer went back to the model
      }
      const actions = toActions(output, iteration);
      this.dispatch({ type: "turnStarted", actions });
      this.eager.matchTurn(actions);
      if (this.observed) {
        for (let i = 0; i < actions.length; i++) {
          const event = actionEvent(actions[i] as AgentAction, iteration);
          if (this.eager.call(i)) event.early = true;
          this.emit(event, i);
        }
      }
      if (this.interrupted) break; // a stop condition fired on an action event
      if (this.approvals.enabled) {
        let interrupts;
        try {
          interrupts = await this.approvals.interruptsOf(actions, iteration);
        } catch (error) {
          if (this.interrupted) break;
          throw error;
        }
        this.approvals.requested(interrupts);
      }
      // Written as the event loop turns: before any tool that waits on I/O or a timer has finished,
      // and at the latest with the first result, so a resume never asks the agent for this turn again.
      this.recorder?.schedule();
      const outcome = await this.runTurn(pendingActions(state));
      if (outcome === "stop") break;
      if (outcome === "done") return;
    }
    if (isEnded(this.state)) return;
    return this.earlyStop();
  }

  /**
   * Runs the tool calls at `indexes` of the current turn. `continue`: the turn ended, go on;
   * `stop`: a limit halted it; `done`: the run ended (a cancellation, or a tool that returns directly).
   */
  private async runTurn(indexes: number[]): Promise<"continue" | "stop" | "done"> {
    const turn = this.state.turn;
    if (turn === undefined) return "continue";
    if (indexes.length > 0) {
      try {
        await this.wait(this.tools.runAll(turn.actions, indexes), true);
      } catch (error) {
        if (isEnded(this.state)) return "done";
        if (this.state.stopReason === undefined) throw error;
        return "stop";
      }
    }
    if (this.interrupted) return isEnded(this.state) ? "done" : "stop";
    if (this.state.interrupts.length > 0) {
      await this.approvals.pause();
      return "done";
    }
    // A turn returns directly when every one of its calls is of a `returnDirect` tool (and no
    // person rejected one): one call's observation, or several joined by blank lines.
    if (!this.approvals.anyRejected && turn.actions.every((action) => this.tools.returnsDirect(action))) {
      const observation = turn.results.map((step) => (step as AgentStep).observation).join("\n\n");
      await this.complete({ returnValues: { output: observation }, log: observation }, "return_direct");
      return "done";
    }
    return "continue";
  }

  /**
   * Ends the run with a final answer that must fit `outputSchema`: validated, it becomes
   * `structuredOutput`; otherwise it goes back to the model as an observation while an iteration
   * is left (`retry`), else the run fails with an `OutputValidationError` naming the problem.
   */
  private async finishTyped(finish: AgentFinish, stopReason: StopReason, iteration: number | undefined): Promise<"done" | "retry"> {
    const checked = checkFinalAnswer(this.options.outputSchema as never, finish);
    if (checked.ok) {
      const output = finish.returnValues["output"];
      const text = typeof output === "string" && output !== "" ? output : checked.text;
      await this.complete({ ...finish, returnValues: { ...finish.returnValues, output: text, structuredOutput: checked.value } }, stopReason);
      return "done";
    }
    if (iteration === undefined || this.state.iteration >= this.options.maxIterations) {
      throw new OutputValidationError({ output: checked.given, issues: checked.issues });
    }
    const step = invalidAnswerStep(checked.issues, checked.given);
    this.dispatch({ type: "parsingErrorHandled", step });
    if (this.observed) this.emit(stepEvent(step, iteration, 0));
    this.recorder?.schedule();
    return "retry";
  }

  /** Ends a run cut short by a limit or stop condition: the "force" text, or one "generate" call. */
  private async earlyStop(): Promise<void> {
    const reason = this.state.stopReason as StopReason;
    const stopped = this.options.earlyStopOutput(reason, this.stoppedBy);
    if (this.options.earlyStoppingMethod === "force") return this.complete(forced(stopped), reason);
    this.dispatch({ type: "agentCalled" });
    this.final = new AbortController();
    const config = { ...this.agentConfig, signal: this.final.signal };
    let output: AgentOutput;
    try {
      output = await this.wait(this.options.agent.invoke({ ...this.state.inputs, steps: this.state.steps, forceFinalAnswer: true }, config), false);
    } catch (error) {
      if (isEnded(this.state)) return;
      if (isOutputParserException(error)) return this.complete(forced(error.llmOutput || stopped), reason);
      // The model failed on the one extra call: the run still ends with an answer that says so.
      this.generateError = errorMessage(error);
      return this.complete(forced(`${stopped} A final response could not be generated (${this.generateError}).`), reason);
    }
    if (isEnded(this.state)) return;
    if (!this.request.watchModel) this.addOutputUsage(output);
    const answer = isAgentFinish(output) ? output : this.options.outputSchema ? finalAnswerCall(Array.isArray(output) ? output : [output as AgentAction]) : undefined;
    if (answer !== undefined) {
      if (this.options.outputSchema) await this.finishTyped(answer, reason, undefined);
      else await this.complete(answer, reason);
      return;
    }
    const first = (Array.isArray(output) ? output[0] : output) as AgentAction | undefined;
    if (first === undefined || !isAgentAction(first)) throw new InvalidAgentOutputError({ output, iteration: this.iteration });
    return this.complete(forced(first.log || stopped), reason);
  }

  /** Ends the run with its output (after `interrupt`, for a pause), recorded before anyone sees it. */
  private async complete(finish: AgentFinish, stopReason: StopReason, interrupt?: InterruptEvent): Promise<void> {
    if (isEnded(this.state)) return;
    this.dispatch(interrupt ? { type: "paused", interrupts: interrupt.interrupts } : { type: "finished", stopReason });
    this.cleanup();
    const output = toOutputString(finish.returnValues["output"]);
    const event = outputEvent(this.state.runId, finish, output, stopReason);
    if (this.options.returnIntermediateSteps) event.intermediateSteps = stepsSoFar(this.state);
    if (stopReason === "budget") event.stoppedBy = this.stoppedBy;
    if (this.state.usage !== undefined) event.usage = this.state.usage;
    if (this.generateError !== undefined) event.generateError = this.generateError;
    if (finish.returnValues["structuredOutput"] !== undefined) event.structuredOutput = finish.returnValues["structuredOutput"];
    if (this.chainRun) {
      try {
        await this.chainRun.handleChainEnd({ ...event.returnValues, stopReason });
      } catch (error) {
        // A handler with `raiseError` refused the run's end: the run fails with its error.
        this.dispatch({ type: "failed" });
        this.endRecording({ status: "failed", error: errorMessage(error) });
        this.subscriber.error(error);
        return;
      }
    }
    const memory = this.options.memory;
    if (memory && !interrupt && this.state.threadId !== undefined) {
      // The thread remembers the run once it has an answer (not a pause: that waits for the end).
      try {
        const messages = runMessages(this.state.inputs, memory.inputKey, this.state.steps, output);
        await memory.memory.addMessages(this.state.threadId, messages, { runId: this.state.runId });
      } catch (error) {
        this.dispatch({ type: "failed" });
        this.endRecording({ status: "failed", error: `the conversation memory refused the run's messages: ${errorMessage(error)}` });
        if (!this.subscriber.closed) this.subscriber.error(error);
        return;
      }
    }
    if (this.recorder) {
      // The output (and a pause) is in the record before anyone sees it.
      if (interrupt) this.recorder.record(interrupt);
      this.recorder.record(event);
      try {
        await this.recorder.flush({ status: interrupt ? "interrupted" : "finished", stopReason, release: true });
      } catch (error) {
        this.dispatch({ type: "failed" });
        if (!this.subscriber.closed) this.subscriber.error(error);
        return;
      } finally {
        this.recorder.stop();
      }
    }
    if (this.subscriber.closed) return;
    if (interrupt) this.subscriber.next(interrupt);
    this.subscriber.next(event);
    this.subscriber.complete();
  }

  /** Fails the run: aborts everything in flight, starts nothing more and errors the observable. */
  fail(error: unknown): void {
    if (isEnded(this.state)) return;
    this.dispatch({ type: "failed" });
    this.abortAll(error);
    this.endRecording({ status: "failed", error: errorMessage(error) });
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
    if (isEnded(this.state)) return;
    this.dispatch({ type: "cancelled" });
    this.abortAll(error);
    this.endRecording({ status: "cancelled", error: error.message });
    this.chainRun?.handleChainError(error).catch(noop);
    if (notify) this.subscriber.error(error);
  }

  private abortAll(error: unknown): void {
    this.work.abort(error);
    this.final?.abort(error);
    this.waiter.rejectAll(error);
    this.cleanup();
  }

  /** Writes the run's end (failed, cancelled) with what is buffered; nobody is left to tell of a failure. */
  private endRecording(update: { status: "failed" | "cancelled"; error: string }): void {
    const recorder = this.recorder;
    if (!recorder) return;
    recorder.stop();
    recorder.flush({ ...update, release: true }).catch(noop);
  }

  /** What a recorder needs of this run: its checkpoint, and where a store failure goes. */
  recorderHooks(): RecorderHooks {
    return {
      checkpoint: () => ({
        schemaVersion: this.state.schemaVersion,
        iteration: this.state.iteration,
        elapsedMs: this.state.elapsedMs + (Date.now() - this.startedAt),
        ...(this.state.usage === undefined ? {} : { usage: this.state.usage }),
        phase: this.state.phase,
      }),
      onFailure: (error) => this.fail(error),
    };
  }

  private cleanup(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.unwatchSignal?.();
    this.unwatchSignal = undefined;
    this.conditions?.close();
  }
}

function hasKeys(record: object): boolean {
  for (const _ in record) return true;
  return false;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function noop(): void {}

/** The run's steps, and for a paused turn the calls of it that already ran (in the order of its actions). */
function stepsSoFar(state: RunState): AgentStep[] {
  const ran = state.turn?.results.filter((step): step is AgentStep => step !== undefined) ?? [];
  return ran.length === 0 ? state.steps : [...state.steps, ...ran];
}
