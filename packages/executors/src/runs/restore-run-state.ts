import type { Decision, InterruptEvent, OutputEvent } from "../executor/events";
import { applyRunEvent } from "../executor/reduce-run";
import { RUN_STATE_SCHEMA_VERSION, type RunState, initialRunState } from "../executor/run-state";
import { corrupt } from "./read-recorded-events";
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
 * Rebuilds a run's state from its recorded events by folding them through {@link reduceRun}, the
 * same function the live run changes through: the steps of every completed turn, the last turn's
 * actions with the results recorded so far (the tool calls still to run), the iterations made,
 * the usage so far and the wall time spent (from the last checkpoint).
 *
 * A record with a gap in its `seq`s, an unknown `schemaVersion`, or an event that cannot follow
 * from the state before it is refused, the same way `replayRun` refuses it: nothing runs from a
 * damaged record.
 *
 * @throws RunStoreError naming the run and the event when the record cannot be read or does not hold together
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
export function restoreRunState(info: RunInfo, events: readonly StoredRunEvent[], operation = "resume"): RestoredRun {
  const { runId } = info;
  const version = info.checkpoint?.schemaVersion;
  if (version !== undefined && !KNOWN_SCHEMA_VERSIONS.includes(version)) {
    throw new RunStoreError({
      operation,
      runId,
      reason: "corrupt",
      message: `${operation}: run "${runId}" was recorded with schemaVersion ${JSON.stringify(version)}, which this version of @agentrx/executors does not know (it reads ${KNOWN_SCHEMA_VERSIONS.join(", ")}); nothing ran.`,
    });
  }
  const decoder = new RunEventDecoder(runId);
  let state = initialRunState(runId, info.threadId, decodeValue(info.inputs) as Record<string, unknown>);
  let output: OutputEvent | undefined;
  let lastSeq = 0;
  let modelCalls = 0;
  let interruptSeq: number | undefined;
  let decisions: Record<string, Decision> = {};
  let lastInterrupt: InterruptEvent | undefined;
  let pauseEvents: RestoredRun["pause"];
  for (const stored of events) {
    const seq = lastSeq + 1;
    if (stored === null || typeof stored !== "object" || stored.seq !== seq) {
      throw corrupt(operation, runId, seq, `it is missing or out of order (the record has ${describeSeq(stored)} where event ${seq} belongs)`);
    }
    let event;
    try {
      event = decoder.decode(stored);
    } catch (cause) {
      throw corrupt(operation, runId, seq, `it cannot be read: ${(cause as Error).message}`, cause);
    }
    if (seq === 1 && event.type !== "start") throw corrupt(operation, runId, seq, `a record starts with a "start" event, not "${event.type}"`);
    try {
      applyRunEvent(state, event);
    } catch (cause) {
      throw corrupt(operation, runId, seq, `it does not follow from the run's state: ${(cause as Error).message}`, cause);
    }
    lastSeq = seq;
    if ((event as { subRun?: unknown }).subRun !== undefined) continue; // a sub-run's: not this run's ends
    switch (event.type) {
      case "start":
        pauseEvents = undefined; // a later segment: the pause before it was resumed
        output = undefined;
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
        interruptSeq = stored.seq;
        decisions = {};
        break;
      case "decisions":
        Object.assign(decisions, event.decisions);
        break;
    }
  }
  if (info.eventCount !== undefined && info.eventCount > lastSeq) {
    throw corrupt(operation, runId, lastSeq + 1, `it is missing (the run records ${info.eventCount} events, the store returned ${lastSeq})`);
  }
  state = { ...state, elapsedMs: info.checkpoint?.elapsedMs ?? 0 };
  const turn = state.turn;
  const open: Record<string, Decision> = {};
  for (const interrupt of state.interrupts) {
    if (decisions[interrupt.id] !== undefined && turn?.results[interrupt.index] === undefined) open[interrupt.id] = decisions[interrupt.id] as Decision;
  }
  if (state.phase === "interrupted") {
    output = undefined;
  } else {
    pauseEvents = undefined;
    if (output?.stopReason === "interrupted") output = undefined;
  }
  if (state.phase === "done") state.turn = undefined;
  else if (state.phase !== "interrupted") {
    // Not ended: it goes on from where the record stops (a halted run is ended by its output).
    state.phase = state.turn === undefined ? "agent" : "tools";
    state.stopReason = undefined;
  }
  return { state, output: state.phase === "done" ? output : undefined, pause: pauseEvents, lastSeq, modelCalls, decisions: open, interruptSeq };
}

/** The run state schema versions a record may carry: 1 (no change since). */
const KNOWN_SCHEMA_VERSIONS: readonly number[] = [RUN_STATE_SCHEMA_VERSION];

function describeSeq(event: unknown): string {
  const seq = (event as { seq?: unknown } | null)?.seq;
  return typeof seq === "number" ? `event ${seq}` : "an event without a seq";
}
