import { InvalidArgumentError, getOutputUsage, isAgentAction, isAgentFinish, observationText, valueToText } from "@agentrx/core";
import type { AgentAction, AgentFinish, AgentOutput, AgentStep, Observation, StepMetadata } from "@agentrx/core";
import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import { AIMessage, type UsageMetadata } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { ApprovalGate } from "./approvals";
import type { AgentStreamEvent, StopReason } from "./events";
import { InvalidAgentOutputError } from "./invalid-agent-output-error";
import { isOutputParserException, parsingErrorStep } from "./observations";
import { OutputValidationError } from "./output-validation-error";
import { actionEvent, agentCallInput, errorMessage, forced, missingPromptInput, stepEvent, toActions, toOutputString } from "./run-helpers";
import { type RunState, type RunTransition, isEnded, pendingActions, stepsOfEndedTurn } from "./run-state";
import { type Checked, checkFinalAnswer, finalAnswerCall, invalidAnswerStep } from "./structured-output";
import type { ToolRunner } from "./tool-runner";
import type { MiddlewareRun } from "../middleware/middleware-run";
import type { RunTurn } from "./run-state";
import { joinMessages } from "../steering/join-messages";
import type { RunSteering } from "../steering/run-steering";
import type { ResolvedOptions } from "./validate-options";

/**
 * What the loop needs of its run: the options and state it reads, the transitions, waits, events
 * and ends it asks for, and the collaborators that run a turn's tool calls (those started early
 * among them) and its approvals. Lifecycle (limits, cancellation, callbacks, recording) stays
 * with the run.
 *
 * @internal
 */
export interface AgentLoopContext {
  readonly options: ResolvedOptions;
  /** The run's state (read only: it changes through `dispatch`). */
  readonly state: RunState;
  /** Whether anyone sees `action`/`step` events (else they are not built). */
  readonly observed: boolean;
  /**
   * The run's chain run in the callbacks, once started; undefined without callbacks. It is told of
   * each action the loop makes part of a turn (`handleAgentAction`) before the action's tool starts.
   */
  readonly chainRun?: CallbackManagerForChainRun | undefined;
  /** Whether usage comes from the agent's output (else callbacks or the model-call observer report each call's). */
  readonly usageFromOutput: boolean;
  /** `Date.now()` when this segment of the run started. */
  readonly startedAt: number;
  /** Whether the loop must not start or record anything more (halted, ended). */
  readonly interrupted: boolean;
  /** The 0-based iteration of the agent call in progress. */
  readonly iteration: number;
  /** A turn's tool calls: the early ones (matched to the turn, kept by a halt, or dropped) and the rest. */
  readonly tools: Pick<ToolRunner, "runAll" | "returnsDirect" | "resetTurn" | "dropEarly" | "takeFinishedEarly" | "matchTurn" | "earlyCall" | "idempotencyKey" | "releaseEarly">;
  readonly approvals: Pick<ApprovalGate, "enabled" | "rejectedInTurn" | "interruptsOf" | "requested" | "resumeTurn" | "pause">;
  /** The run's middleware; undefined without middleware (the loop then calls the agent directly). */
  readonly middleware: MiddlewareRun | undefined;
  /** Changes the run's state. */
  dispatch(event: RunTransition): void;
  /** Awaits `promise` unless the run is cancelled or (when `halts`) halted first. */
  wait<T>(promise: Promise<T>, halts: boolean): Promise<T>;
  /**
   * `wait(promise, true)` for an agent call or a turn's tool calls; may give `promise` itself when
   * nothing can halt the run meanwhile: check `interrupted` after it settles.
   */
  waitCall<T>(promise: Promise<T>): Promise<T>;
  /**
   * An agent call begins: its tokens are held when a middleware wraps the model call (it may try
   * the model more than once, or check the answer after it: an output guardrail).
   */
  holdTokens(): void;
  /**
   * The agent call returned `output` (it passed the middleware): the held tokens of the model
   * attempt that answered with it go out (also for the "generate" call of a halted run), the
   * others' are dropped; without `output`, all are.
   */
  releaseTokens(output?: AgentOutput): void;
  /** `promise`, a call of the agent or of `tool`, under the call's `timeout` (past it the run fails with a `CallTimeoutError`). */
  timed<T>(promise: Promise<T>, call: "agent" | "tool", tool?: string): Promise<T>;
  /** Emits an event to the subscriber, the stop conditions and the recorder. */
  emit(event: AgentStreamEvent, index?: number): void;
  /** Stops the loop gracefully. */
  halt(reason: "max_execution_time" | "budget"): void;
  /** Counts a model call's usage. */
  onUsage(usage: UsageMetadata): void;
  /** Asks the recorder (if any) to write what it buffered. */
  schedule(): void;
  /** Resolves once everything recorded so far is durable; `undefined` when there is nothing to wait for. */
  barrier(): Promise<void> | undefined;
  /**
   * Waits until everything recorded so far is durable (write-ahead); a boolean at once (no
   * promise, no microtask) when nothing is pending. False when the run was halted or ended
   * meanwhile (the loop stops); a store failure throws (rejects).
   */
  durable(): Promise<boolean> | boolean;
  /** The signal of the one "generate" call after a halt (only cancellation aborts it). */
  finalSignal(): AbortSignal;
  /** Ends the run with its output. */
  complete(finish: AgentFinish, stopReason: StopReason): Promise<void>;
  /** Where messages sent to the run come from (see docs/steering.md); set once the run started. */
  readonly steering: RunSteering | undefined;
  /** A fork whose last copied step's observation was edited (`edit.observation`), in its first segment. */
  readonly forkEdited?: boolean;
}

