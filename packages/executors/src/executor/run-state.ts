import type { AgentAction, AgentStep } from "@agentrx/core";
import { addUsage, type RunUsage } from "../cost/cost";
import type { Interrupt, StepsCompaction, StopReason } from "./events";

/**
 * The version of {@link RunState}'s meaning that this release writes: every checkpoint it records
 * and every state `serializeRunState` returns carries it, and a release refuses a record or a
 * state whose version it does not read (`RunStoreError` with reason `"unsupported"` for a newer
 * one), rather than misread it.
 *
 * It moves when a record or a state would be misread by a release that reads only the versions
 * before: when it may hold something an older release would take for something else, or fold
 * into a different state. A change that older releases read right (a field they can safely
 * ignore) does not move it.
 *
 * - `1`: what earlier releases wrote.
 * - `2` (this release): a record may also hold interrupts of sub-runs (`subRun`), steps marked
 *   `refusedInput` or `handoffFailed` and partial turns of early tool calls, and an agent call
 *   whose outcome is not recorded (only its streamed tokens or its model call are) is made again
 *   on resume, not counted as an iteration. A release that reads only `1` would misread such a
 *   record (e.g. finish a run paused inside a sub-run without running the approved call).
 *
 * This release reads `1` and `2`; a `1` is read as before.
 */
export const RUN_STATE_SCHEMA_VERSION = 2;

/**
 * Where the loop is: `agent` (calling the agent, or about to), `tools` (running the tool calls of
 * `turn`), `stopping` (a limit or stop condition halted the loop: early stopping makes the output),
 * then one of the ends: `done`, `cancelled`, `failed`.
 */
export type RunPhase = "agent" | "tools" | "stopping" | "done" | "interrupted" | "cancelled" | "failed";

/** A tool call of the current turn waiting for a person's decision. */
export type PendingInterrupt = Interrupt;

/** The tool calls of the current turn and the results that came back so far (by action index). */
export interface RunTurn {
  /** The 0-based iteration (agent call) that asked for these actions. */
  iteration: number;
  actions: AgentAction[];
  /** `results[i]` is the step of `actions[i]` once its tool finished. */
  results: (AgentStep | undefined)[];
  /**
   * Set on a turn restored from a record: the idempotency key recorded with each action (an entry
   * is undefined when its action was recorded without one, by an older release). Absent on a live
   * turn, whose keys are made as its calls start (see docs/runs.md).
   */
  keys?: (string | undefined)[];
}

/**
 * The state of one run: plain data from which the run can be continued, changed only by named
 * transitions inside the executor. `serializeRunState` turns it into JSON; `restoreRunState`
 * rebuilds it from a run's record.
 *
 * @example
 * ```ts
 * import { serializeRunState, type RunState } from "@agentrx/executors";
 *
 * function checkpointOf(state: RunState): string {
 *   return JSON.stringify(serializeRunState(state));
 * }
 * ```
 */
export interface RunState {
  /**
   * The version of the state's meaning ({@link RUN_STATE_SCHEMA_VERSION}): `2` in every state this
   * release makes or reads (a version-1 state or record is read as a `2`, see there). `1` is
   * allowed so that code that builds a state with `schemaVersion: 1` still compiles; it is
   * serialized as `2`.
   */
  schemaVersion: 1 | 2;
  runId: string;
  threadId: string | undefined;
  inputs: Record<string, unknown>;
  /** Every completed step, in action order (a turn's steps are appended when the turn ends). */
  steps: AgentStep[];
  /**
   * Agent calls made so far: the 0-based iteration of the next agent call. A live run counts a call
   * as it starts; a run restored from its record counts the calls whose outcome is recorded (a call
   * cut off before its outcome, while its model streamed, is made again as the same iteration).
   */
  iteration: number;
  /** The turn whose tools are running, if any. */
  turn: RunTurn | undefined;
  /** Usage summed over the run's model calls (their costs too); undefined until a model reports usage. */
  usage: RunUsage | undefined;
  /** Wall time of the run's earlier segments (before a resume), in milliseconds. */
  elapsedMs: number;
  phase: RunPhase;
  /** Why the loop stopped (or will stop, while `phase` is `stopping`). */
  stopReason: StopReason | undefined;
  /** The current turn's tool calls that wait for a decision (while paused, and on resume). */
  interrupts: PendingInterrupt[];
  /** The latest summary of the run's first steps (`compactSteps`), if any; absent in older states. */
  compaction?: StepsCompaction | undefined;
  /** What stopped the run, when a stop condition or a middleware did (the output event's `stoppedBy`). */
  stoppedBy?: unknown;
  /** Why the "generate" early-stopping call failed, when it did (the output event's `generateError`). */
  generateError?: string | undefined;
  /**
   * Tool calls started early (`eagerTools`) while the agent call of `iteration` streamed, before
   * its turn was recorded: each recorded (`tool_intent`) before it started, none with a result. A
   * resume treats them as that turn's calls in doubt (see docs/runs.md); a recorded turn, or any
   * other outcome of the agent call, clears them.
   */
  earlyCalls?: { iteration: number; actions: AgentAction[]; keys?: (string | undefined)[] } | undefined;
  /** The iteration of the turn in which a person rejected a tool call: that turn never returns directly. */
  rejectedIn?: number | undefined;
  /**
   * The iteration of the turn in which a tool call's input was refused (its tool never ran, see
   * `StepMetadata.refusedInput`), or a handoff's other agent did not answer
   * (`StepMetadata.handoffFailed`): that turn never returns directly.
   */
  refusedInputIn?: number | undefined;
  /**
   * The iteration of a turn made of early tool calls (`eagerTools`) rather than of a whole answer
   * of the model: the finished calls a halt kept, or calls in doubt a resume settled. The model
   * never asked for that turn as a whole, so it never returns directly.
   */
  partialIn?: number | undefined;
  /**
   * The last turn whose calls all have their results: its iteration, and where its steps are in
   * `steps` (`from`, `count`). A run restored right after it (no agent call since: the process died
   * before the output) ends as the live run did when that turn returns directly.
   */
  endedTurn?: { iteration: number; from: number; count: number } | undefined;
}

