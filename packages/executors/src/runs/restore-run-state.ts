import type { AgentStep } from "@agentrx/core";
import type { Decision, Interrupt, InterruptEvent, OutputEvent } from "../executor/events";
import { type RunState, addUsage, initialRunState } from "../executor/run-state";
import { decodeValue } from "./json-value";
import { RunEventDecoder } from "./run-event-codec";
import type { RunInfo, StoredRunEvent } from "./run-store";
import { RunStoreError } from "./run-store-errors";

/** A run rebuilt from its record: the state to continue from, or its recorded output. */
export interface RestoredRun {
  state: RunState;
  /** The recorded `output` event, when the run has ended (a pause is not an end). */
  output: OutputEvent | undefined;
  /** The pause the run is in (its `interrupt` and `output` events), when it is paused. */
  pause: { interrupt: InterruptEvent; output: OutputEvent } | undefined;
  /** The `seq` of the last recorded event. */
  lastSeq: number;
  /** How many model calls are recorded (a resumed segment numbers its calls on from there). */
  modelCalls: number;
  /** Decisions recorded for the waiting interrupts whose tool calls have not run yet (a resume that died). */
  decisions: Record<string, Decision>;
  /** The `seq` of the last `interrupt` event, if the run ever paused. */
  interruptSeq: number | undefined;
}

/**
 * Rebuilds a run's state from its recorded events: the steps of every completed turn, the last
 * turn's actions with the results recorded so far (the tool calls still to run), the iterations
 * made, the usage so far and the wall time spent (from the last checkpoint).
 *
 * @throws RunStoreError naming the run and the event when the record cannot be read
 *
 * @example
 * ```ts
 * import { restoreRunState, type RunStore } from "@agentrx/executors";
 *
 * async function stepsSoFar(store: RunStore, runId: string): Promise<number> {
 *   const info = await store.getRun(runId);
 *   if (!info) return 0;
 *   return restoreRunState(info, await store.readEvents(runId)).state.steps.length;
 * }
 * ```
 */
export function restoreRunState(info: RunInfo, events: readonly StoredRunEvent[]): RestoredRun {
  const { runId } = info;
  const decoder = new RunEventDecoder(runId);
  const state = initialRunState(runId, info.threadId, decodeValue(info.inputs) as Record<string, unknown>);
  let output: OutputEvent | undefined;
  let lastIteration = -1;
  let lastTurn = -1;
  let lastSeq = 0;
  let modelCalls = 0;
  let interrupts: Interrupt[] = [];
  let interruptSeq: number | undefined;
  let decisions: Record<string, Decision> = {};
  let lastInterrupt: InterruptEvent | undefined;
  let pauseEvents: RestoredRun["pause"];
  for (const stored of events) {
    let event;
    try {
      event = decoder.decode(stored);
    } catch (cause) {
      throw new RunStoreError({
        operation: "resume",
        runId,
        message: `Run "${runId}": recorded event ${stored.seq} cannot be read: ${(cause as Error).message}`,
        cause,
      });
    }
    lastSeq = stored.seq;
    switch (event.type) {
      case "start":
        if (stored.seq === 1) state.inputs = event.inputs;
        pauseEvents = undefined; // a later segment: the pause before it was resumed
        output = undefined;
        break;
      case "action":
        lastTurn = Math.max(lastTurn, event.iteration);
        lastIteration = Math.max(lastIteration, event.iteration);
        break;
      case "step":
        lastIteration = Math.max(lastIteration, event.iteration);
        break;
      case "usage":
        state.usage = addUsage(state.usage, event.usage);
        break;
      case "output":
        output = event;
        if (event.stopReason === "interrupted" && lastInterrupt !== undefined) pauseEvents = { interrupt: lastInterrupt, output: event };
        break;
      case "model_call":
        modelCalls++;
        break;
      case "interrupt":
        lastInterrupt = event;
        interrupts = event.interrupts;
        interruptSeq = stored.seq;
        decisions = {};
        break;
      case "decisions":
        Object.assign(decisions, event.decisions);
        break;
    }
  }
  state.iteration = lastIteration + 1;
  state.elapsedMs = info.checkpoint?.elapsedMs ?? 0;
  const actions = lastTurn >= 0 ? decoder.actionsOf(lastTurn) : undefined;
  const results = lastTurn >= 0 ? decoder.resultsOf(lastTurn) : undefined;
  const settled = actions !== undefined && results === undefined && decoder.steps.some((step) => step.action === actions[0]);
  if ((output === undefined || output.stopReason === "interrupted") && actions !== undefined && !settled && lastTurn === lastIteration) {
    state.turn = { iteration: lastTurn, actions: [...actions], results: results ? [...results] : new Array<AgentStep | undefined>(actions.length) };
    state.phase = "tools";
  }
  state.steps = decoder.steps.slice();
  const turn = state.turn;
  const waiting = turn === undefined ? [] : interrupts.filter((interrupt) => interrupt.iteration === turn.iteration && turn.results[interrupt.index] === undefined);
  state.interrupts = waiting;
  const open: Record<string, Decision> = {};
  for (const interrupt of waiting) if (decisions[interrupt.id] !== undefined) open[interrupt.id] = decisions[interrupt.id] as Decision;
  if (pauseEvents !== undefined) {
    state.phase = "interrupted";
    state.stopReason = "interrupted";
    output = undefined;
  } else if (output?.stopReason === "interrupted") {
    output = undefined;
  }
  return { state, output, pause: pauseEvents, lastSeq, modelCalls, decisions: open, interruptSeq };
}