/**
 * The executor's loop (see docs/executor-options.md): call the agent, run the tools it asked for,
 * feed the steps back, until it finishes; then, for a run cut short, early stopping.
 *
 * @internal
 */
export class AgentLoop {
  private agentConfig!: RunnableConfig;

  constructor(private readonly run: AgentLoopContext) {}

  /** Runs the loop to the run's end, calling the agent with `agentConfig`. */
  async execute(agentConfig: RunnableConfig): Promise<void> {
    this.agentConfig = agentConfig;
    const { run } = this;
    const { options, state, approvals, tools } = run;
    const { agent, maxIterations, trim } = options;
    const { inputs } = state;
    // A resumed run whose last agent call died while it streamed, after some of its tool calls
    // started early (`eagerTools`): those calls are that turn's, in doubt (see docs/runs.md).
    if (state.turn === undefined && state.earlyCalls !== undefined && !run.interrupted) await this.earlyCallsInDoubt(state.earlyCalls.actions, state.earlyCalls.keys);
    if (state.turn !== undefined && !run.interrupted) {
      // A resumed run whose last turn has tool calls without a result: run those (and the ones a
      // person decided on), then go on. Calls decided by this resume never started; every other
      // call without a result may have (it is in doubt).
      // (A promise when a call never asked about must be checked for approval: it waits for it then.)
      const resuming = approvals.resumeTurn();
      if (resuming) {
        try {
          await resuming;
        } catch (error) {
          if (!run.interrupted) throw error;
        }
        if (run.interrupted) return isEnded(state) ? undefined : this.earlyStop();
      }
      // Write-ahead: the resume's decisions (and the segment's start) are durable before any tool runs.
      await this.durable();
      const turn = state.turn;
      const outcome = await this.runTurn(pendingActions(state));
      if (outcome !== "continue") return outcome === "stop" ? this.earlyStop() : undefined;
      // The turn the pause left pending has ended: its afterTurn runs now (it did not before the pause).
      if (run.middleware?.afterTurns && !(await this.afterTurn(run.middleware, turn))) return isEnded(state) ? undefined : this.earlyStop();
    } else if (state.endedTurn !== undefined && !run.interrupted) {
      // A fork's edited observation is checked as a live result of its call is, first.
      if (run.forkEdited === true && run.middleware !== undefined && !(await this.checkEdit(run.middleware))) return isEnded(state) ? undefined : this.earlyStop();
      // A resumed run (or a fork) whose process died after a turn that returns directly, before its
      // output was recorded: it ends as the live run did, without a model call the live run never made.
      const outcome = this.endedTurnOutcome();
      if (outcome !== undefined) return void (await outcome);
    }
    for (;;) {
      if (run.interrupted) break;
      if (state.iteration >= maxIterations) {
        run.dispatch({ type: "halted", reason: "max_iterations" });
        break;
      }
      // Checked before each agent call too, as LangChain does: work that never yields to the event
      // loop (synchronous tools) would otherwise outrun the timer.
      if (options.maxExecutionTime !== undefined && state.elapsedMs + (Date.now() - run.startedAt) >= options.maxExecutionTime) {
        run.halt("max_execution_time");
        break;
      }
      // Write-ahead: no model call starts while an earlier write is unacknowledged.
      const durable = this.durable();
      if (durable === false || (durable !== true && !(await durable))) break;
      // Messages sent to the run join between turns, before the next agent call.
      const joining = joinMessages(run);
      if (joining !== undefined && ((await joining), run.interrupted)) break;
      run.dispatch({ type: "agentCalled" });
      const iteration = state.iteration - 1;
      tools.resetTurn();
      let output: AgentOutput;
      try {
        run.holdTokens();
        const call = run.middleware === undefined ? agent.invoke(agentCallInput(inputs, state.steps, trim), agentConfig) : run.middleware.callAgent(agentConfig, iteration);
        output = await run.waitCall(run.timed(call, "agent"));
        // Held (middleware wraps the model call): only the text of the attempt that gave `output`,
        // and none when the run was halted as it came (the answer is discarded).
        run.releaseTokens(run.interrupted ? undefined : output);
      } catch (error) {
        run.releaseTokens(); // a call that failed (or a tripped answer): its held text is not streamed
        // A call cut short by a halt keeps the early tool calls that finished before it (a partial turn).
        if (run.interrupted) this.keepFinishedEarly();
        else tools.dropEarly(); // the model call's early tool calls are not the turn's
        // A call cut short still counts: the "generate" call after it gets the next iteration.
        if (run.interrupted) break;
        if (!isOutputParserException(error)) throw missingPromptInput(error, inputs) ?? error;
        const step = parsingErrorStep(options, error);
        run.dispatch({ type: "parsingErrorHandled", step });
        if (run.observed) run.emit(stepEvent(step, iteration, 0));
        run.schedule();
        continue;
      }
      if (run.interrupted) {
        this.keepFinishedEarly(); // halted as the answer came: as when halted while it streamed
        break;
      }
      if (run.usageFromOutput) this.addOutputUsage(output);
      const answer = isAgentFinish(output) ? output : options.outputSchema ? finalAnswerCall(toActions(output, iteration)) : undefined;
      if (answer !== undefined) {
        tools.dropEarly(); // an answer has no turn: calls the model streamed with it never ran for it
        // A message sent while the agent answered joins the run, which goes on while an iteration
        // is left (the answer, which may have streamed, becomes a step before it); the inbox closes
        // (atomically with the check) before the answer is the run's.
        const mode = state.iteration < maxIterations ? "continue" : "unanswered";
        if (!options.outputSchema) {
          const inbox = await this.closeInbox(mode, { finish: answer, iteration });
          if (inbox === "stopped") break;
          if (inbox === "continue") continue;
          return run.complete(answer, "finish");
        }
        const typed = await this.finishTyped(answer, "finish", iteration, mode);
        if (typed === "done") return;
        if (typed === "stopped") break;
        continue; // the answer went back to the model, or a message came
      }
      const actions = toActions(output, iteration);
      run.dispatch({ type: "turnStarted", actions });
      tools.matchTurn(actions);
      if (run.observed) {
        for (let i = 0; i < actions.length; i++) {
          const event = actionEvent(actions[i] as AgentAction, iteration);
          event.index = i;
          if (tools.earlyCall(i)) event.early = true;
          // Recorded with the action (write-ahead): a resumed call keeps its key.
          event.idempotencyKey = tools.idempotencyKey(actions[i] as AgentAction, i);
          run.emit(event, i);
        }
      }
      // The callbacks hear of each action before its tool starts (those started early, as they started).
      const chainRun = run.chainRun;
      if (chainRun !== undefined) await this.tellActions(chainRun, actions, (index) => tools.earlyCall(index) !== undefined);
      tools.releaseEarly(); // their sub-runs' events follow the actions that asked for them
      if (run.interrupted) break; // a stop condition fired on an action event
      if (approvals.enabled) {
        let interrupts;
        try {
          interrupts = await approvals.interruptsOf(actions, iteration);
        } catch (error) {
          if (run.interrupted) break;
          throw error;
        }
        approvals.requested(interrupts);
      }
      // Write-ahead: the turn's actions are durable before any of its tools starts, so a resume
      // never asks the agent for this turn again and knows which calls may have started.
      const actionsDurable = this.durable();
      if (actionsDurable === false || (actionsDurable !== true && !(await actionsDurable))) break;
      // The turn's tool calls (`runTurn`, inline).
      const turn = state.turn;
      const indexes = pendingActions(state);
      let outcome: TurnOutcome | Promise<TurnOutcome> | undefined;
      if (turn !== undefined && indexes.length > 0) {
        try {
          await run.waitCall(tools.runAll(turn.actions, indexes));
        } catch (error) {
          outcome = this.toolsFailed(error);
        }
      }
      outcome ??= turn === undefined ? "continue" : this.turnEnded(turn);
      if (typeof outcome !== "string") outcome = await outcome;
      if (outcome === "stop") break;
      if (outcome === "done") return;
      if (run.middleware?.afterTurns && !(await this.afterTurn(run.middleware, turn))) break;
    }
    if (isEnded(state)) return;
    return this.earlyStop();
  }