/** The named transitions of a run; {@link transition} applies them. */
export type RunTransition =
  /** The agent is called for `state.iteration` (counts it). */
  | { type: "agentCalled" }
  /** The agent asked for `actions`: a turn starts. */
  | { type: "turnStarted"; actions: AgentAction[]; keys?: (string | undefined)[]; partial?: boolean }
  /** A tool call of the agent call of `iteration` starts early, while the model still streams (`eagerTools`). */
  | { type: "earlyCallStarted"; iteration: number; action: AgentAction; key?: string | undefined }
  /** A person rejected a tool call of the turn of `iteration`. */
  | { type: "callRejected"; iteration: number }
  /** A tool call of the turn of `iteration` had its input refused (its tool never ran), or was a handoff whose other agent did not answer. */
  | { type: "inputRefused"; iteration: number }
  /** The tool of `turn.actions[index]` finished with `step`; the last one ends the turn. */
  | { type: "toolFinished"; index: number; step: AgentStep }
  /** A message sent to the run joined it between turns: its step (see `messageStep`) is appended. */
  | { type: "messageAdded"; step: AgentStep }
  /** A handled output-parsing error: its step is appended at once. */
  | { type: "parsingErrorHandled"; step: AgentStep }
  /** A model call reported usage. */
  | { type: "usageReported"; usage: RunUsage }
  /** A limit or stop condition halted the loop; steps of a halted turn that finished are kept. */
  | { type: "halted"; reason: StopReason; stoppedBy?: unknown }
  /**
   * A middleware stopped a run a limit had halted (a guardrail tripped on the "generate" call's
   * answer): its stop, which never asks the model again, replaces the limit's.
   */
  | { type: "stopReplaced"; reason: StopReason; stoppedBy: unknown }
  /** The "generate" early-stopping call failed: the output says so. */
  | { type: "generateFailed"; message: string }
  /** The run produced its output. */
  | { type: "finished"; stopReason: StopReason }
  /** The run paused: these tool calls of the turn wait for a person's decision. */
  | { type: "paused"; interrupts: PendingInterrupt[] }
  /** Decisions came for these interrupts (on resume): they leave the waiting list. */
  | { type: "decided"; ids: readonly string[] }
  /** These tool calls of the current turn need a person's approval before they run. */
  | { type: "approvalRequested"; interrupts: PendingInterrupt[] }
  /** A person edited the input of the turn's action at `index` before approving it. */
  | { type: "inputEdited"; index: number; toolInput: unknown }
  /** A paused run goes on (decisions came). */
  | { type: "resumed" }
  /** An input filled in before the run starts (the conversation's history). */
  | { type: "inputAdded"; key: string; value: unknown }
  /** A middleware summarized the run's first steps (the agent sees the summary in their place). */
  | { type: "compacted"; compaction: StepsCompaction }
  | { type: "cancelled" }
  | { type: "failed" }
  /**
   * The run's end was refused after it finished or paused (a callback handler with `raiseError`,
   * the conversation memory, or the store would not take it): the run fails after all.
   */
  | { type: "endRefused" }
  /**
   * The run was cancelled after it had its answer, while its conversation memory took its
   * messages (see `RunEnding.complete`): it ends cancelled after all.
   */
  | { type: "endCancelled" };

