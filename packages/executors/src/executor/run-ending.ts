import type { AbortError, AgentFinish, AgentStep } from "@agentrx/core";
import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import type { RunRecorder } from "../runs/run-recorder";
import type { RunTelemetry } from "../telemetry/run-telemetry";
import type { BaseMessage } from "@langchain/core/messages";
import { type ConversationMemory, runMessages } from "./conversation-memory";
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
  /**
   * Calls `cancelled` when the run is cancelled from now on, once its end began (its
   * `config.signal` aborts: `notify`; its subscriber unsubscribes), or at once when it already
   * was; returns what stops watching. What the end watches while the conversation memory takes
   * the run's messages.
   */
  onCancel(cancelled: (error: AbortError, notify: boolean) => void): () => void;
}

/** A cancellation of the run while its end was under way (see `RunEndingContext.onCancel`). */
interface Cancellation {
  error: AbortError;
  /** Whether the subscriber is told (its signal aborted; it did not unsubscribe). */
  notify: boolean;
}

/**
 * The ways a run ends: with its output or a pause (`complete`: the callbacks, the conversation
 * memory and the recorder are told, then the subscriber; any of the first three that refuses fails
 * the run instead, and a cancellation while the memory takes the run's messages cancels it), with
 * a failure (`fail`) or a cancellation (`cancel`).
 *
 * @internal
 */
export class RunEnding {
  constructor(private readonly run: RunEndingContext) {}

  /**
   * Ends the run with its output (after `interrupt`, for a pause), recorded before anyone sees it.
   * The callbacks' chain run hears of it first: `handleAgentEnd(finish)` (not for a pause), then
   * `handleChainEnd`.
   */
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
        // A finished run (not a pause) tells the handlers of its finish first, as LangChain's
        // classic executor does (also for a forced stop and a tool that returns directly).
        if (!interrupt) await run.chainRun.handleAgentEnd(finish);
        await run.chainRun.handleChainEnd({ ...event.returnValues, stopReason });
      } catch (error) {
        // A handler with `raiseError` refused the run's finish or end: the run fails with its error.
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
          run.dispatch({ type: "endRefused" });
          // The write failed: the run's end is recorded when the store answers (or not at all when
          // another process holds the run), so it is not left `running` until its lease runs out.
          await this.endRecording({ status: "failed", error: errorMessage(error) });
          if (!run.subscriber.closed) run.subscriber.error(error);
          return;
        }
      }
      let cancelled: Cancellation | undefined;
      try {
        const messages = runMessages(run.state.inputs, memory.inputKey, run.state.steps, output, event.messages);
        cancelled = await this.remember(memory.memory, run.state.threadId, messages);
      } catch (error) {
        run.dispatch({ type: "endRefused" });
        await this.endRecording({ status: "failed", error: `the conversation memory refused the run's messages: ${errorMessage(error)}` });
        if (!run.subscriber.closed) run.subscriber.error(error);
        return;
      }
      if (cancelled !== undefined) return this.cancelEnd(cancelled);
    }
    if (run.recorder) {
      try {
        await run.recorder.flush({ status: interrupt ? "interrupted" : "finished", stopReason, release: true });
      } catch (error) {
        run.dispatch({ type: "endRefused" });
        // As above: a last write that failed leaves the run `failed`, its lease released, where it
        // can (a last write that did land released the lease, so this one is refused).
        await this.endRecording({ status: "failed", error: errorMessage(error) });
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
   * Gives the memory the run's messages and awaits its write, unless the run is cancelled first
   * (or was, before the write began: the memory is then not called): resolves with that
   * cancellation at once, without waiting for a write that may never settle (the memory is given
   * no signal: docs/memory.md).
   */
  private remember(memory: ConversationMemory, threadId: string, messages: BaseMessage[]): Promise<Cancellation | undefined> {
    const { run } = this;
    return new Promise<Cancellation | undefined>((resolve, reject) => {
      let cancelled = false;
      const unwatch = run.onCancel((error, notify) => {
        cancelled = true;
        resolve({ error, notify });
      });
      if (cancelled) return;
      let writing: Promise<void>;
      try {
        // (A memory written without `async` returns nothing: that is a write done.)
        writing = Promise.resolve(memory.addMessages(threadId, messages, { runId: run.state.runId }));
      } catch (error) {
        unwatch();
        reject(error);
        return;
      }
      writing.then(
        () => {
          unwatch();
          resolve(undefined);
        },
        (error: unknown) => {
          unwatch();
          reject(error);
        },
      );
    });
  }

  /**
   * Ends a run cancelled while its memory took the messages of its answer: the run is `cancelled`
   * (its answer stays in its record, and a resume appends its messages: docs/memory.md), the
   * record says so, then (`notify`: its signal aborted) the subscriber errors.
   */
  private async cancelEnd({ error, notify }: Cancellation): Promise<void> {
    const { run } = this;
    run.dispatch({ type: "endCancelled" });
    await this.endRecording({ status: "cancelled", error: `${error.message} (while the conversation memory took the run's messages; the answer is recorded, and resuming the run appends them)` });
    if (notify && !run.subscriber.closed) run.subscriber.error(error);
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
