import type { AbortError, AgentFinish, AgentStep } from "@agentrx/core";
import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import type { RunRecorder } from "../runs/run-recorder";
import type { RunTelemetry } from "../telemetry/run-telemetry";
import { runMessages } from "./conversation-memory";
import type { AgentStreamEvent, InterruptEvent, StopReason } from "./events";
import { errorMessage, outputEvent, toOutputString } from "./run-helpers";
import { type RunState, type RunTransition, isEnded } from "./run-state";
import { type ResolvedOptions, stoppedByMiddleware } from "./validate-options";

/**
 * Where a run's events go: what it needs of an rxjs `Subscriber` (which is one), so that `invoke`
 * can hand it a lighter sink of its own.
 *
 * @internal
 */
export interface RunSubscriber {
  next(event: AgentStreamEvent): void;
  error(error: unknown): void;
  complete(): void;
  /** Whether nobody listens any more (unsubscribed, or ended). */
  readonly closed: boolean;
}

/**
 * What ending a run needs of it: the state and options it reads, where the end goes (the
 * subscriber, the callbacks' chain run, the recorder, the conversation memory), what the output
 * reports besides the answer, and the transitions, aborts and cleanup it asks for.
 *
 * @internal
 */
export interface RunEndingContext {
  /** The run's state (read only: it changes through `dispatch`). */
  readonly state: RunState;
  readonly options: Pick<ResolvedOptions, "returnIntermediateSteps" | "memory">;
  readonly subscriber: RunSubscriber;
  /** The run's chain run in the callbacks, once started. */
  readonly chainRun: CallbackManagerForChainRun | undefined;
  /** The run's recorder, once opened. */
  readonly recorder: RunRecorder | undefined;
  /** The run's spans, when traced without callbacks. */
  readonly telemetry: RunTelemetry | undefined;
  /** Changes the run's state. */
  dispatch(event: RunTransition): void;
  /** Stops the run's timer, signal watch and stop conditions. */
  cleanup(): void;
  /** Aborts everything in flight and stops the timer, the signal watch and the stop conditions. */
  abortAll(error: unknown): void;
}

/**
 * The ways a run ends: with its output or a pause (`complete`: the callbacks, the conversation
 * memory and the recorder are told, then the subscriber; any of the first three that refuses fails
 * the run instead), with a failure (`fail`) or a cancellation (`cancel`).
 *
 * @internal
 */
export class RunEnding {
  constructor(private readonly run: RunEndingContext) {}