/** A fresh state for a new run. */
export function initialRunState(runId: string, threadId: string | undefined, inputs: Record<string, unknown>): RunState {
  return {
    schemaVersion: RUN_STATE_SCHEMA_VERSION,
    runId,
    threadId,
    inputs,
    steps: [],
    iteration: 0,
    turn: undefined,
    usage: undefined,
    elapsedMs: 0,
    phase: "agent",
    stopReason: undefined,
    interrupts: [],
  };
}

/** Whether the run has ended (output, cancellation or failure). */
export function isEnded(state: RunState): boolean {
  const phase = state.phase;
  return phase === "done" || phase === "interrupted" || phase === "cancelled" || phase === "failed";
}

/**
 * The one place a run's state changes. Mutates `state` in place (the loop's hot path); `steps` is
 * replaced, never mutated, so a step list handed to an agent or a trim function stays as it was.
 */
export function transition(state: RunState, event: RunTransition): void {
  switch (event.type) {
    case "agentCalled":
      state.iteration++;
      if (state.earlyCalls !== undefined) state.earlyCalls = undefined; // a new agent call: the last one's early calls were taken or dropped
      return;
    case "turnStarted":
      state.turn = { iteration: state.iteration - 1, actions: event.actions, results: new Array(event.actions.length) };
      if (event.keys !== undefined) state.turn.keys = event.keys;
      if (event.partial === true) state.partialIn = state.turn.iteration;
      // (A run halted while the model streamed keeps its finished early calls as a turn: it stays `stopping`.)
      if (state.phase === "agent") state.phase = "tools";
      if (state.earlyCalls !== undefined) state.earlyCalls = undefined; // the turn's actions are the authority now
      return;
    case "earlyCallStarted": {
      const calls = state.earlyCalls;
      state.iteration = Math.max(state.iteration, event.iteration + 1);
      if (calls === undefined || calls.iteration !== event.iteration) {
        state.earlyCalls = event.key === undefined ? { iteration: event.iteration, actions: [event.action] } : { iteration: event.iteration, actions: [event.action], keys: [event.key] };
        return;
      }
      // The same call streamed again (the model call was retried): one call, under its first key
      // (the one a retry in doubt must reuse: the first start may have had its effect).
      const key = earlyCallKey(event.action);
      const actions = calls.actions.slice();
      let keys = calls.keys;
      const index = actions.findIndex((action) => earlyCallKey(action) === key);
      if (index >= 0) actions[index] = event.action;
      else {
        // (Keys only where one was recorded: an older release's intents have none.)
        if (event.key !== undefined || keys !== undefined) (keys = (keys ?? []).slice())[actions.length] = event.key;
        actions.push(event.action);
      }
      state.earlyCalls = keys === undefined ? { iteration: event.iteration, actions } : { iteration: event.iteration, actions, keys };
      return;
    }
    case "callRejected":
      state.rejectedIn = event.iteration;
      return;
    case "inputRefused":
      state.refusedInputIn = event.iteration;
      return;
    case "toolFinished": {
      const turn = state.turn;
      if (turn === undefined) return;
      turn.results[event.index] = readOnlyStep(event.step);
      for (let i = 0; i < turn.results.length; i++) if (turn.results[i] === undefined) return;
      state.endedTurn = { iteration: turn.iteration, from: state.steps.length, count: turn.results.length };
      state.steps = state.steps.concat(turn.results as AgentStep[]);
      state.turn = undefined;
      state.interrupts = []; // every call of the turn has its result: nothing waits any more
      if (state.phase === "tools") state.phase = "agent";
      return;
    }
    case "parsingErrorHandled":
    case "messageAdded":
      state.steps = state.steps.concat(readOnlyStep(event.step));
      if (state.earlyCalls !== undefined) state.earlyCalls = undefined;
      return;
    case "usageReported":
      state.usage = addUsage(state.usage, event.usage);
      return;
    case "halted":
      if (state.stopReason !== undefined || isEnded(state)) return;
      state.stopReason = event.reason;
      if (event.stoppedBy !== undefined) state.stoppedBy = event.stoppedBy;
      state.phase = "stopping";
      keepFinishedSteps(state);
      return;
    case "stopReplaced":
      if (state.phase !== "stopping") return;
      state.stopReason = event.reason;
      state.stoppedBy = event.stoppedBy;
      return;
    case "finished":
      keepFinishedSteps(state);
      if (state.earlyCalls !== undefined) state.earlyCalls = undefined;
      state.stopReason = event.stopReason;
      state.phase = "done";
      return;
    case "paused":
      state.interrupts = event.interrupts;
      state.stopReason = "interrupted";
      state.phase = "interrupted";
      return;
    case "approvalRequested":
      state.interrupts = event.interrupts;
      return;
    case "inputEdited": {
      const turn = state.turn;
      const action = turn?.actions[event.index];
      if (turn && action) turn.actions[event.index] = { ...action, toolInput: event.toolInput as AgentAction["toolInput"] };
      return;
    }
    case "inputAdded":
      state.inputs = { ...state.inputs, [event.key]: event.value };
      return;
    case "generateFailed":
      state.generateError = event.message;
      return;
    case "compacted":
      state.compaction = event.compaction;
      return;
    case "resumed":
      if (state.phase !== "interrupted") return;
      state.phase = state.turn ? "tools" : "agent";
      state.stopReason = undefined;
      return;
    case "decided": {
      const ids = new Set(event.ids);
      state.interrupts = state.interrupts.filter((interrupt) => !ids.has(interrupt.id));
      return;
    }
    case "cancelled":
      if (!isEnded(state)) state.phase = "cancelled";
      return;
    case "failed":
      if (!isEnded(state)) state.phase = "failed";
      return;
    case "endRefused":
      if (!isEnded(state) || state.phase === "done" || state.phase === "interrupted") state.phase = "failed";
      return;
    case "endCancelled":
      if (state.phase === "done") state.phase = "cancelled";
      return;
  }
}

