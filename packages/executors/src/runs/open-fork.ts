import { AbortError, InvalidArgumentError } from "@agentrx/core";
import { parseTraceparent } from "../telemetry/traceparent";
import { encodeValue } from "./json-value";
import type { OpenedRun } from "./open-run";
import { PausedCalls } from "./paused-calls";
import { messageOf, readRecordedEvents, recordedRunInfo } from "./read-recorded-events";
import { restoreRunState } from "./restore-run-state";
import type { ForkOf, JsonObject, JsonValue, RunCheckpoint, RunInfo, RunStore, StoredRunEvent } from "./run-store";
import { RunStoreError } from "./run-store-errors";
import { withStoreTimeout } from "./with-store-timeout";

/** What to fork, and how the copy differs from its source. */
export interface ForkRequest {
  /** The copied prefix holds the source's iterations `0 .. at - 1`; default: every complete turn. */
  at?: number;
  /** Inputs that replace the source's (merged over them). */
  inputs?: Record<string, unknown>;
  /**
   * Changes to the copy: `observation` replaces the last copied step's observation (its metadata
   * then says so, `observationEdited: true`, and loses what described the source's observation).
   */
  edit?: { observation?: string };
}

/**
 * The record-only and segment events a fork does not copy: only turns are copied. Early calls'
 * intents (`tool_intent`) are copied with their iteration: one without a turn after it is a call in
 * doubt, and a cut that would keep it is refused (it belongs to no complete turn).
 */
const NOT_COPIED = new Set(["output", "interrupt", "decisions"]);

/**
 * Opens a fork of run `sourceId` as a new run `runId`: reads and checks the source's record
 * (refused like `resume` refuses a damaged one), copies its events up to iteration `at`, applies
 * `inputs` and `edit`, and records the copy under a new run whose `start` event carries `forkOf`;
 * the copy is durable before this resolves (nothing of the fork runs before). The prefix is copied,
 * never executed: no model or tool call is made for it. When the copy cannot be written, the new
 * run is deleted again: a failed fork leaves no run behind. So does an aborted one: when `signal`
 * aborts before the new run is created, none is; after, it is deleted (the opened run's
 * `giveBack`), and the call rejects with `AbortError`. Its `traceparent` is the one the source's
 * checkpoint kept (its last traced segment's span), when valid: the fork's span links to it, and the
 * copy's checkpoint keeps it until a traced segment of the fork writes its own (docs/telemetry.md).
 *
 * @internal
 */