  /**
   * Makes the early calls of a resumed run's last agent call, which died before its answer was
   * recorded, the turn of that agent call: its actions are recorded (and emitted) as the model's
   * tool calls, one message asking for all of them (the conversation the model sees next), and
   * each is then in doubt like a recorded turn's call. The model is asked again only after them.
   * The callbacks hear of the actions (this segment's chain run never did), as of a new turn's.
   */
  private async earlyCallsInDoubt(early: readonly AgentAction[], keys: readonly (string | undefined)[] | undefined): Promise<void> {
    const actions = this.earlyTurn(early, keys, false);
    const chainRun = this.run.chainRun;
    if (chainRun !== undefined) await this.tellActions(chainRun, actions);
  }

  /**
   * Tells the callbacks' chain run of a turn's `actions` (`handleAgentAction`), in their order,
   * each awaited before the next, as LangChain's classic executor does before an action's tool
   * starts; `startedEarly` skips those told when their call started early (`eagerTools`, see
   * `ExecutorRun.admitEarly`). A handler with `raiseError` that throws rejects with its error (the
   * run fails with it); a cancellation ends the wait at once.
   */
  private async tellActions(chainRun: CallbackManagerForChainRun, actions: readonly AgentAction[], startedEarly?: (index: number) => boolean): Promise<void> {
    const { run } = this;
    for (let i = 0; i < actions.length; i++) {
      if (isEnded(run.state)) return;
      if (startedEarly?.(i) !== true) await run.wait(chainRun.handleAgentAction(actions[i] as AgentAction), false);
    }
  }

