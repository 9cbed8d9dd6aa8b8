import type { Decision, InterruptEvent, OutputEvent } from "../executor/events";
import { type RunEvent, applyRunEvent } from "../executor/reduce-run";
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
  /**
   * The ids among {@link RestoredRun.decisions} recorded while the run was paused, before any
   * segment started with them (`recordDecisions`): their calls never started (a segment's start
   * is durable before any of its tools runs), so they are not in doubt. A resume's own decisions
   * are recorded after its segment's `start`, and are not among these.
   */
  unstartedDecisions: string[];
  /** The `seq` of the last `interrupt` event, if the run ever paused. */
  interruptSeq: number | undefined;
  /** The `traceparent` of the last traced segment's span (its checkpoint's), for the resumed segment's span (or a fork's first) to link to. */
  traceparent?: string;
}

/**
 * Rebuilds a run's state from its recorded events by folding them through {@link reduceRun}, the
 * same function the live run changes through: the steps of every completed turn, the last turn's
 * actions with the results recorded so far (the tool calls still to run), the iterations made,
 * the usage so far and the wall time spent (from the last checkpoint).
 *
 * A record with a gap in its `seq`s, an unknown `schemaVersion`, or an event that cannot follow
 * from the state before it is refused, the same way `replayRun` refuses it: nothing runs from a
 * damaged record. This release reads records whose checkpoint has `schemaVersion` 1 (an earlier
 * release's, read as before) or 2 (`RUN_STATE_SCHEMA_VERSION`, its own); one above is a newer
 * release's, refused with reason `"unsupported"`.
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
  const fold = new RunRecordFold(info, operation);
  for (const stored of events) fold.add(stored);
  return fold.finish();
}

/**
 * {@link restoreRunState} one event at a time, for a reader that goes through a record page by
 * page (`replayRun`): the constructor refuses an unknown `schemaVersion`, {@link RunRecordFold.add}
 * an event that is missing, cannot be read or cannot follow from the state before it, each with
 * the same `RunStoreError` (`reason: "corrupt"`) naming `operation`, the run and the event.
 *
 * @internal
 */
export class RunRecordFold {
  private readonly runId: string;
  private readonly decoder: RunEventDecoder;
  private state: RunState;
  private output: OutputEvent | undefined;
  private lastSeq = 0;
  private modelCalls = 0;
  private interruptSeq: number | undefined;
  private decisions: Record<string, Decision> = {};
  /** Ids decided while paused, with no segment started since (see `RestoredRun.unstartedDecisions`). */
  private unstarted = new Set<string>();
  /** Whether the run paused and no segment started since. */
  private paused = false;
  private lastInterrupt: InterruptEvent | undefined;
  private pauseEvents: RestoredRun["pause"];

  /**
   * @throws RunStoreError when the run's checkpoint has a `schemaVersion` this version does not know
   * (`reason: "unsupported"` for one above every known version, written by a newer release)
   */
  constructor(
    private readonly info: RunInfo,
    private readonly operation = "resume",
  ) {
    const { runId } = info;
    this.runId = runId;
    const version = info.checkpoint?.schemaVersion;
    if (version !== undefined && !KNOWN_SCHEMA_VERSIONS.includes(version)) {
      throw new RunStoreError({
        operation,
        runId,
        // A version above every known one was written by a newer release (a rolling deploy), not damaged.
        reason: isNewerVersion(version) ? "unsupported" : "corrupt",
        message: `${operation}: run "${runId}" was recorded with schemaVersion ${JSON.stringify(version)}, which this version of @agentrx/executors does not know (it reads ${KNOWN_SCHEMA_VERSIONS.join(", ")}); nothing ran.${isNewerVersion(version) ? " A newer release of @agentrx/executors wrote it: go on with that release." : ""}`,
      });
    }
    this.decoder = new RunEventDecoder(runId);
    this.state = initialRunState(runId, info.threadId, decodeValue(info.inputs) as Record<string, unknown>);
  }