  /** Ends the run with its output (after `interrupt`, for a pause), recorded before anyone sees it. */
  async complete(finish: AgentFinish, stopReason: StopReason, interrupt?: InterruptEvent): Promise<void> {
    const { run } = this;
    if (isEnded(run.state)) return;
    run.dispatch(interrupt ? { type: "paused", interrupts: interrupt.interrupts } : { type: "finished", stopReason });
    run.cleanup();
    const output = toOutputString(finish.returnValues["output"]);
    const event = outputEvent(run.state.runId, finish, output, stopReason);
    if (run.options.returnIntermediateSteps) event.intermediateSteps = stepsSoFar(run.state);
    const { stoppedBy, generateError } = run.state;
    if (stoppedBy !== undefined && (stopReason === "budget" || stopReason === "guardrail" || stopReason === "repeated_call" || stoppedByMiddleware(stoppedBy))) event.stoppedBy = stoppedBy;
    if (run.state.usage !== undefined) event.usage = run.state.usage;
    if (generateError !== undefined) event.generateError = generateError;
    if (finish.returnValues["structuredOutput"] !== undefined) event.structuredOutput = finish.returnValues["structuredOutput"];
    if (run.chainRun) {
      try {
        await run.chainRun.handleChainEnd({ ...event.returnValues, stopReason });
      } catch (error) {
        // A handler with `raiseError` refused the run's end: the run fails with its error.
        run.dispatch({ type: "endRefused" });
        await this.endRecording({ status: "failed", error: errorMessage(error) });
        run.subscriber.error(error);
        return;
      }
    }
    run.telemetry?.end({ ...event.returnValues, stopReason });
    if (run.recorder) {
      // The output (and a pause) is in the record before anyone sees it.
      if (interrupt) run.recorder.record(interrupt);
      run.recorder.record({ ...event, iterations: run.state.iteration });
    }
    const memory = run.options.memory;
    if (memory && !interrupt && run.state.threadId !== undefined) {
      // The thread remembers the run once it has an answer (not a pause: that waits for the end).
      // The answer is in the record first: a run stopped before its messages were appended is
      // given them by its resume, which appends the recorded answer, not another (docs/memory.md).
      if (run.recorder) {
        try {
          await run.recorder.flush();
        } catch (error) {
          run.recorder.stop();
          run.dispatch({ type: "endRefused" });
          if (!run.subscriber.closed) run.subscriber.error(error);
          return;
        }
      }
      try {
        const messages = runMessages(run.state.inputs, memory.inputKey, run.state.steps, output, event.messages);
        await memory.memory.addMessages(run.state.threadId, messages, { runId: run.state.runId });
      } catch (error) {
        run.dispatch({ type: "endRefused" });
        await this.endRecording({ status: "failed", error: `the conversation memory refused the run's messages: ${errorMessage(error)}` });
        if (!run.subscriber.closed) run.subscriber.error(error);
        return;
      }
    }
    if (run.recorder) {
      try {
        await run.recorder.flush({ status: interrupt ? "interrupted" : "finished", stopReason, release: true });
      } catch (error) {
        run.dispatch({ type: "endRefused" });
        if (!run.subscriber.closed) run.subscriber.error(error);
        return;
      } finally {
        run.recorder.stop();
      }
    }
    if (run.subscriber.closed) return;
    if (interrupt) run.subscriber.next(interrupt);
    run.subscriber.next(event);
    run.subscriber.complete();
  }

  /**
   * Fails the run: aborts everything in flight, starts nothing more and errors the observable, once
   * the record says `failed` (or could not: nobody is left to tell of that), so that a caller who
   * sees the error reads the same from the store.
   */
  fail(error: unknown): void {
    const { run } = this;
    if (isEnded(run.state)) return;
    run.dispatch({ type: "failed" });
    run.abortAll(error);
    const recorded = this.endRecording({ status: "failed", error: errorMessage(error) });
    run.telemetry?.fail(error);
    const chainRun = run.chainRun;
    const tell = () => run.subscriber.error(error);
    const told = () => (chainRun ? chainRun.handleChainError(error).then(tell, tell) : tell());
    if (recorded) void recorded.then(told);
    else void told();
  }

  /** Cancels the run: aborts everything in flight; `notify` errors the observable (not after an unsubscribe), once the record says `cancelled`. */
  cancel(error: AbortError, notify: boolean): void {
    const { run } = this;
    if (isEnded(run.state)) return;
    run.dispatch({ type: "cancelled" });
    run.abortAll(error);
    const recorded = this.endRecording({ status: "cancelled", error: error.message });
    run.chainRun?.handleChainError(error).catch(noop);
    run.telemetry?.fail(error);
    if (!notify) return;
    if (recorded) void recorded.then(() => run.subscriber.error(error));
    else run.subscriber.error(error);
  }

  /**
   * Writes the run's end (failed, cancelled) with what is buffered; resolves once the write is
   * settled (never rejects: nobody is left to tell of a failure to write it), or is undefined when
   * the run records nowhere.
   */
  endRecording(update: { status: "failed" | "cancelled"; error: string }): Promise<void> | undefined {
    const recorder = this.run.recorder;
    if (!recorder) return undefined;
    recorder.stop();
    return recorder.flush({ ...update, release: true }).then(noop, noop);
  }
}

/** The run's steps, and for a paused turn the calls of it that already ran (in the order of its actions). */
function stepsSoFar(state: RunState): AgentStep[] {
  const ran = state.turn?.results.filter((step): step is AgentStep => step !== undefined) ?? [];
  return ran.length === 0 ? state.steps : [...state.steps, ...ran];
}

function noop(): void {}