  /**
   * The run was halted (a limit, a stop condition such as `toolCallBudget`) while the model still
   * streamed: the early calls that finished before the halt become the agent call's turn, as a
   * resume makes its early calls in doubt one ({@link earlyCallsInDoubt}), each with its step. Their
   * `action` and `step` events are emitted and recorded and their steps are the run's (what the
   * "generate" call sees, `intermediateSteps`); calls still running were aborted by the halt, and
   * calls the halt refused never started: neither is part of it (they are dropped). Nothing is kept
   * when the run ended.
   */
  private keepFinishedEarly(): void {
    const { run } = this;
    try {
      if (!isEnded(run.state)) this.turnOfFinishedEarly();
    } finally {
      run.tools.dropEarly(); // the model call's other early tool calls are not the turn's
    }
  }

  /** The finished early calls as the agent call's turn, each with its step. */
  private turnOfFinishedEarly(): void {
    const { run } = this;
    const finished = run.tools.takeFinishedEarly();
    if (finished.length === 0) return;
    const actions = this.earlyTurn(
      finished.map((call) => call.action),
      finished.map((call) => call.key),
      true,
    );
    for (let i = 0; i < finished.length; i++) {
      const call = finished[i] as (typeof finished)[number];
      call.port?.release(); // its sub-run's events follow its action
      this.toolFinished(i, { action: actions[i] as AgentAction, observation: call.observation }, call.durationMs, call.metadata);
    }
  }

  /**
   * Makes early calls (`early`, started under `keys`) the turn of the agent call in progress: one
   * model message asking for all of them (what the model sees next) in their actions' `messageLog`,
   * the turn started with them, and their `action` events emitted (with `early: true` when
   * `startedEarly`: a stop condition counted them as they started). Returns the turn's actions.
   */
  private earlyTurn(early: readonly AgentAction[], keys: readonly (string | undefined)[] | undefined, startedEarly: boolean): AgentAction[] {
    const { run } = this;
    const calls = early.flatMap((action) => {
      const id = (action as { toolCallId?: unknown }).toolCallId;
      // A string tool's input goes back to the model as the object it streamed (`{ __arg1 }`).
      const args = typeof action.toolInput === "object" && action.toolInput !== null ? (action.toolInput as Record<string, unknown>) : { __arg1: action.toolInput };
      return typeof id === "string" ? [{ id, name: action.tool, args, type: "tool_call" as const }] : [];
    });
    const message = calls.length === 0 ? undefined : new AIMessage({ content: "", tool_calls: calls });
    const actions = early.map((action) => (message === undefined || typeof (action as { toolCallId?: unknown }).toolCallId !== "string" ? action : { ...action, messageLog: [message] }));
    // Each call keeps the key it started with (recorded with its intent), and its action records it.
    run.dispatch(keys === undefined ? { type: "turnStarted", actions, partial: true } : { type: "turnStarted", actions, keys: keys.slice(0, actions.length), partial: true });
    const iteration = run.state.iteration - 1;
    if (!run.observed) return actions;
    for (let i = 0; i < actions.length; i++) {
      const event = actionEvent(actions[i] as AgentAction, iteration);
      event.index = i;
      event.partialTurn = true; // recorded: a resumed run knows this turn never returns directly
      if (startedEarly) event.early = true;
      const key = keys?.[i];
      if (key !== undefined) event.idempotencyKey = key;
      run.emit(event, i);
    }
    return actions;
  }