export async function openForkedRun(
  store: RunStore,
  sourceId: string,
  runId: string,
  request: ForkRequest,
  owner: string,
  leaseMs: number,
  storeTimeoutMs: number,
  signal?: AbortSignal,
): Promise<OpenedRun & { forkOf: ForkOf }> {
  const timed = <T>(operation: string, call: Promise<T>): Promise<T> => withStoreTimeout(call, storeTimeoutMs, operation, sourceId);
  const info = await timed("getRun", recordedRunInfo(store, sourceId, "fork"));
  const events: StoredRunEvent[] = [];
  for await (const page of readRecordedEvents(store, sourceId, "fork")) events.push(...page);
  restoreRunState(info, events, "fork"); // refuses a damaged record
  const complete = lastCompleteTurn(events);
  const at = request.at ?? complete;
  const prefix = copiedPrefix(events, at);
  const copied = restoreRunState({ ...info, eventCount: prefix.length }, prefix, "fork");
  const inDoubt = copied.state.earlyCalls !== undefined;
  // Past the last complete turn, the prefix would hold a recorded model call (the final answer's, or
  // a failed turn's) without its answer: the fork would ask the model for that turn again.
  if (!Number.isInteger(at) || at < 0 || at > complete || copied.state.turn !== undefined || inDoubt || copied.state.iteration < at) {
    const why = inDoubt ? `: the agent call of iteration ${copied.state.earlyCalls?.iteration} has early tool calls in doubt and no recorded turn` : "";
    throw new InvalidArgumentError({
      argument: "at",
      value: request.at,
      message: `AgentExecutor.fork: run "${sourceId}" has no complete turn boundary at iteration ${JSON.stringify(at)}${why} (its complete turns end before iteration ${complete}); pick an \`at\` between 0 and that.`,
    });
  }
  const forkOf: ForkOf = { runId: sourceId, iteration: at };
  const inputs = { ...copied.state.inputs, ...request.inputs };
  const encodedInputs = encodeValue(inputs, "inputs") as JsonObject;
  const copy = renumber(prefix, runId, forkOf, encodedInputs, request.edit, editedInputs(events));
  const now = Date.now();
  const newInfo: RunInfo = { runId, status: "running", inputs: encodedInputs, createdAt: now, updatedAt: now, eventCount: copy.length, forkOf, epoch: 1 };
  if (info.threadId !== undefined) newInfo.threadId = info.threadId;
  const restored = restoreRunState(newInfo, copy, "fork");
  // The source's last traced segment's traceparent goes with the copy: a fork whose process stops
  // before its own segment writes is resumed linked to that span (docs/telemetry.md).
  const sourceTrace = parseTraceparent(info.checkpoint?.traceparent) === undefined ? undefined : (info.checkpoint?.traceparent as string);
  const checkpoint: RunCheckpoint = { schemaVersion: restored.state.schemaVersion, iteration: restored.state.iteration, elapsedMs: 0, phase: restored.state.phase, ...(restored.state.usage ? { usage: restored.state.usage } : {}) };
  if (sourceTrace !== undefined) checkpoint.traceparent = sourceTrace;
  // Aborted while the source was read: no run is made.
  if (signal?.aborted) throw new AbortError({ reason: signal.reason });
  // Two store calls (a `RunStore` has no call that creates a run with events): everything that can
  // be refused is checked before the first, and a failed second removes the run the first made.
  await timed(
    "createRun",
    store.createRun({
      runId,
      ...(info.threadId === undefined ? {} : { threadId: info.threadId }),
      inputs: encodedInputs,
      status: "running",
      owner,
      leaseMs,
      forkOf,
      at: now,
    }),
  );
  const giveBack = () => removeAbortedFork(store, runId, owner, leaseMs, storeTimeoutMs);
  if (signal?.aborted) {
    // Aborted while the run was created: it is removed again, its copy never written.
    await giveBack();
    throw new AbortError({ reason: signal.reason });
  }
  try {
    await withStoreTimeout(store.write(runId, { owner, leaseMs, epoch: 1, events: copy, update: { checkpoint, ...(restored.state.usage ? { usage: restored.state.usage } : {}) }, at: Date.now() }), storeTimeoutMs, "write", runId);
  } catch (error) {
    await removeHalfMadeFork(store, sourceId, runId, error, storeTimeoutMs);
    throw error;
  }
  const opened = { ...restored, claimed: true, decisions: {}, newDecisions: undefined, epoch: 1, claimedAt: now, forkOf, giveBack };
  return sourceTrace === undefined ? opened : { ...opened, traceparent: sourceTrace };
}

/**
 * Removes a fork whose call was aborted before it went on: an aborted fork leaves no run behind,
 * as one aborted before it began makes none. When the store cannot delete it, its lease is given
 * up with the status `cancelled` instead (it can then be resumed, or deleted, by anyone at once);
 * when that fails too, it is left for its lease to lapse. Never rejects.
 */
async function removeAbortedFork(store: RunStore, runId: string, owner: string, leaseMs: number, storeTimeoutMs: number): Promise<void> {
  try {
    await withStoreTimeout(store.deleteRun(runId), storeTimeoutMs, "deleteRun", runId);
  } catch {
    const update = { status: "cancelled" as const, error: "The fork was aborted before it went on, and its run could not be deleted.", release: true };
    await withStoreTimeout(store.write(runId, { owner, leaseMs, epoch: 1, events: [], update, at: Date.now() }), storeTimeoutMs, "write", runId).catch(() => undefined);
  }
}

/**
 * Deletes the fork's run after the write of its copied prefix failed, so no empty `running` run is
 * left behind. When the deletion fails too, rejects with a `RunStoreError` that says so and names
 * the run to delete (the write's error is its `cause`).
 */
async function removeHalfMadeFork(store: RunStore, sourceId: string, runId: string, writeError: unknown, storeTimeoutMs: number): Promise<void> {
  try {
    await withStoreTimeout(store.deleteRun(runId), storeTimeoutMs, "deleteRun", runId);
  } catch (cleanup) {
    throw new RunStoreError({
      operation: "write",
      runId,
      message: `AgentExecutor.fork: writing the copy of run "${sourceId}" to its fork "${runId}" failed (${messageOf(writeError)}), and deleting the fork's empty run failed too (${messageOf(cleanup)}); it is left behind with status "running": delete it with store.deleteRun("${runId}").`,
      cause: writeError,
    });
  }
}

