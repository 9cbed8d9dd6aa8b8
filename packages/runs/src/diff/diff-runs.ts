import { InvalidArgumentError, contentBlockKind, observationText } from "@agentrx/core";
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
  type JsonValue,
  type StoredRunEvent,
} from "@agentrx/executors";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { promptsOf } from "../prompts/read-prompts";
import { checkRunReference } from "../replay/check-run-reference";

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
   * model call was not recorded. The digest hashes the tool calls' ids, which a provider makes up
   * anew in every run, so `same` leaves them out: see {@link IterationDiff.promptIds}.
   */
  prompt: DiffPair<string | undefined>;
  /**
   * Set when the prompt digests differ while `prompt.same` is true, because of tool-call ids (which
   * differ between two runs that each called a provider): `"ignored"`, both prompts are recorded
   * (`recordPrompts`) and are the same but for those ids (compared by each id's position);
   * `"uncompared"`, a side's prompt is not recorded and the runs' earlier tool calls have different
   * ids, so the digests (which hash them) cannot tell whether anything else differs.
   */
  promptIds?: "ignored" | "uncompared";
  /** The model's text in this iteration (its streamed or replied text: text blocks only, tool calls are in `toolCalls`), when recorded. */
  reply: DiffPair<string | undefined>;
  /** The tool calls of the iteration, in turn order. */
  toolCalls: DiffPair<DiffToolCall[]>;
  /** The usage of the iteration's model call(s); `same` compares their numbers (an empty `input_token_details` is none). */
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

interface IterationSide {
  /** The first model call's `inputDigest`. */
  prompt?: string;
  /** With its recorded prompt: a digest of its messages with each tool-call id replaced by its position. */
  promptWithoutIds?: string;
  /** The tool-call ids the run made before the iteration's first model call, in order. */
  idsBefore?: string;
  reply?: string;
  streamed?: string;
  toolCalls: DiffToolCall[];
  usage?: RunUsage;
}