/**
 * The steps of the turn that ended last, when no agent call came after it (the next one would be
 * its iteration + 1): what a restored run whose process died before its output goes on from.
 */
export function stepsOfEndedTurn(state: RunState): AgentStep[] | undefined {
  const ended = state.endedTurn;
  if (ended === undefined || state.turn !== undefined || ended.iteration !== state.iteration - 1) return undefined;
  return state.steps.slice(ended.from, ended.from + ended.count);
}

/**
 * A step as the run keeps it: frozen, with its action (and the action's input, and an observation
 * of content blocks) frozen too. The agent, the middleware hooks, the events and the result all
 * get the run's own step objects (a copy per call would cost every agent call a walk of the whole
 * list): an edit made in place would change what later calls and the result see while the record
 * keeps the original, so it throws instead (docs/middleware.md). A step's `messageLog` is left as
 * it is (its messages are @langchain/core's).
 */
function readOnlyStep(step: AgentStep): AgentStep {
  if (Object.isFrozen(step)) return step;
  const { action, observation } = step;
  if (typeof action === "object" && action !== null && !Object.isFrozen(action)) {
    const input = action.toolInput;
    if (typeof input === "object" && input !== null) Object.freeze(input);
    Object.freeze(action);
  }
  if (Array.isArray(observation)) Object.freeze(observation);
  return Object.freeze(step);
}

/** A halted turn ends with the steps that finished, in action order. */
function keepFinishedSteps(state: RunState): void {
  const turn = state.turn;
  if (turn === undefined) return;
  const done = turn.results.filter((step): step is AgentStep => step !== undefined);
  if (done.length > 0) state.steps = state.steps.concat(done);
  state.turn = undefined;
}

/**
 * How early calls are told apart: the model's tool call id, else the tool and its input (as eager
 * dispatch keys them).
 *
 * @internal
 */
export function earlyCallKey(action: AgentAction): string {
  const id = (action as { toolCallId?: unknown }).toolCallId;
  return typeof id === "string" ? id : inputKey(action.tool, action.toolInput);
}

/** How a call without an id is told apart: its tool and its input. @internal */
export function inputKey(tool: string, input: unknown): string {
  return `${tool}#${JSON.stringify(input)}`;
}

const FIRST_ONLY: readonly number[] = Object.freeze([0]);

/** The indexes of the current turn's actions that have no result yet and wait for no decision (a list not to change). */
export function pendingActions(state: RunState): readonly number[] {
  const turn = state.turn;
  if (turn === undefined) return [];
  const pending: number[] = [];
  if (state.interrupts.length === 0) {
    // The common case: nothing waits for a decision (and a turn of one call that has not run: one list for all).
    if (turn.actions.length === 1 && turn.results[0] === undefined) return FIRST_ONLY;
    for (let i = 0; i < turn.actions.length; i++) if (turn.results[i] === undefined) pending.push(i);
    return pending;
  }
  const waiting = new Set(state.interrupts.map((interrupt) => interrupt.index));
  for (let i = 0; i < turn.actions.length; i++) if (turn.results[i] === undefined && !waiting.has(i)) pending.push(i);
  return pending;
}