  /** A tool call of the current turn finished: its step joins the turn, and is emitted and recorded. */
  toolFinished(index: number, step: AgentStep, durationMs: number, metadata: StepMetadata | undefined): void {
    const { run } = this;
    const iteration = run.state.turn?.iteration ?? run.iteration;
    // A refused input, or a handoff whose other agent did not answer: the turn goes back to the model.
    if (metadata?.refusedInput === true || metadata?.handoffFailed === true) run.dispatch({ type: "inputRefused", iteration });
    run.dispatch({ type: "toolFinished", index, step });
    if (run.observed) {
      const event = stepEvent(step, iteration, durationMs);
      event.index = index;
      if (metadata !== undefined && hasKeys(metadata)) event.metadata = metadata;
      run.emit(event, index);
    }
    run.schedule();
  }

  /**
   * Runs the tool calls at `indexes` of the current turn. `continue`: the turn ended, go on;
   * `stop`: a limit halted it; `done`: the run ended (a cancellation, or a tool that returns directly).
   * A resumed turn that the decisions ended (every call left rejected or given its result, no
   * tool to run) ends as a restored one does (`endedTurnOutcome`): a supplied result of a
   * `returnDirect` call returns directly, as if the tool had returned it, with or without middleware.
   * (The loop does the same inline for a new turn: one async call fewer per turn.)
   */
  private async runTurn(indexes: readonly number[]): Promise<TurnOutcome> {
    const { run } = this;
    const turn = run.state.turn;
    if (turn === undefined) {
      if (run.interrupted) return isEnded(run.state) ? "done" : "stop";
      return (await this.endedTurnOutcome()) ?? "continue";
    }
    if (indexes.length > 0) {
      try {
        await run.waitCall(run.tools.runAll(turn.actions, indexes));
      } catch (error) {
        return this.toolsFailed(error);
      }
    }
    return this.turnEnded(turn);
  }

  /** The turn's tool calls failed with `error`: the run ended (`done`) or was halted (`stop`); else rethrows it. */
  private toolsFailed(error: unknown): "stop" | "done" {
    const { state } = this.run;
    if (isEnded(state)) return "done";
    if (state.stopReason === undefined) throw error;
    return "stop";
  }

  /** The turn's tool calls are done: how it ends (at once, without a promise, when the run goes on). */
  private turnEnded(turn: RunTurn): TurnOutcome | Promise<TurnOutcome> {
    const { run } = this;
    const { state } = run;
    if (run.interrupted) return isEnded(state) ? "done" : "stop";
    if (state.interrupts.length > 0) return run.approvals.pause().then(() => "done");
    const steps = turn.results as AgentStep[];
    return this.returnsDirectly(turn.iteration, steps) ? this.returnDirect(steps) : "continue";
  }

  /**
   * How a restored run goes on whose last turn ended and no agent call came after: `undefined` (the
   * agent is called) unless that turn returns directly, as {@link turnEnded} decides for a live turn.
   * (Message steps that joined as the run ended follow the turn's steps: they are not the turn's.)
   */
  private endedTurnOutcome(): Promise<TurnOutcome> | undefined {
    const { state } = this.run;
    const steps = stepsOfEndedTurn(state);
    if (steps === undefined || state.endedTurn === undefined || !this.returnsDirectly(state.endedTurn.iteration, steps)) return undefined;
    return this.returnDirect(steps);
  }

