import type { AgentAction } from "@agentrx/core";
import type { RecordedDecisions, RecordedModelCall, RecordedToolIntent } from "../runs/run-event-codec";
import type { AgentStreamEvent } from "./events";
import { messageStepOf } from "../steering/message-step-of";
import { type RunState, type RunTransition, transition } from "./run-state";

/**
 * What changes a run: the events of its record (what it emitted, plus the record-only entries)
 * and the loop's own named transitions (an agent call starting, a halt, a cancellation), which
 * leave no event of their own.
 */
export type RunEvent = AgentStreamEvent | RecordedModelCall | RecordedDecisions | RecordedToolIntent;

/** A recorded event that cannot follow from the run's state (a damaged or edited record). */
export class RunEventOrderError extends TypeError {
  override readonly name = "RunEventOrderError";
}

/**
 * The one function through which a run changes: the state after `event`. Pure: `state` is not
 * changed (the result shares the unchanged parts). A live run applies each transition and event
 * through the same code (in place, see {@link applyRunEvent}); `restoreRunState` folds a record
 * through it, so a restored run equals the live one by construction.
 *
 * @throws RunEventOrderError when the event cannot follow from the state (a step for an action
 *   that was never recorded, an action recorded twice or out of its turn's order, a turn of an
 *   iteration that ended or that skips agent calls, an interrupt for an action never recorded,
 *   decisions without a pause, a turn that starts while another waits for results)
 *
 * @example
 * ```ts
 * import { initialRunState, reduceRun } from "@agentrx/executors";
 *
 * let state = initialRunState("run-1", undefined, { input: "hi" });
 * const action = { tool: "search", toolInput: { q: "hi" }, log: "" };
 * state = reduceRun(state, { type: "action", iteration: 0, index: 0, action, messages: [], at: 0 });
 * state = reduceRun(state, { type: "step", iteration: 0, index: 0, step: { action, observation: "found" }, messages: [], durationMs: 1, at: 1 });
 * console.log(state.steps.length, state.iteration); // 1 1
 * ```
 */
export function reduceRun(state: RunState, event: RunEvent | RunTransition): RunState {
  const next: RunState = {
    ...state,
    turn: state.turn === undefined ? undefined : { ...state.turn, actions: state.turn.actions.slice(), results: state.turn.results.slice() },
  };
  // (`earlyCalls` is replaced, never mutated: it is shared as it is.)
  applyRunEvent(next, event);
  return next;
}

/**
 * {@link reduceRun} in place: what the live run uses on its hot path (its collaborators share the
 * state object). `steps` is replaced, never mutated.
 *
 * @internal
 */
