import { isImageBlock, observationText } from "@agentrx/core";
import {
  RunEventDecoder,
  digestMessages,
  RunNotFoundError,
  RunStoreError,
  addUsage,
  readRecordedEvents,
  type RunInfo,
  type RunStore,
  type RunUsage,
  type StoredRunEvent,
} from "@agentrx/executors";
import { ToolMessage } from "@langchain/core/messages";

/** A run as `diffRuns` compares it: its row and its recorded events (from the first). */
export interface RunRecord {
  run: RunInfo;
  events: readonly StoredRunEvent[];
}

/** One value on both sides, and whether they are equal. */
export interface DiffPair<T> {
  a: T;
  b: T;
  same: boolean;
}

/** A tool call of a turn: what the agent asked for, and what the tool answered (absent when it has no result). */
export interface DiffToolCall {
  tool: string;
  input: unknown;
  /** The observation's text; one with images ends with a digest of its content, e.g. `(digest 3f9a0c1e5b7d2468)`. */
  observation?: string;
}

/** One iteration (model call and its tool calls) of both runs. */
export interface IterationDiff {
  iteration: number;
  /**
   * A digest of the conversation sent to the model in this iteration (`model_call.inputDigest`;
   * the full request is in the record when the run had `recordPrompts`). Absent on a side whose
   * model call was not recorded.
   */
  prompt: DiffPair<string | undefined>;
  /** The model's text in this iteration (its streamed or replied text), when recorded. */
  reply: DiffPair<string | undefined>;
  /** The tool calls of the iteration, in turn order. */
  toolCalls: DiffPair<DiffToolCall[]>;
  /** The usage of the iteration's model call(s). */
  usage: DiffPair<RunUsage | undefined>;
  /** Whether both sides are equal in prompt, reply and tool calls. */
  same: boolean;
}

/** Where two runs first differ. */
export interface FirstDivergence {
  /** `inputs`, an iteration's `prompt`, `reply` or `toolCalls`, a side having more `iterations`, or the `answer`. */
  field: "inputs" | "prompt" | "reply" | "toolCalls" | "iterations" | "answer";
  /** The iteration, for the fields of an iteration. */
  iteration?: number;
  /** A sentence saying what differs. */
  description: string;
}

/** Two runs side by side, as `agentrx diff` prints them. */
export interface RunDiff {
  a: RunInfo;
  b: RunInfo;
  /** How the runs are related: one is a fork of the other (at this iteration), or neither. */
  relation?: { fork: "a" | "b"; iteration: number };
  inputs: DiffPair<unknown>;
  iterations: IterationDiff[];
  answer: DiffPair<string | undefined>;
  stopReason: DiffPair<string | undefined>;
  usage: DiffPair<RunUsage | undefined>;
  /** The runs' costs in US dollars (absent on a side without priced calls; `usage`'s `unpricedCalls` counts the calls a cost leaves out). */
  cost: DiffPair<number | undefined>;
  /** Where they first differ; absent when they do not differ in inputs, iterations or answer. */
  firstDivergence?: FirstDivergence;
}

interface Side {
  inputs: unknown;
  /** `reply`: the recorded model calls' text; `streamed`: the token events' (used when no model call is recorded). */
  iterations: Map<number, { prompt?: string; reply?: string; streamed?: string; toolCalls: DiffToolCall[]; usage?: RunUsage }>;
  answer?: string;
  stopReason?: string;
}

/**
 * Compares two recorded runs: their inputs, each iteration's prompt digest, model text, tool calls
 * with their observations and usage, their answers, usage and cost, and marks where they first
 * differ. A run and its fork (`executor.fork`) are the common case: they agree up to the fork's
 * iteration. Pure: read the records with {@link readRunRecord}.
 *
 * @example
 * ```ts
 * import { diffRuns, readRunRecord, type RunStore } from "@agentrx/runs";
 *
 * async function whereTheyDiffer(store: RunStore, a: string, b: string): Promise<string> {
 *   const diff = diffRuns(await readRunRecord(store, a), await readRunRecord(store, b));
 *   return diff.firstDivergence?.description ?? "the runs are the same";
 * }
 * ```
 */