  /**
   * Folds the record's next event into the state; returns it decoded.
   * @throws RunStoreError when the event is missing or out of order, cannot be read, or cannot follow from the state
   */
  add(stored: StoredRunEvent): RunEvent {
    const { operation, runId, state } = this;
    const seq = this.lastSeq + 1;
    if (stored === null || typeof stored !== "object" || stored.seq !== seq) {
      throw corrupt(operation, runId, seq, `it is missing or out of order (the record has ${describeSeq(stored)} where event ${seq} belongs)`);
    }
    let event;
    try {
      event = this.decoder.decode(stored);
    } catch (cause) {
      throw corrupt(operation, runId, seq, `it cannot be read: ${(cause as Error).message}`, cause);
    }
    if (seq === 1 && event.type !== "start") throw corrupt(operation, runId, seq, `a record starts with a "start" event, not "${event.type}"`);
    try {
      applyRunEvent(state, event);
    } catch (cause) {
      throw corrupt(operation, runId, seq, `it does not follow from the run's state: ${(cause as Error).message}`, cause);
    }
    this.lastSeq = seq;
    if ((event as { subRun?: unknown }).subRun !== undefined) return event; // a sub-run's: not this run's ends
    switch (event.type) {
      case "start":
        this.pauseEvents = undefined; // a later segment: the pause before it was resumed
        this.output = undefined;
        this.paused = false;
        this.unstarted.clear(); // the decisions before it went into this segment: its calls may have started
        break;
      case "output":
        this.output = event;
        if (event.stopReason === "interrupted" && this.lastInterrupt !== undefined) this.pauseEvents = { interrupt: this.lastInterrupt, output: event };
        break;
      case "model_call":
        this.modelCalls++;
        break;
      case "interrupt":
        this.lastInterrupt = event;
        this.interruptSeq = stored.seq;
        this.decisions = {};
        this.unstarted.clear();
        this.paused = true;
        break;
      case "decisions":
        Object.assign(this.decisions, event.decisions);
        if (this.paused) for (const id of Object.keys(event.decisions)) this.unstarted.add(id);
        break;
    }
    return event;
  }

  /**
   * The run rebuilt from the events added (the fold is spent after).
   * @throws RunStoreError when the run records more events than were added
   */
  finish(): RestoredRun {
    const { operation, runId, info, lastSeq, decisions } = this;
    if (info.eventCount !== undefined && info.eventCount > lastSeq) {
      throw corrupt(operation, runId, lastSeq + 1, `it is missing (the run records ${info.eventCount} events, the store returned ${lastSeq})`);
    }
    const state = { ...this.state, elapsedMs: info.checkpoint?.elapsedMs ?? 0 };
    let { output, pauseEvents } = this;
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
    const unstartedDecisions = [...this.unstarted].filter((id) => open[id] !== undefined);
    const restored: RestoredRun = { state, output: state.phase === "done" ? output : undefined, pause: pauseEvents, lastSeq, modelCalls: this.modelCalls, decisions: open, unstartedDecisions, interruptSeq: this.interruptSeq };
    const traceparent = info.checkpoint?.traceparent;
    if (typeof traceparent === "string") restored.traceparent = traceparent;
    return restored;
  }
}

/**
 * The run state schema versions this release reads (in records' checkpoints and serialized
 * states): 1, folded as before, and {@link RUN_STATE_SCHEMA_VERSION}, the one it writes (see there).
 *
 * @internal
 */
export const KNOWN_SCHEMA_VERSIONS: readonly number[] = [1, RUN_STATE_SCHEMA_VERSION];

function describeSeq(event: unknown): string {
  const seq = (event as { seq?: unknown } | null)?.seq;
  return typeof seq === "number" ? `event ${seq}` : "an event without a seq";
}

/** Whether a checkpoint's `schemaVersion` is a whole number above every version this release reads. */
function isNewerVersion(version: unknown): boolean {
  return Number.isInteger(version) && (version as number) > Math.max(...KNOWN_SCHEMA_VERSIONS);
}