export function applyRunEvent(state: RunState, event: RunEvent | RunTransition): void {
  if ((event as { subRun?: unknown }).subRun !== undefined) {
    // A sub-run's event (an executor called as a tool): only its usage is this run's too.
    if (event.type === "usage") transition(state, { type: "usageReported", usage: event.usage });
    return;
  }
  switch (event.type) {
    case "start":
      // The first segment's start carries the inputs; a later one (a resume) changes nothing itself.
      if (state.iteration === 0 && state.steps.length === 0 && state.turn === undefined) state.inputs = event.inputs;
      return;
    case "action": {
      const index = event.index ?? 0;
      let turn = state.turn;
      if (turn === undefined || turn.iteration !== event.iteration) {
        if (turn !== undefined && turn.results.some((result, i) => result === undefined && turn?.actions[i] !== undefined)) {
          throw new RunEventOrderError(`an action of iteration ${event.iteration} starts a turn while the turn of iteration ${turn.iteration} still waits for results`);
        }
        if (event.iteration < state.iteration - 1) throw new RunEventOrderError(`an action of iteration ${event.iteration} comes after iteration ${state.iteration - 1}`);
        // A turn that ended is not asked for again (a copied action would run its tool twice).
        const ended = state.endedTurn;
        if (ended !== undefined && event.iteration <= ended.iteration) {
          throw new RunEventOrderError(`action ${index} of iteration ${event.iteration} comes after the turn of iteration ${ended.iteration} ended (the action is already recorded, or out of order)`);
        }
        // Nor far ahead of the agent calls recorded (an iteration 7 right after 0).
        refuseSkippedCalls(state, event.iteration, "an action");
        if (index !== 0) throw new RunEventOrderError(`action ${index} of iteration ${event.iteration} comes before action 0 of its turn`);
        turn = { iteration: event.iteration, actions: [], results: [] };
        state.turn = turn;
        // The turn's recorded actions supersede the early calls before them (the live run kept the
        // ones the answer asked for, by the same id, and aborted the others).
        if (state.earlyCalls !== undefined) state.earlyCalls = undefined;
      } else if (index !== turn.actions.length) {
        // A turn's actions are recorded in order, all before its first result.
        throw new RunEventOrderError(
          index < turn.actions.length
            ? `action ${index} of iteration ${event.iteration} is already recorded (a second copy would run its tool twice)`
            : `action ${index} of iteration ${event.iteration} comes before action ${turn.actions.length} of its turn`,
        );
      } else if (turn.results.some((result) => result !== undefined)) {
        throw new RunEventOrderError(`action ${index} of iteration ${event.iteration} comes after a result of its turn`);
      }
      turn.actions[index] = event.action;
      turn.results.length = turn.actions.length;
      if (event.partialTurn === true) state.partialIn = event.iteration;
      // The key its call had (undefined: recorded before keys were); copied, not changed: `reduceRun` is pure.
      const keys = turn.keys === undefined ? [] : turn.keys.slice();
      keys[index] = event.idempotencyKey;
      turn.keys = keys;
      state.iteration = Math.max(state.iteration, event.iteration + 1);
      if (state.phase === "agent") state.phase = "tools";
      return;
    }
    case "step": {
      if (event.index === undefined) {
        // A handled parsing error (or an answer that failed the output schema): its own iteration.
        refuseSkippedCalls(state, event.iteration, "a parsing-error step");
        transition(state, { type: "parsingErrorHandled", step: event.step });
        state.iteration = Math.max(state.iteration, event.iteration + 1);
        return;
      }
      const turn = state.turn;
      if (turn === undefined || turn.iteration !== event.iteration || turn.actions[event.index] === undefined) {
        throw new RunEventOrderError(`a step of action ${event.index} of iteration ${event.iteration} has no recorded action in the current turn`);
      }
      if (turn.results[event.index] !== undefined) throw new RunEventOrderError(`action ${event.index} of iteration ${event.iteration} has two results`);
      // A rejected call's step says so: the turn never returns directly, also in a fork's copy (which holds no decisions).
      if (event.metadata?.["rejected"] === true) transition(state, { type: "callRejected", iteration: event.iteration });
      // So does a call whose input was refused (its tool never ran), and a handoff whose other agent did not answer.
      if (event.metadata?.["refusedInput"] === true || event.metadata?.["handoffFailed"] === true) transition(state, { type: "inputRefused", iteration: event.iteration });
      // The turn's action is the authority (a person may have edited its input before it ran).
      transition(state, { type: "toolFinished", index: event.index, step: { action: turn.actions[event.index] as AgentAction, observation: event.step.observation } });
      return;
    }
    case "usage":
      transition(state, { type: "usageReported", usage: event.usage });
      return;
    case "model_call":
    case "token":
      refuseSkippedCalls(state, event.iteration, event.type === "token" ? "a token" : "a model call");
      // An agent call counts once its outcome is recorded (its turn, a parsing error, an early tool
      // call, its answer), not by what its model streamed or answered: a call cut off before its
      // outcome (a cancellation, a process that died) is made again, as the same iteration, as when
      // the same cut leaves no tokens (`invoke`). Its entries show the calls before it were made.
      // (The checkpoint each write carries counts by the same rule, from the entries as they are
      // recorded: `callsShown` in runs/run-recorder.ts. Change both together.)
      state.iteration = Math.max(state.iteration, event.iteration);
      // A later agent call streams: the early calls of an earlier one were taken or dropped.
      if (state.earlyCalls !== undefined && state.earlyCalls.iteration < event.iteration) state.earlyCalls = undefined;
      return;
    case "tool_intent":
      // An early call (`eagerTools`) recorded as it started: in doubt until its turn is recorded.
      if (state.turn !== undefined) throw new RunEventOrderError(`an early tool call of iteration ${event.iteration} starts while the turn of iteration ${state.turn.iteration} still waits for results`);
      refuseSkippedCalls(state, event.iteration, "an early tool call");
      transition(state, { type: "earlyCallStarted", iteration: event.iteration, action: event.action, key: event.idempotencyKey });
      return;
    case "middleware":
      return;
    case "compaction":
      transition(state, { type: "compacted", compaction: { steps: event.steps, summary: event.summary } });
      return;
    case "message":
      // A message joins between turns, never while a turn waits for its tools' results.
      if (state.turn !== undefined) throw new RunEventOrderError(`a message joins the run while the turn of iteration ${state.turn.iteration} still waits for results`);
      transition(state, { type: "messageAdded", step: messageStepOf(event) });
      // Its iteration is the run's count of agent calls as it joined: one whose answer it sent on
      // back to the model counts, though that call left no other entry. (A hand-made record's
      // message without one counts nothing.)
      if (event.iteration !== undefined) {
        refuseSkippedCalls(state, event.iteration, "a message");
        state.iteration = Math.max(state.iteration, event.iteration);
      }
      return;
    case "interrupt": {
      const turn = state.turn;
      if (turn === undefined) throw new RunEventOrderError("a pause (interrupt) without a turn waiting for its tools");
      for (const interrupt of event.interrupts) {
        if (interrupt.iteration === turn.iteration && turn.actions[interrupt.index] === undefined) {
          throw new RunEventOrderError(`the interrupt "${interrupt.id}" waits for action ${interrupt.index} of iteration ${turn.iteration}, which is not recorded`);
        }
      }
      const waiting = event.interrupts.filter((interrupt) => interrupt.iteration === turn.iteration && turn.results[interrupt.index] === undefined);
      transition(state, { type: "paused", interrupts: waiting });
      return;
    }
    case "decisions":
      if (state.phase !== "interrupted" || state.interrupts.length === 0) throw new RunEventOrderError("decisions recorded while the run waits for none");
      for (const id of Object.keys(event.decisions)) {
        if (!state.interrupts.some((interrupt) => interrupt.id === id)) throw new RunEventOrderError(`a decision for "${id}", which the run does not wait for`);
      }
      transition(state, { type: "resumed" });
      for (const interrupt of state.interrupts) {
        const decision = event.decisions[interrupt.id];
        // A sub-run's interrupt: its decision is the sub-run's (its own record has it), not this run's call's.
        if (typeof decision !== "object" || interrupt.subRun !== undefined) continue;
        if (decision.type === "edit") transition(state, { type: "inputEdited", index: interrupt.index, toolInput: decision.toolInput });
        // As the live run's approval gate: a rejection keeps its turn from returning directly.
        else if (decision.type === "reject") transition(state, { type: "callRejected", iteration: interrupt.iteration });
      }
      return;
    case "output":
      if (event.iterations !== undefined) state.iteration = Math.max(state.iteration, event.iterations);
      if (event.stopReason === "interrupted") {
        if (state.phase !== "interrupted") throw new RunEventOrderError("a paused output without its interrupt");
        return;
      }
      if (state.phase === "done") throw new RunEventOrderError("a second output");
      // What stopped the run is in the state as the live run had it when it halted.
      if (event.stoppedBy !== undefined) state.stoppedBy = event.stoppedBy;
      if (event.generateError !== undefined) state.generateError = event.generateError;
      transition(state, { type: "finished", stopReason: event.stopReason });
      return;
    default:
      transition(state, event);
  }
}

/**
 * Refuses an entry of the agent call of `iteration` when that is not a count, or when the record
 * has no entry of the calls before it. Every agent call whose outcome the run kept leaves one (its
 * turn, a parsing error, an early tool call, or the message that sent its answer back), so
 * `state.iteration` counts them; a call cut off before its outcome does not count (its tokens and
 * model call do not), and the "generate" call after a call a halt cut short is one further on.
 */
function refuseSkippedCalls(state: RunState, iteration: number, what: string): void {
  if (!Number.isSafeInteger(iteration) || iteration < 0) throw new RunEventOrderError(`${what} has an iteration that is not a whole number from 0 up: ${String(iteration)}`);
  if (iteration > state.iteration + 1) {
    throw new RunEventOrderError(`${what} of iteration ${iteration} comes after ${state.iteration} agent call(s): the agent calls between are not recorded`);
  }
}