export function diffRuns(a: RunRecord, b: RunRecord): RunDiff {
  const left = sideOf(a);
  const right = sideOf(b);
  const count = Math.max(lastIteration(left), lastIteration(right)) + 1;
  const iterations: IterationDiff[] = [];
  for (let iteration = 0; iteration < count; iteration++) {
    const x = left.iterations.get(iteration);
    const y = right.iterations.get(iteration);
    const prompt = pair(x?.prompt, y?.prompt);
    // A side without a recorded prompt cannot be told apart on it.
    if (x?.prompt === undefined || y?.prompt === undefined) prompt.same = true;
    const reply = pair(x?.reply, y?.reply);
    const toolCalls = pair(x?.toolCalls ?? [], y?.toolCalls ?? []);
    const usage = pair(x?.usage, y?.usage);
    iterations.push({ iteration, prompt, reply, toolCalls, usage, same: prompt.same && reply.same && toolCalls.same && x !== undefined && y !== undefined });
  }
  const diff: RunDiff = {
    a: a.run,
    b: b.run,
    inputs: pair(left.inputs, right.inputs),
    iterations,
    answer: pair(left.answer, right.answer),
    stopReason: pair(left.stopReason, right.stopReason),
    usage: pair(a.run.usage, b.run.usage),
    cost: pair(a.run.usage?.cost?.total, b.run.usage?.cost?.total),
  };
  if (b.run.forkOf?.runId === a.run.runId) diff.relation = { fork: "b", iteration: b.run.forkOf.iteration };
  else if (a.run.forkOf?.runId === b.run.runId) diff.relation = { fork: "a", iteration: a.run.forkOf.iteration };
  const first = firstDivergence(diff, left, right);
  if (first !== undefined) diff.firstDivergence = first;
  return diff;
}

/**
 * A run's row and every recorded event, as {@link diffRuns} takes them. Rejects with
 * `RunNotFoundError` for an unknown run and a `RunStoreError` for a damaged record.
 *
 * @example
 * ```ts
 * import { MemoryRunStore, readRunRecord } from "@agentrx/runs";
 *
 * const store = new MemoryRunStore();
 * await store.createRun({ runId: "r1", inputs: { input: "hi" }, status: "queued", at: Date.now() });
 * console.log((await readRunRecord(store, "r1")).events.length); // 0
 * ```
 */
export async function readRunRecord(store: RunStore, runId: string): Promise<RunRecord> {
  const run = await store.getRun(runId);
  if (run === undefined) throw new RunNotFoundError({ operation: "diffRuns", runId });
  const events: StoredRunEvent[] = [];
  for await (const page of readRecordedEvents(store, runId, "diffRuns")) events.push(...page);
  return { run, events };
}

/** One recorded event, decoded; an event that cannot be is a `RunStoreError` (`corrupt`) naming it. */
function decodeForDiff(decoder: RunEventDecoder, stored: StoredRunEvent, runId: string): ReturnType<RunEventDecoder["decode"]> {
  try {
    return decoder.decode(stored);
  } catch (error) {
    throw new RunStoreError({
      operation: "diffRuns",
      runId,
      reason: "corrupt",
      message: `diffRuns: run "${runId}" cannot be compared: its event ${stored.seq} cannot be decoded (${error instanceof Error ? error.message : String(error)}).`,
      cause: error,
    });
  }
}

