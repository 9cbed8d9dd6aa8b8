import type { AgentStreamEvent, RunMessageEvent } from "../executor/events";
import type { RunState, RunTransition } from "../executor/run-state";
import { messageStepOf } from "./message-step-of";
import type { RunSteering } from "./run-steering";

/** What joining messages needs of the run. @internal */
export interface JoinMessagesContext {
  readonly state: RunState;
  readonly steering: RunSteering | undefined;
  /** Whether the run was halted, cancelled or failed. */
  readonly interrupted: boolean;
  dispatch(event: RunTransition): void;
  emit(event: AgentStreamEvent): void;
  wait<T>(promise: Promise<T>, halts: boolean): Promise<T>;
  schedule(): void;
  /** Waits until everything recorded so far is durable; false when the run was halted or ended meanwhile. */
  durable(): Promise<boolean> | boolean;
}

/**
 * At a turn boundary: the messages sent to the run since the last boundary join it, each as a
 * `message` event (recorded) and a message step the agent sees on its next call. Resolves with how
 * many joined; `undefined` when none can be waiting (nothing to await). `unanswered`: the run makes
 * no further agent call, and the events say so; `halts`: a halt stops the wait (not while the run
 * is already ending after one). With `halts` and not `unanswered` the loop calls the agent next:
 * the promise then resolves only once the `message` events are in the run's record (write-ahead,
 * see docs/runs.md), so a model call never starts with a message the record does not have. A
 * halt that ends the wait resolves with 0: what was read stays waiting, and joins as the run ends.
 *
 * @internal
 */
export function joinMessages(run: JoinMessagesContext, { unanswered = false, halts = true }: { unanswered?: boolean; halts?: boolean } = {}): Promise<number> | undefined {
  const steering = run.steering;
  const pending = steering?.take();
  if (steering === undefined || pending === undefined) return undefined;
  return run.wait(pending, halts).then(
    (messages) => {
      for (const { message, inboxSeq } of messages) {
        const event: RunMessageEvent = { type: "message", message, iteration: run.state.iteration, at: Date.now() };
        if (inboxSeq !== undefined) event.inboxSeq = inboxSeq;
        if (unanswered) event.unanswered = true;
        run.dispatch({ type: "messageAdded", step: messageStepOf(event) });
        run.emit(event);
      }
      steering.taken(messages);
      if (messages.length === 0) return 0;
      if (unanswered || !halts) {
        // No agent call follows at once: the run's end, or its one "generate" call, which waits for
        // the record itself, writes them.
        run.schedule();
        return messages.length;
      }
      const durable = run.durable();
      return typeof durable === "boolean" ? messages.length : durable.then(() => messages.length);
    },
    (error: unknown) => {
      // Halted (a time limit, a budget) while the inbox was read: the run stops gracefully, and
      // what was read stays waiting; it joins as the run ends. Any other failure fails the run.
      if (run.interrupted) return 0;
      throw error;
    },
  );
}