  /**
   * A fork whose last copied step's observation was edited (see docs/runs.md, "Fork"): the edit
   * goes through the `wrapToolCall` chain as the result of that step's call (its `next` resolves to
   * the edit; no tool runs), with the steps before its turn, as a live result would: a tool-result
   * guardrail, then a `returnDirect` answer's check, may stop the run. The edit is recorded as
   * given (the fork's copy): a chain that would change it fails the run, saying what to pass
   * instead. False when the run was stopped meanwhile (the loop stops).
   */
  private async checkEdit(middleware: MiddlewareRun): Promise<boolean> {
    const { run } = this;
    const { state } = run;
    const ended = state.endedTurn;
    const steps = stepsOfEndedTurn(state);
    const step = steps?.at(-1);
    // An edited parsing error's step (no tool call) goes to the model as a live one does: unchecked.
    if (ended === undefined || steps === undefined || step === undefined) return true;
    const edit = step.observation;
    // Write-ahead, as before every call: the fork's start is durable first.
    const durable = this.durable();
    if (durable === false || (durable !== true && !(await durable))) return false;
    let observation: Observation;
    try {
      const given = () => Promise.resolve({ observation: edit, metadata: undefined });
      ({ observation } = await run.wait(middleware.callTool(step.action, steps.length - 1, this.agentConfig, given, state.steps.slice(0, ended.from)), true));
    } catch (error) {
      if (run.interrupted) return false;
      throw error;
    }
    if (run.interrupted) return false;
    if (observation === edit) return true;
    const made = observationText(observation);
    throw new InvalidArgumentError({
      argument: "edit",
      value: { observation: edit },
      message: `AgentExecutor.fork: the middleware's wrapToolCall made the edited observation of ${step.action.tool} into ${JSON.stringify(made)}, as it would a live result; a fork's edit is recorded as given: pass that as \`edit.observation\`.`,
    });
  }

  /**
   * Whether a turn whose calls all ended returns directly: every one of its calls is of a
   * `returnDirect` tool that ran (its input was not refused) and, for a handoff, whose other agent
   * answered (`StepMetadata.handoffFailed`, read as a refused input), no person rejected one, and the model
   * asked for the turn whole (not a turn of early calls: `partialIn`). Its answer is one call's observation, or several joined by blank
   * lines.
   */
  private returnsDirectly(iteration: number, steps: readonly AgentStep[]): boolean {
    const { run } = this;
    const { state } = run;
    // A call whose input was refused never ran its tool, a failed handoff has no answer: the model goes on (`refusedInputIn`).
    if (steps.length === 0 || run.approvals.rejectedInTurn(iteration) || state.partialIn === iteration || state.refusedInputIn === iteration) return false;
    for (const step of steps) if (!run.tools.returnsDirect(step.action)) return false;
    return true;
  }

  private async returnDirect(steps: readonly AgentStep[]): Promise<TurnOutcome> {
    const { run } = this;
    const observation = steps.map((step) => observationText(step.observation)).join("\n\n");
    if ((await this.closeInbox("unanswered")) === "stopped") return isEnded(run.state) ? "done" : "stop";
    const finish: AgentFinish = { returnValues: { output: observation }, log: observation };
    // With `outputSchema`, a tool's answer that fits is the typed value too (one that does not, the
    // tool's and not the model's, cannot go back to the model: the run ends without it).
    const schema = run.options.outputSchema;
    if (schema !== undefined) {
      const checked = await this.checkAnswer(finish, true);
      if (checked === undefined) return isEnded(run.state) ? "done" : "stop";
      if (checked.ok) finish.returnValues["structuredOutput"] = checked.value;
    }
    await run.complete(finish, "return_direct");
    return "done";
  }

  /**
   * Checks a final answer against `outputSchema` (see `checkFinalAnswer`) through the run's wait,
   * so that a cancellation, or (`halts`) a halt such as `maxExecutionTime`, ends a check that takes
   * long or never settles (an asynchronous refinement); undefined when it ended it. A check that
   * throws or rejects rethrows.
   */
  private async checkAnswer(finish: AgentFinish, halts: boolean): Promise<Checked | undefined> {
    const { run } = this;
    const checking = checkFinalAnswer(run.options.outputSchema as never, finish);
    if (!(checking instanceof Promise)) return checking;
    let checked: Checked;
    try {
      checked = await run.wait(checking, halts);
    } catch (error) {
      if (halts ? run.interrupted : isEnded(run.state)) return undefined;
      throw error;
    }
    return (halts ? run.interrupted : isEnded(run.state)) ? undefined : checked;
  }