function sideOf(record: RunRecord): Side {
  const side: Side = { inputs: record.run.inputs, iterations: new Map() };
  const decoder = new RunEventDecoder(record.run.runId);
  const at = (iteration: number) => {
    let entry = side.iterations.get(iteration);
    if (entry === undefined) side.iterations.set(iteration, (entry = { toolCalls: [] }));
    return entry;
  };
  let started = false;
  for (const stored of record.events) {
    if (stored.data["subRun"] !== undefined) continue; // a sub-run's events are its own
    const event = decodeForDiff(decoder, stored, record.run.runId);
    switch (event.type) {
      case "start":
        // A resume's start repeats the inputs; the first one is the run's.
        if (!started) side.inputs = event.inputs;
        started = true;
        break;
      case "model_call": {
        const entry = at(event.iteration);
        entry.prompt ??= event.inputDigest;
        const text = typeof event.message.content === "string" ? event.message.content : JSON.stringify(event.message.content);
        if (text !== "") entry.reply = (entry.reply ?? "") + text;
        break;
      }
      case "token": {
        // With recorded model calls the reply is known from them (a streamed call's coalesced
        // token event comes before its model_call): the tokens count only without them.
        const entry = at(event.iteration);
        entry.streamed = (entry.streamed ?? "") + event.text;
        break;
      }
      case "action":
        at(event.iteration).toolCalls[event.index ?? at(event.iteration).toolCalls.length] = { tool: event.action.tool, input: event.action.toolInput };
        break;
      case "step": {
        if (event.index === undefined) break;
        const call = at(event.iteration).toolCalls[event.index];
        if (call === undefined) break;
        call.observation = observationForDiff(event.step.observation);
        // The input the call ran with: a person may have edited it before it ran (a fork records the edit in its action).
        call.input = event.step.action.toolInput;
        break;
      }
      case "usage": {
        const entry = at(event.iteration);
        entry.usage = addUsage(entry.usage, event.usage); // its cost, and the calls `prices` could not price
        break;
      }
      case "output":
        if (event.stopReason !== "interrupted") {
          side.answer = event.output;
          side.stopReason = event.stopReason;
        }
        break;
      default:
        break;
    }
  }
  for (const entry of side.iterations.values()) {
    entry.toolCalls = entry.toolCalls.filter((call) => call !== undefined);
    if (entry.prompt === undefined && entry.reply === undefined && entry.streamed !== undefined) entry.reply = entry.streamed;
    delete entry.streamed;
  }
  return side;
}

/**
 * An observation as the diff shows and compares it: its text (`observationText`); with images,
 * followed by a digest of the whole observation, since the text names an image only by its type
 * and size: two screenshots of the same size would otherwise read as the same observation.
 */
function observationForDiff(observation: unknown): string {
  const text = observationText(observation);
  if (!Array.isArray(observation) || !observation.some(isImageBlock)) return text;
  return `${text} (digest ${digestMessages([new ToolMessage({ content: observation, tool_call_id: "" })])})`;
}

function firstDivergence(diff: RunDiff, left: Side, right: Side): FirstDivergence | undefined {
  if (!diff.inputs.same) return { field: "inputs", description: "The runs started with different inputs." };
  for (const iteration of diff.iterations) {
    const n = iteration.iteration;
    const x = left.iterations.get(n);
    const y = right.iterations.get(n);
    if (x === undefined || y === undefined) {
      return { field: "iterations", iteration: n, description: `Run ${x === undefined ? "a" : "b"} has no iteration ${n}; the other goes on.` };
    }
    if (!iteration.prompt.same) return { field: "prompt", iteration: n, description: `Iteration ${n}: the model was sent a different conversation.` };
    if (!iteration.reply.same) return { field: "reply", iteration: n, description: `Iteration ${n}: the model's text differs.` };
    if (!iteration.toolCalls.same) return { field: "toolCalls", iteration: n, description: `Iteration ${n}: ${toolCallsDifference(iteration.toolCalls)}` };
  }
  if (!diff.answer.same) return { field: "answer", description: "The final answers differ." };
  return undefined;
}

function toolCallsDifference(calls: DiffPair<DiffToolCall[]>): string {
  const length = Math.max(calls.a.length, calls.b.length);
  for (let index = 0; index < length; index++) {
    const x = calls.a[index];
    const y = calls.b[index];
    if (x === undefined || y === undefined) return `run ${x === undefined ? "b" : "a"} makes ${Math.max(calls.a.length, calls.b.length) - Math.min(calls.a.length, calls.b.length)} more tool call(s).`;
    if (x.tool !== y.tool) return `tool call ${index} is ${x.tool} in run a, ${y.tool} in run b.`;
    if (!equal(x.input, y.input)) return `tool call ${index} (${x.tool}) has a different input.`;
    if (x.observation !== y.observation) return `tool call ${index} (${x.tool}) returned a different observation.`;
  }
  return "the tool calls differ.";
}

function lastIteration(side: Side): number {
  return side.iterations.size === 0 ? -1 : Math.max(...side.iterations.keys());
}

function pair<T>(a: T, b: T): DiffPair<T> {
  return { a, b, same: equal(a, b) };
}

/** Deep equality of JSON-like values (key order ignored). */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, index) => equal(item, (b as unknown[])[index]));
  const keysA = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const keysB = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  return keysA.length === keysB.length && keysA.every((key) => equal((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