interface Side {
  inputs: unknown;
  /** `reply`: the recorded model calls' text; `streamed`: the token events' (used when no model call is recorded). */
  iterations: Map<number, IterationSide>;
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
  checkRunRecord("a", a);
  checkRunRecord("b", b);
  const left = sideOf(a);
  const right = sideOf(b);
  const count = Math.max(lastIteration(left), lastIteration(right)) + 1;
  const iterations: IterationDiff[] = [];
  for (let iteration = 0; iteration < count; iteration++) {
    const x = left.iterations.get(iteration);
    const y = right.iterations.get(iteration);
    const prompt = pair(x?.prompt, y?.prompt);
    let promptIds: IterationDiff["promptIds"];
    // An iteration only one run has: its prompt is that run's alone (never the same as none).
    if (x === undefined || y === undefined) prompt.same = x?.prompt === y?.prompt;
    // A side without a recorded prompt cannot be told apart on it.
    else if (x.prompt === undefined || y.prompt === undefined) prompt.same = true;
    else if (x.promptWithoutIds !== undefined && y.promptWithoutIds !== undefined) {
      prompt.same = x.promptWithoutIds === y.promptWithoutIds;
      if (prompt.same && x.prompt !== y.prompt) promptIds = "ignored";
    } else if (!prompt.same && x.idsBefore !== y.idsBefore) {
      prompt.same = true;
      promptIds = "uncompared";
    }
    const reply = pair(x?.reply, y?.reply);
    const toolCalls = pair(x?.toolCalls ?? [], y?.toolCalls ?? []);
    const usage = { a: x?.usage, b: y?.usage, same: equal(usageNumbers(x?.usage), usageNumbers(y?.usage)) };
    iterations.push({ iteration, prompt, ...(promptIds === undefined ? {} : { promptIds }), reply, toolCalls, usage, same: prompt.same && reply.same && toolCalls.same && x !== undefined && y !== undefined });
  }
  const diff: RunDiff = {
    a: a.run,
    b: b.run,
    inputs: pair(left.inputs, right.inputs),
    iterations,
    answer: pair(left.answer, right.answer),
    stopReason: pair(left.stopReason, right.stopReason),
    usage: { a: a.run.usage, b: b.run.usage, same: equal(usageNumbers(a.run.usage), usageNumbers(b.run.usage)) },
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
  checkRunReference("readRunRecord", store, runId);
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
  // The iteration of the last token event, and the iterations whose outcome (a turn, a step) is recorded.
  let tokenIteration: number | undefined;
  const settled = new Set<number>();
  // The messages of each recorded prompt, by model call (none when a part of one is missing).
  let prompts: Map<number, JsonValue[]>;
  try {
    prompts = new Map(promptsOf(record.run.runId, record.events).map((prompt) => [prompt.call, prompt.messages]));
  } catch {
    prompts = new Map();
  }
  const ids: string[] = [];
  const seen = new Set<string>();
  const addId = (id: unknown) => {
    if (typeof id !== "string" || id === "" || seen.has(id)) return;
    seen.add(id);
    ids.push(id);
  };
  for (const stored of record.events) {
    if (stored.data["subRun"] !== undefined) continue; // a sub-run's events are its own
    const event = decodeForDiff(decoder, stored, record.run.runId);
    switch (event.type) {
      case "start":
        // A resume's start repeats the inputs; the first one is the run's.
        if (!started) side.inputs = event.inputs;
        // Streamed text of an agent call cut off before its outcome (a cancellation, a process
        // that died): the resume makes that call again, as the same iteration; its text is the retry's.
        else if (tokenIteration !== undefined && !settled.has(tokenIteration)) delete at(tokenIteration).streamed;
        started = true;
        break;
      case "model_call": {
        const entry = at(event.iteration);
        if (entry.prompt === undefined) {
          entry.prompt = event.inputDigest;
          entry.idsBefore = ids.join("\u0000");
          const messages = prompts.get(event.call);
          if (messages !== undefined) entry.promptWithoutIds = digestWithoutIds(messages);
        }
        for (const call of (event.message as { tool_calls?: { id?: string }[] }).tool_calls ?? []) addId(call.id);
        // Its text only: tool-call blocks (Anthropic's tool_use) carry ids the provider makes up, and the calls are compared in toolCalls.
        const text = replyText(event.message);
        if (text !== "") entry.reply = (entry.reply ?? "") + text;
        break;
      }
      case "token": {
        // With recorded model calls the reply is known from them (a streamed call's coalesced
        // token event comes before its model_call): the tokens count only without them.
        const entry = at(event.iteration);
        entry.streamed = (entry.streamed ?? "") + event.text;
        tokenIteration = event.iteration;
        break;
      }
      case "action":
        settled.add(event.iteration);
        addId((event.action as { toolCallId?: unknown }).toolCallId);
        at(event.iteration).toolCalls[event.index ?? at(event.iteration).toolCalls.length] = { tool: event.action.tool, input: event.action.toolInput };
        break;
      case "step": {
        settled.add(event.iteration);
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
 * An observation as the diff shows and compares it: its text (`observationText`); with images (or
 * files, audio, video), followed by a digest of the whole observation, since the text names them only by type
 * and size: two screenshots of the same size would otherwise read as the same observation.
 */
function observationForDiff(observation: unknown): string {
  const text = observationText(observation);
  if (!Array.isArray(observation) || !observation.some(isMedia)) return text;
  return `${text} (digest ${digestMessages([new ToolMessage({ content: observation, tool_call_id: "" })])})`;
}

/** An image, file, audio clip or video: what `observationText` names only by its type and size. */
function isMedia(block: unknown): boolean {
  const kind = contentBlockKind(block);
  return kind === "image" || kind === "file" || kind === "audio" || kind === "video";
}

/** A reply's text: its string content, or its text blocks' text. */
function replyText(message: BaseMessage): string {
  try {
    return message.text;
  } catch {
    return typeof message.content === "string" ? message.content : "";
  }
}

/** Content blocks that carry a tool call, whose `id` is the call's. */
const CALL_BLOCKS = new Set(["tool_use", "tool_call", "function_call", "server_tool_use"]);

/**
 * A digest of recorded messages (their stored form), as `digestMessages` makes of a conversation,
 * but with each tool-call id replaced by its position among the ids of the conversation (wherever
 * it is: a call, a tool result's `tool_call_id`, a content block), so two runs whose provider made
 * up different ids for the same calls get the same digest.
 */
function digestWithoutIds(messages: readonly JsonValue[]): string {
  const positions = new Map<string, string>();
  const position = (id: unknown) => {
    if (typeof id === "string" && id !== "" && !positions.has(id)) positions.set(id, `#${positions.size}`);
  };
  const fields = (message: JsonValue) => {
    const stored = (isRecord(message) ? message : {}) as { type?: unknown; data?: unknown };
    return { type: String(stored.type ?? ""), data: (isRecord(stored.data) ? stored.data : {}) as Record<string, unknown> };
  };
  for (const message of messages) {
    const { data } = fields(message);
    if (Array.isArray(data["tool_calls"])) for (const call of data["tool_calls"]) position(isRecord(call) ? call["id"] : undefined);
    if (Array.isArray(data["content"])) for (const block of data["content"]) if (isRecord(block) && CALL_BLOCKS.has(String(block["type"]))) position(block["id"]);
    position(data["tool_call_id"]);
  }
  const withoutIds = (value: unknown): unknown => {
    if (typeof value === "string") return positions.get(value) ?? value;
    if (Array.isArray(value)) return value.map(withoutIds);
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutIds(item)]));
    return value;
  };
  // What digestMessages reads of a message: its type, name, content, tool calls and tool-call id.
  const shaped = messages.map((message) => {
    const { type, data } = fields(message);
    return {
      getType: () => type,
      name: typeof data["name"] === "string" ? data["name"] : undefined,
      content: withoutIds(data["content"] ?? ""),
      tool_calls: withoutIds(data["tool_calls"]),
      tool_call_id: withoutIds(data["tool_call_id"]),
    };
  });
  return digestMessages(shaped as unknown as BaseMessage[]);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A usage's numbers, as `diffRuns` compares them: what is absent, or an object with no number in
 * it (`input_token_details: {}`, which a streamed call records and an invoked one does not), is left out.
 */
function usageNumbers(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const numbers = usageNumbers(item);
    if (numbers === undefined || (isRecord(numbers) && Object.keys(numbers).length === 0)) continue;
    kept[key] = numbers;
  }
  return kept;
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


/** Throws an `InvalidArgumentError` naming `argument` unless `record` is a run's record (`readRunRecord`'s: `{ run, events }`). */
function checkRunRecord(argument: "a" | "b", record: unknown): asserts record is RunRecord {
  const { run, events } = (typeof record === "object" && record !== null ? record : {}) as { run?: unknown; events?: unknown };
  if (typeof run !== "object" || run === null || typeof (run as { runId?: unknown }).runId !== "string" || !Array.isArray(events)) {
    throw new InvalidArgumentError({
      argument,
      value: record,
      message: `diffRuns: \`${argument}\` must be a run's record { run, events } (what readRunRecord(store, runId) gives), got ${record === null ? "null" : Array.isArray(record) ? "an array" : typeof record === "object" ? `an object without ${Array.isArray(events) ? "a run" : "an events array"}` : typeof record}.`,
    });
  }
}