  /**
   * Ends the run with a final answer that must fit `outputSchema`: validated, it becomes
   * `structuredOutput` (after the inbox closes, with `inboxMode`: a message that came meanwhile
   * sends the run on instead, `retry`; `stopped`: the run was halted meanwhile); otherwise it goes back to the model as an observation while an iteration
   * is left (`retry`), else the run fails with an `OutputValidationError` naming the problem.
   */
  private async finishTyped(finish: AgentFinish, stopReason: StopReason, iteration: number | undefined, inboxMode?: InboxMode): Promise<"done" | "retry" | "stopped"> {
    const { run } = this;
    // The loop's answer: a halt ends its check (the loop stops); the "generate" call's, after the
    // halt: only a cancellation does.
    const checked = await this.checkAnswer(finish, iteration !== undefined);
    if (checked === undefined) return "stopped";
    if (checked.ok) {
      if (inboxMode !== undefined) {
        const inbox = await this.closeInbox(inboxMode, inboxMode === "continue" && iteration !== undefined ? { finish, iteration } : undefined);
        if (inbox === "stopped") return "stopped";
        if (inbox === "continue") return "retry";
      }
      const output = finish.returnValues["output"];
      const text = typeof output === "string" && output !== "" ? output : checked.text;
      await run.complete({ ...finish, returnValues: { ...finish.returnValues, output: text, structuredOutput: checked.value } }, stopReason);
      return "done";
    }
    if (iteration === undefined || run.state.iteration >= run.options.maxIterations) {
      throw new OutputValidationError({ output: checked.given, issues: checked.issues });
    }
    const step = invalidAnswerStep(checked.issues, checked.given, finish);
    run.dispatch({ type: "parsingErrorHandled", step });
    if (run.observed) run.emit(stepEvent(step, iteration, 0));
    run.schedule();
    return "retry";
  }

  /** Ends a run cut short by a limit or stop condition: the "force" text, or one "generate" call. */
  private async earlyStop(): Promise<void> {
    const { run } = this;
    const { options, state } = run;
    const reason = state.stopReason as StopReason;
    const stopped = options.earlyStopOutput(reason, run.state.stoppedBy);
    // A middleware's stop (a guardrail, a repeated call) never asks the model again.
    const final = options.earlyStoppingMethod === "force" || reason === "guardrail" || reason === "repeated_call";
    // The inbox closes first: messages that came meanwhile join, seen by the "generate" call or
    // recorded as unanswered. Its write is also the write-ahead before that call.
    if ((await this.closeInbox(final ? "unanswered" : "answered")) === "stopped" || isEnded(state)) return;
    if (final) return run.complete(forced(stopped), reason);
    const pending = run.barrier(); // write-ahead, as before every model call
    if (pending !== undefined) await run.wait(pending, false);
    if (isEnded(state)) return;
    run.dispatch({ type: "agentCalled" });
    const config = { ...this.agentConfig, signal: run.finalSignal() };
    let output: AgentOutput;
    try {
      // As every agent call: through the middleware (prepareStep, then wrapModelCall), an input that
      // is undefined left out and the steps copied (agentCallInput).
      run.holdTokens();
      const call = run.middleware === undefined ? options.agent.invoke(agentCallInput({ ...state.inputs, forceFinalAnswer: true }, state.steps), config) : run.middleware.callFinal(config, state.iteration - 1);
      output = await run.wait(run.timed(call, "agent"), false);
      run.releaseTokens(output);
    } catch (error) {
      run.releaseTokens();
      if (isEnded(state)) return;
      if (isOutputParserException(error)) return this.endGenerated(forced(error.llmOutput || stopped), reason);
      // A middleware stopped the call (a guardrail tripped on its answer): the run ends as that stop.
      if (state.stopReason !== reason) return run.complete(forced(options.earlyStopOutput(state.stopReason as StopReason, state.stoppedBy)), state.stopReason as StopReason);
      // The model failed on the one extra call: the run still ends with an answer that says so.
      const message = errorMessage(error);
      run.dispatch({ type: "generateFailed", message });
      return run.complete(forced(`${stopped} A final response could not be generated (${message}).`), reason);
    }
    if (isEnded(state)) return;
    if (run.usageFromOutput) this.addOutputUsage(output);
    const answer = isAgentFinish(output) ? output : options.outputSchema ? finalAnswerCall(Array.isArray(output) ? output : [output as AgentAction]) : undefined;
    if (answer !== undefined) return this.endGenerated(answer, reason);
    const first = (Array.isArray(output) ? output[0] : output) as AgentAction | undefined;
    if (first === undefined || !isAgentAction(first)) throw new InvalidAgentOutputError({ output, iteration: run.iteration });
    return this.endGenerated(forced(first.log || stopped), reason);
  }

  /**
   * Ends the run with what the "generate" call gave (its answer, or the fallback text of an action
   * or a parsing error): with `outputSchema` that text is the answer, validated like any other
   * (see docs/structured-output.md), so the run never ends with an untyped answer.
   */
  private async endGenerated(finish: AgentFinish, reason: StopReason): Promise<void> {
    if (this.run.options.outputSchema) await this.finishTyped(finish, reason, undefined);
    else await this.run.complete(finish, reason);
  }

