import type { AgentStep } from "@agentrx/core";
import { RUN_STATE_SCHEMA_VERSION, type RunPhase, type RunState } from "../executor/run-state";
import type { StopReason } from "../executor/events";
import { decodeObservation, decodeValue, encodeObservation, encodeValue } from "./json-value";
import { KNOWN_SCHEMA_VERSIONS } from "./restore-run-state";
import { decodeAction, encodeAction } from "./run-event-codec";
import type { JsonObject, JsonValue } from "./run-store";

/** A {@link RunState} as plain JSON (what `serializeRunState` returns). */
export interface SerializedRunState {
  schemaVersion: number;
  runId: string;
  threadId?: string;
  inputs: JsonValue;
  steps: JsonObject[];
  iteration: number;
  turn?: { iteration: number; actions: JsonObject[]; results: (JsonObject | null)[] };
  usage?: JsonValue;
  elapsedMs: number;
  phase: RunPhase;
  stopReason?: StopReason;
  interrupts?: JsonValue;
  /** The latest compaction (`compactSteps`). */
  compaction?: { steps: number; summary: string };
  /** Early tool calls (`eagerTools`) whose turn is not recorded yet. */
  earlyCalls?: { iteration: number; actions: JsonObject[] };
  /** The iteration of the turn in which a person rejected a tool call. */
  rejectedIn?: number;
  /** The iteration of the turn in which a tool call's input was refused (its tool never ran). */
  refusedInputIn?: number;
  /** The iteration of a turn made of early tool calls, not of a whole answer of the model. */
  partialIn?: number;
  /** The last turn whose calls all have results, and where its steps are in `steps`. */
  endedTurn?: { iteration: number; from: number; count: number };
}

const PHASES: readonly RunPhase[] = ["agent", "tools", "stopping", "done", "interrupted", "cancelled", "failed"];

/**
 * A run's state as plain JSON, with the `schemaVersion` this release writes
 * (`RUN_STATE_SCHEMA_VERSION`, whatever the state's own says): messages (a tool-calling action's
 * `messageLog`, messages in the inputs) in `@langchain/core`'s stored-message form.
 *
 * @example
 * ```ts
 * import { deserializeRunState, serializeRunState, type RunState } from "@agentrx/executors";
 *
 * declare const state: RunState;
 * const copy = deserializeRunState(JSON.parse(JSON.stringify(serializeRunState(state))));
 * ```
 */
export function serializeRunState(state: RunState): SerializedRunState {
  const out: SerializedRunState = {
    schemaVersion: RUN_STATE_SCHEMA_VERSION,
    runId: state.runId,
    inputs: encodeValue(state.inputs, "inputs"),
    steps: state.steps.map(encodeStep),
    iteration: state.iteration,
    elapsedMs: state.elapsedMs,
    phase: state.phase,
  };
  if (state.threadId !== undefined) out.threadId = state.threadId;
  if (state.turn !== undefined) {
    out.turn = {
      iteration: state.turn.iteration,
      actions: state.turn.actions.map(encodeAction),
      results: Array.from(state.turn.results, (step) => (step === undefined ? null : { observation: encodeObservation(step.observation) })),
    };
  }
  if (state.usage !== undefined) out.usage = encodeValue(state.usage, "usage");
  if (state.stopReason !== undefined) out.stopReason = state.stopReason;
  if (state.interrupts.length > 0) out.interrupts = encodeValue(state.interrupts, "interrupts");
  if (state.compaction !== undefined) out.compaction = { steps: state.compaction.steps, summary: state.compaction.summary };
  if (state.earlyCalls !== undefined) out.earlyCalls = { iteration: state.earlyCalls.iteration, actions: state.earlyCalls.actions.map(encodeAction) };
  if (state.rejectedIn !== undefined) out.rejectedIn = state.rejectedIn;
  if (state.refusedInputIn !== undefined) out.refusedInputIn = state.refusedInputIn;
  if (state.partialIn !== undefined) out.partialIn = state.partialIn;
  if (state.endedTurn !== undefined) out.endedTurn = { ...state.endedTurn };
  return out;
}

/**
 * The {@link RunState} that {@link serializeRunState} serialized: by this release (`schemaVersion`
 * 2) or an earlier one (1, read as before). The state has this release's `schemaVersion`.
 *
 * @example
 * ```ts
 * import { deserializeRunState } from "@agentrx/executors";
 *
 * const state = deserializeRunState({ schemaVersion: 2, runId: "r1", inputs: { input: "hi" }, steps: [], iteration: 0, elapsedMs: 0, phase: "agent" });
 * console.log(state.runId, state.steps.length); // "r1" 0
 * ```
 *
 * @throws TypeError saying what is wrong, e.g. a `schemaVersion` this release does not read (one a newer release wrote)
 */
export function deserializeRunState(json: unknown): RunState {
  if (typeof json !== "object" || json === null) throw new TypeError("deserializeRunState: expected a serialized run state object.");
  const data = json as SerializedRunState;
  if (!KNOWN_SCHEMA_VERSIONS.includes(data.schemaVersion)) {
    throw new TypeError(`deserializeRunState: schemaVersion ${JSON.stringify(data.schemaVersion)} is not supported (this version of @agentrx/executors reads ${KNOWN_SCHEMA_VERSIONS.join(", ")}).`);
  }
  if (typeof data.runId !== "string" || !Array.isArray(data.steps) || !PHASES.includes(data.phase)) {
    throw new TypeError("deserializeRunState: the state has no runId, steps or known phase.");
  }
  const turn = data.turn;
  const actions = turn?.actions.map(decodeAction);
  return {
    schemaVersion: RUN_STATE_SCHEMA_VERSION,
    runId: data.runId,
    threadId: data.threadId,
    inputs: decodeValue(data.inputs) as Record<string, unknown>,
    steps: data.steps.map(decodeStep),
    iteration: data.iteration,
    turn:
      turn === undefined || actions === undefined
        ? undefined
        : {
            iteration: turn.iteration,
            actions,
            results: turn.results.map((result, index) =>
              result === null ? undefined : { action: actions[index] as AgentStep["action"], observation: decodeObservation(result["observation"]) as AgentStep["observation"] },
            ),
          },
    usage: data.usage === undefined ? undefined : (decodeValue(data.usage) as RunState["usage"]),
    elapsedMs: data.elapsedMs,
    phase: data.phase,
    stopReason: data.stopReason,
    interrupts: data.interrupts === undefined ? [] : (decodeValue(data.interrupts) as RunState["interrupts"]),
    ...(data.compaction === undefined ? {} : { compaction: { steps: data.compaction.steps, summary: data.compaction.summary } }),
    ...(data.earlyCalls === undefined ? {} : { earlyCalls: { iteration: data.earlyCalls.iteration, actions: data.earlyCalls.actions.map(decodeAction) } }),
    ...(data.rejectedIn === undefined ? {} : { rejectedIn: data.rejectedIn }),
    ...(data.refusedInputIn === undefined ? {} : { refusedInputIn: data.refusedInputIn }),
    ...(data.partialIn === undefined ? {} : { partialIn: data.partialIn }),
    ...(data.endedTurn === undefined ? {} : { endedTurn: { iteration: data.endedTurn.iteration, from: data.endedTurn.from, count: data.endedTurn.count } }),
  };
}

function encodeStep(step: AgentStep): JsonObject {
  return { action: encodeAction(step.action), observation: encodeObservation(step.observation) };
}

function decodeStep(data: JsonObject): AgentStep {
  return { action: decodeAction(data["action"]), observation: decodeObservation(data["observation"]) as AgentStep["observation"] };
}