/**
 * The source's events of iterations before `at`, numbered from 1 as the fork's record (the events
 * left out, such as a pause and the `start` of a resumed segment, leave no gap). A sub-run's (an
 * executor called as a tool) go with the caller's turn that ran them (its iteration is the
 * sub-run's own): the caller's latest before them; its pauses are left out as the caller's are
 * (see {@link withoutSubRunPauses}).
 */
function copiedPrefix(events: readonly StoredRunEvent[], at: number): StoredRunEvent[] {
  let current = 0;
  const copied = events.filter((event) => {
    if (event.data["subRun"] !== undefined) return current < at;
    const iteration = event.data["iteration"];
    if (typeof iteration === "number") current = iteration;
    return isCopied(event, at);
  });
  return withoutSubRunPauses(copied).map((event, i) => ({ ...event, seq: i + 1 }));
}

/**
 * The copied events with each sub-run's that paused and was resumed as a sub-run that never paused
 * records them: its first `start` only, no `decisions`, and no `interrupt` or `output` of a segment
 * that a later `start` of it resumed (its interrupted answer). A sub-run that stayed paused (its
 * call failed in the caller) is copied as it was: its pause is its own run's, not the caller's.
 * A sub-run is told by its path and run id (`subRun`, `runId`).
 */
function withoutSubRunPauses(events: readonly StoredRunEvent[]): StoredRunEvent[] {
  const lastStart = new Map<string, number>();
  events.forEach((event, i) => {
    const key = subRunOf(event);
    if (key !== undefined && event.data["type"] === "start") lastStart.set(key, i);
  });
  const started = new Set<string>();
  return events.filter((event, i) => {
    if (event.data["subRun"] === undefined) return true;
    const type = event.data["type"];
    if (type === "decisions") return false;
    const key = subRunOf(event);
    if (key === undefined) return true;
    if (type === "start") {
      if (started.has(key)) return false;
      started.add(key);
      return true;
    }
    if (type === "interrupt" || type === "output") return i > (lastStart.get(key) ?? -1);
    return true;
  });
}

/** The sub-run an event of one belongs to (its path and run id), for the events that name their run. */
function subRunOf(event: StoredRunEvent): string | undefined {
  const { subRun, runId } = event.data;
  return subRun === undefined || typeof runId !== "string" ? undefined : JSON.stringify([subRun, runId]);
}

/** Whether a source event belongs to the copied prefix of iterations before `at`. */
function isCopied(event: StoredRunEvent, at: number): boolean {
  const type = event.data["type"];
  if (type === "start") return event.seq === 1;
  if (NOT_COPIED.has(String(type))) return false;
  const iteration = event.data["iteration"];
  return typeof iteration === "number" && iteration < at;
}

/**
 * The iteration after the run's last complete turn: a turn whose every action has a result, or a
 * handled parsing error. Every iteration before it is complete too (a run has at most one open turn).
 */
function lastCompleteTurn(events: readonly StoredRunEvent[]): number {
  const actions = new Map<number, number>();
  const results = new Map<number, number>();
  let last = 0;
  for (const { data } of events) {
    const iteration = data["iteration"];
    if (typeof iteration !== "number" || data["subRun"] !== undefined) continue; // a sub-run's turns are its own
    if (data["type"] === "action") actions.set(iteration, (actions.get(iteration) ?? 0) + 1);
    if (data["type"] !== "step") continue;
    if (typeof data["index"] !== "number") {
      last = Math.max(last, iteration + 1); // a parsing error's step is a whole iteration
      continue;
    }
    results.set(iteration, (results.get(iteration) ?? 0) + 1);
    if (results.get(iteration) === actions.get(iteration)) last = Math.max(last, iteration + 1);
  }
  return last;
}

/**
 * The prefix as the fork's own record: consecutive seqs, its run id and `forkOf` on the start, the
 * edit applied. The copy holds no pause, so each action a person edited before it ran carries the
 * input it ran with (`edited`, see {@link editedInputs}), as the source's state does; and the fork
 * has an inbox of its own, so the messages copied from the source's lose their inbox positions (a
 * message sent to the fork is then taken from position 1 on).
 */