  /**
   * Before the run ends with an answer: closes its inbox (see docs/steering.md), atomically with
   * the store's check that no message waits in it, so that no message is accepted that the run
   * will not take. Messages that wait join first. `continue` (mode `"continue"`: an iteration is
   * left): they joined and the agent is called again; the `answer` they came during (of the agent
   * call of its `iteration`) is then a step of the run before them (see `answerStep`), so the model
   * sees what it said, as the user may have (it streamed). Otherwise they join as steps the
   * "generate" call sees (`"answered"`) or as unanswered (`"unanswered"`), and the inbox closes
   * after them. `stopped`: the run was halted (mode `"continue"`) or ended meanwhile.
   */
  private async closeInbox(mode: InboxMode, answer?: { finish: AgentFinish; iteration: number }): Promise<"closed" | "continue" | "stopped"> {
    const { run } = this;
    const steering = run.steering;
    if (steering === undefined) return "closed";
    const halts = mode === "continue";
    const stopped = (): boolean => (halts ? run.interrupted : isEnded(run.state));
    for (;;) {
      let closed: boolean;
      try {
        const closing = steering.closeInbox();
        closed = await (halts ? run.waitCall(closing) : run.wait(closing, false));
      } catch (error) {
        if (stopped()) return "stopped";
        throw error;
      }
      if (stopped()) return "stopped";
      if (closed) return "closed";
      if (answer !== undefined && mode === "continue") {
        // Recorded (a `step` event) before the messages, as a handled parsing error's step is: a resume has it too.
        const step = answerStep(answer.finish);
        run.dispatch({ type: "parsingErrorHandled", step });
        if (run.observed) run.emit(stepEvent(step, answer.iteration, 0));
        answer = undefined;
      }
      const joined = (await joinMessages(run, { unanswered: mode === "unanswered", halts })) ?? 0;
      if (stopped()) return "stopped";
      if (mode === "continue" && joined > 0) return "continue";
    }
  }

  /** The middleware's `afterTurn` hooks; false when the run was stopped meanwhile (the loop stops). */
  private async afterTurn(middleware: MiddlewareRun, turn: RunTurn | undefined): Promise<boolean> {
    const { run } = this;
    try {
      await run.wait(middleware.afterTurn(turn), true);
    } catch (error) {
      if (run.interrupted) return false;
      throw error;
    }
    return !run.interrupted;
  }

  /** Write-ahead: see `AgentLoopContext.durable`. */
  private durable(): Promise<boolean> | boolean {
    return this.run.durable();
  }

  /** Counts the usage an agent's parser attached to its output (when the model is not watched). */
  private addOutputUsage(output: AgentOutput): void {
    const usage = getOutputUsage(output);
    if (usage !== undefined) this.run.onUsage(usage);
  }
}

/**
 * The tool name of the step of a final answer that a message sent to the run came during (see
 * {@link answerStep}).
 */
const ANSWER_STEP_TOOL = "_Answer";

/** What the model reads after its answer, before the message that came during it. */
const ANSWERED_BEFORE_MESSAGE = "(A new message came while you were answering; it follows.)";

/**
 * The step of a final answer that a message sent to the run came during: the run went on with the
 * message instead of ending with it (see docs/steering.md). Its `log` is the model's text (what the
 * scratchpads show as the model's message: its answer may have streamed to the user, and the model
 * must see what it said), its `toolInput` the answer's text, its observation a note that the
 * message follows. It is recorded as a `step` event, as a handled parsing error's step is.
 */
function answerStep(finish: AgentFinish): AgentStep {
  const { output, structuredOutput } = finish.returnValues;
  const text = typeof output === "string" && output !== "" ? output : structuredOutput !== undefined ? valueToText(structuredOutput, { quoteStrings: true }) : toOutputString(output);
  const log = typeof finish.log === "string" && finish.log !== "" ? finish.log : text;
  return { action: { tool: ANSWER_STEP_TOOL, toolInput: text, log }, observation: ANSWERED_BEFORE_MESSAGE };
}

/** How a turn ends (see `AgentLoop.runTurn`). */
type TurnOutcome = "continue" | "stop" | "done";

/** How messages that wait as the run ends join it (see `AgentLoop.closeInbox`). */
type InboxMode = "continue" | "answered" | "unanswered";

function hasKeys(record: object): boolean {
  for (const _ in record) return true;
  return false;
}