function renumber(
  prefix: readonly StoredRunEvent[],
  runId: string,
  forkOf: ForkOf,
  inputs: JsonObject,
  edit: ForkRequest["edit"],
  edited: ReadonlyMap<string, JsonValue>,
): StoredRunEvent[] {
  const lastStep = lastStepOf(prefix);
  if (edit?.observation !== undefined && lastStep < 0) {
    throw new InvalidArgumentError({ argument: "edit", value: edit, message: "AgentExecutor.fork: `edit.observation` needs a step to change, and the copied prefix has none (fork at a later iteration)." });
  }
  return prefix.map((event, i) => {
    let data: JsonObject = event.data;
    if (i === 0) data = { ...data, runId, inputs, resumed: false, forkOf: { runId: forkOf.runId, iteration: forkOf.iteration } };
    if (i === lastStep && edit?.observation !== undefined) data = editedStep(data, edit.observation);
    if (data["subRun"] === undefined) data = ownEventOfFork(data, edited);
    return { seq: i + 1, type: event.type, at: event.at, data };
  });
}

/**
 * What describes the source's observation, not the call: it no longer holds for an edited one
 * (a failure and its error, a cached result, the length of a truncated one).
 */
const OBSERVATION_METADATA = ["failed", "error", "cached", "observationLength"];

/**
 * A copied step with its observation replaced by `edit.observation`: its metadata keeps what
 * describes the call (duration, attempts, a person's rejection), drops what described the source's
 * observation ({@link OBSERVATION_METADATA}) and says the observation was edited
 * (`observationEdited: true`, see docs/runs.md).
 */
function editedStep(data: JsonObject, observation: string): JsonObject {
  const metadata: JsonObject = isJsonObject(data["metadata"]) ? { ...data["metadata"] } : {};
  for (const key of OBSERVATION_METADATA) delete metadata[key];
  metadata["observationEdited"] = true;
  return { ...data, observation, metadata };
}

/**
 * The position in `prefix` of the run's last step as its state orders steps (by iteration, then by
 * action index), not the last one written: in a turn of parallel calls the one that finished last
 * may come first. -1 when the prefix has no step.
 */
function lastStepOf(prefix: readonly StoredRunEvent[]): number {
  let last = -1;
  let lastIteration = -1;
  let lastIndex = -1;
  prefix.forEach(({ data }, i) => {
    if (data["type"] !== "step" || data["subRun"] !== undefined) return;
    const iteration = typeof data["iteration"] === "number" ? data["iteration"] : 0;
    const index = typeof data["index"] === "number" ? data["index"] : 0; // a parsing error's step: its iteration's only one
    if (iteration > lastIteration || (iteration === lastIteration && index > lastIndex)) {
      [last, lastIteration, lastIndex] = [i, iteration, index];
    }
  });
  return last;
}

/** A copied event of the source's own (not a sub-run's) as the fork records it: see {@link renumber}. */
function ownEventOfFork(data: JsonObject, edited: ReadonlyMap<string, JsonValue>): JsonObject {
  if (data["type"] === "message" && data["inboxSeq"] !== undefined) {
    const copy = { ...data };
    delete copy["inboxSeq"];
    return copy;
  }
  if (data["type"] !== "action") return data;
  const toolInput = edited.get(`${String(data["iteration"])}:${String(data["index"] ?? 0)}`);
  const action = data["action"];
  if (toolInput === undefined || !isJsonObject(action)) return data;
  return { ...data, action: { ...action, toolInput } };
}

/**
 * The inputs people gave the source's calls before they ran (`edit` decisions), by
 * `<iteration>:<index>` of the call: the interrupt ids of the record's pauses name the calls.
 */
function editedInputs(events: readonly StoredRunEvent[]): Map<string, JsonValue> {
  const paused = new PausedCalls();
  const edited = new Map<string, JsonValue>();
  for (const { data } of events) {
    if (data["subRun"] !== undefined) continue;
    if (data["type"] === "interrupt") paused.paused(data["interrupts"]);
    if (data["type"] !== "decisions") continue;
    for (const { iteration, index, toolInput } of paused.edits(data["decisions"])) edited.set(`${iteration}:${index}`, toolInput as JsonValue);
  }
  return edited;
}

function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
