import type { RecordedPromptRef } from "./prompt-recorder";
import { type AgentAction, type AgentStep, valueToText } from "@agentrx/core";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage, type UsageMetadata } from "@langchain/core/messages";
import type { ActionEvent, AgentStreamEvent, Decision, Interrupt, OutputEvent, StopReason, UsageEvent } from "../executor/events";
import { decodeMessages, decodeObservation, decodeValue, encodeInputs, encodeMessages, encodeObservation, encodeValue } from "./json-value";
import type { JsonObject, JsonValue, StoredRunEvent } from "./run-store";
import { messageStepOf } from "../steering/message-step-of";
import { PausedCalls } from "./paused-calls";

/**
 * A model call as a run records it (not an `AgentStreamEvent`): what `RecordedChatModel` answers
 * from. The conversation sent is kept as a digest and a count, so what a call writes does not grow
 * with the run's length.
 */
export interface RecordedModelCall {
  type: "model_call";
  /** 0-based position of the call in the run. */
  call: number;
  /** The iteration (agent call) it belongs to. */
  iteration: number;
  /** When the call ended, epoch milliseconds. */
  at: number;
  /** How long it took, in milliseconds. */
  durationMs: number;
  /** How many messages were sent. */
  inputCount: number;
  /** A digest of the messages sent (see `digestMessages`). */
  inputDigest: string;
  /** The model's reply. */
  message: BaseMessage;
  /** With `recordPrompts`: the request sent, by the hashes of its parts. */
  prompt?: RecordedPromptRef;
  /** With `recordPrompts`: the parts of the request this call sent first in its run segment, by hash. */
  blobs?: JsonObject;
  /**
   * Set on a sub-run's model call (an executor called as a tool, recorded in the calling run's
   * record): the path of tool names to it. Then `call` and `iteration` are the sub-run's own, and
   * the call is not one of this run's (`RecordedChatModel` and a resume skip it).
   */
  subRun?: string[];
  /** Set with `subRun`: the tool calls that started the sub-runs of the path (see `subRunCallIds` of the events). */
  subRunCallIds?: string[];
}

/**
 * An action as recorded: its message log in `@langchain/core`'s stored form.
 *
 * @example
 * ```ts
 * import { decodeAction, encodeAction } from "@agentrx/executors";
 *
 * const json = encodeAction({ tool: "search", toolInput: { q: "Paris" }, log: "" });
 * console.log(decodeAction(JSON.parse(JSON.stringify(json))).toolInput); // { q: "Paris" }
 * ```
 */
export function encodeAction(action: AgentAction): JsonObject {
  return encodeActionWith(action, encodeMessage);
}

/**
 * Turns one message into its stored form. The recorder passes one that reuses the stored form of
 * the model reply it has just written in the `model_call` entry, which the turn's actions carry
 * again in their message log (@internal).
 */
export type MessageEncoder = (message: BaseMessage) => JsonValue;

/** `@langchain/core`'s stored form of a message (its `toDict()`). */
export function encodeMessage(message: BaseMessage): JsonValue {
  return encodeMessages([message])[0] as JsonValue;
}

function encodeActionWith(action: AgentAction, encode: MessageEncoder): JsonObject {
  const { messageLog, ...rest } = action as AgentAction & { messageLog?: BaseMessage[] };
  const out = encodeValue(rest, "action") as JsonObject;
  if (Array.isArray(messageLog)) out["messageLog"] = messageLog.map(encode);
  return out;
}

/** The action {@link encodeAction} encoded (see its example). */
export function decodeAction(data: JsonValue | undefined): AgentAction {
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new TypeError("expected an encoded action");
  const { messageLog, ...rest } = data;
  const action = decodeValue(rest) as AgentAction & { messageLog?: BaseMessage[] };
  if (typeof action.tool !== "string") throw new TypeError("an encoded action has no tool name");
  if (messageLog !== undefined) action.messageLog = decodeMessages(messageLog);
  return action;
}

/**
 * The JSON form of an event. A `step` of a tool call refers to its action by `index` in the turn
 * (the action is in the turn's `action` event); a step without a turn (a handled parsing error)
 * carries its action.
 *
 * @example
 * ```ts
 * import { encodeRunEvent } from "@agentrx/executors";
 *
 * const json = encodeRunEvent({ type: "token", iteration: 0, text: "Hi", at: Date.now() });
 * console.log(json.type, json.text); // "token" "Hi"
 * ```
 */
export function encodeRunEvent(event: AgentStreamEvent, index?: number): JsonObject {
  return encodeRunEventWith(event, index, encodeMessage);
}

/** {@link encodeRunEvent}, with the messages of actions turned into their stored form by `encode` (@internal). */
export function encodeRunEventWith(event: AgentStreamEvent, index: number | undefined, encode: MessageEncoder): JsonObject {
  if (event.subRun === undefined) return encodeOwnEvent(event, index, encode);
  // A sub-run's event (an executor called as a tool): its turns are its own, so a step carries its
  // action. Its action and step keep the call's index in the sub-run's turn (absent in records of
  // releases before it was kept: their sub-run actions all say 0), so a reader tells calls apart.
  const out = encodeOwnEvent(event, undefined, encode);
  if ((event.type === "action" || event.type === "step") && event.index !== undefined) out["index"] = event.index;
  out["subRun"] = [...event.subRun];
  if (event.subRunCallIds !== undefined) out["subRunCallIds"] = [...event.subRunCallIds];
  return out;
}

function encodeOwnEvent(event: AgentStreamEvent, index: number | undefined, encode: MessageEncoder): JsonObject {
  switch (event.type) {
    case "start": {
      const out: JsonObject = { type: "start", at: event.at, runId: event.runId, inputs: encodeInputs(event.inputs), resumed: event.resumed };
      if (event.threadId !== undefined) out["threadId"] = event.threadId;
      if (event.forkOf !== undefined) out["forkOf"] = { runId: event.forkOf.runId, iteration: event.forkOf.iteration };
      return out;
    }
    case "action": {
      const out: JsonObject = { type: "action", at: event.at, iteration: event.iteration, index: index ?? 0, action: encodeActionWith(event.action, encode) };
      if (event.idempotencyKey !== undefined) out["idempotencyKey"] = event.idempotencyKey;
      if (event.early === true) out["early"] = true;
      if (event.partialTurn === true) out["partialTurn"] = true;
      return out;
    }
    case "step": {
      const out: JsonObject = { type: "step", at: event.at, iteration: event.iteration, observation: encodeObservation(event.step.observation), durationMs: event.durationMs };
      if (index === undefined) out["action"] = encodeActionWith(event.step.action, encode);
      else out["index"] = index;
      if (event.metadata !== undefined) out["metadata"] = encodeValue(event.metadata, "metadata");
      return out;
    }
    case "token":
      return { type: "token", at: event.at, iteration: event.iteration, text: event.text };
    case "usage":
      return { type: "usage", at: event.at, iteration: event.iteration, usage: encodeValue(event.usage, "usage"), ...(event.model === undefined ? {} : { model: event.model }) };
    case "interrupt":
      return { type: "interrupt", at: event.at, runId: event.runId, interrupts: encodeValue(event.interrupts, "interrupts") };
    case "compaction":
      return { type: "compaction", at: event.at, iteration: event.iteration, middleware: event.middleware, steps: event.steps, summary: event.summary };
    case "middleware":
      return { type: "middleware", at: event.at, iteration: event.iteration, name: event.name, data: encodeValue(event.data, "data") };
    case "message": {
      const out: JsonObject = { type: "message", at: event.at, iteration: event.iteration, message: encodeMessages([event.message])[0] as JsonValue };
      if (event.inboxSeq !== undefined) out["inboxSeq"] = event.inboxSeq;
      if (event.unanswered) out["unanswered"] = true;
      return out;
    }
    case "output": {
      const out: JsonObject = {
        type: "output",
        at: event.at,
        runId: event.runId,
        output: event.output,
        returnValues: encodeValue(event.returnValues, "returnValues"),
        messages: encodeMessages(event.messages),
        stopReason: event.stopReason,
        withSteps: event.intermediateSteps !== undefined,
      };
      if (event.iterations !== undefined) out["iterations"] = event.iterations;
      if (event.stoppedBy !== undefined) out["stoppedBy"] = encodeValue(event.stoppedBy, "stoppedBy");
      if (event.generateError !== undefined) out["generateError"] = event.generateError;
      if (event.usage !== undefined) out["usage"] = encodeValue(event.usage, "usage");
      return out;
    }
  }
}

/**
 * A person's decisions on a paused run's interrupts, as the run records them when it is resumed
 * (not an `AgentStreamEvent`: `replayRun` skips it).
 */
/**
 * A record-only entry: a tool call about to start before its turn is known (an eager call while
 * the model still streams), written ahead of the call.
 */
export interface RecordedToolIntent {
  type: "tool_intent";
  /** The agent call (model call) that streamed it. */
  iteration: number;
  at: number;
  action: AgentAction;
  /** The call's idempotency key (absent in records of releases before keys were recorded). */
  idempotencyKey?: string;
}

/**
 * The `type`s of record-only entries: in a run's record, never in its event stream (`replayRun`,
 * followers and viewers skip them).
 */
export const RECORD_ONLY_EVENT_TYPES: ReadonlySet<string> = new Set(["model_call", "decisions", "tool_intent"]);

export interface RecordedDecisions {
  type: "decisions";
  /** When the run was resumed with them, epoch milliseconds. */
  at: number;
  /** The decision of each interrupt, by interrupt id. */
  decisions: Record<string, Decision>;
}

/** The JSON form of recorded decisions. */
export function encodeDecisions(entry: RecordedDecisions): JsonObject {
  return { type: "decisions", at: entry.at, decisions: encodeValue(entry.decisions, "decisions") };
}

/** The JSON form of a recorded model call; `message` is its reply's stored form, when the caller has it already. */
export function encodeModelCall(call: RecordedModelCall, message: JsonValue = encodeMessage(call.message)): JsonObject {
  return {
    type: "model_call",
    at: call.at,
    call: call.call,
    iteration: call.iteration,
    durationMs: call.durationMs,
    inputCount: call.inputCount,
    inputDigest: call.inputDigest,
    message,
    ...(call.prompt === undefined ? {} : { prompt: call.prompt as unknown as JsonObject }),
    ...(call.blobs === undefined ? {} : { blobs: call.blobs }),
  };
}

/**
 * Turns a run's recorded events back into `AgentStreamEvent`s (and `RecordedModelCall`s), in order.
 * Stateful: a step resolves its action from the turn's `action` events, and the output rebuilds
 * `intermediateSteps` from the steps before it. Feed it every event of a run from the first.
 *
 * @example
 * ```ts
 * import { RunEventDecoder, type RunStore } from "@agentrx/executors";
 *
 * async function eventTypes(store: RunStore, runId: string): Promise<string[]> {
 *   const decoder = new RunEventDecoder(runId);
 *   return (await store.readEvents(runId)).map((stored) => decoder.decode(stored).type);
 * }
 * ```
 */
export class RunEventDecoder {
  private readonly turns = new Map<number, AgentAction[]>();
  private readonly pendingSteps = new Map<number, (AgentStep | undefined)[]>();
  /** The calls the run's pauses wait on: what a decision names. */
  private readonly paused = new PausedCalls();
  /** Every completed step so far, in action order. */
  steps: AgentStep[] = [];

  constructor(private readonly runId: string) {}

  /**
   * Decodes one recorded event.
   * @throws TypeError saying what is wrong with the record
   */
  decode(stored: StoredRunEvent): AgentStreamEvent | RecordedModelCall | RecordedDecisions | RecordedToolIntent {
    const subRun = stored.data["subRun"];
    if (Array.isArray(subRun)) {
      // A sub-run's event (or model call): decoded on its own, so it never touches this run's turns
      // and steps; the index of its action or step is the call's in the sub-run's own turn.
      const { subRun: _, subRunCallIds: ids, index, ...data } = stored.data;
      const type = data["type"];
      const own = type === "action" || type === "step";
      const event = new RunEventDecoder(this.runId).decode({ ...stored, data: own || index === undefined ? data : { ...data, index } }) as AgentStreamEvent | RecordedModelCall;
      if ((event.type === "action" || event.type === "step") && index !== undefined) event.index = countOf(stored.data, "index", stored.seq);
      event.subRun = subRun.map(String);
      if (Array.isArray(ids) && ids.length === subRun.length) event.subRunCallIds = ids.map(String);
      return event;
    }
    const data = stored.data;
    const at = typeof data["at"] === "number" ? data["at"] : stored.at;
    // Every entry of an agent call names its iteration: a damaged one is refused here, before it
    // reaches a run's state (a missing one would make the run's count of agent calls NaN). An entry
    // that changes no state (a token, usage, a message, a middleware's) is shown without one.
    const type = data["type"];
    const iteration =
      typeof type === "string" && (TURN_TYPES.has(type) || (ITERATION_TYPES.has(type) && data["iteration"] !== undefined))
        ? countOf(data, "iteration", stored.seq)
        : (data["iteration"] as number);
    switch (data["type"]) {
      case "start": {
        const event: AgentStreamEvent = {
          type: "start",
          runId: String(data["runId"] ?? this.runId),
          inputs: decodeValue(data["inputs"] ?? {}) as Record<string, unknown>,
          resumed: data["resumed"] === true,
          at,
        };
        if (typeof data["threadId"] === "string") event.threadId = data["threadId"];
        const forkOf = data["forkOf"] as { runId?: unknown; iteration?: unknown } | undefined;
        if (forkOf && typeof forkOf.runId === "string" && typeof forkOf.iteration === "number") event.forkOf = { runId: forkOf.runId, iteration: forkOf.iteration };
        return event;
      }
      case "action": {
        const action = decodeAction(data["action"]);
        // (Every release recorded it; a record without it is read as index 0.)
        const index = data["index"] === undefined ? 0 : countOf(data, "index", stored.seq);
        let actions = this.turns.get(iteration);
        if (actions === undefined) this.turns.set(iteration, (actions = []));
        actions[index] = action;
        const log = (action as { messageLog?: BaseMessage[] }).messageLog;
        const messages = Array.isArray(log) && log.length > 0 ? log : [new AIMessage(action.log)];
        const event: ActionEvent = { type: "action", iteration, index, action, messages, at };
        // Recorded since keys are (an older record has none: its calls keep the key they had, see ExecutorRun.idempotencyKey).
        const key = recordedKey(data, stored.seq);
        if (key !== undefined) event.idempotencyKey = key;
        if (data["early"] === true) event.early = true;
        if (data["partialTurn"] === true) event.partialTurn = true;
        return event;
      }
      case "step": {
        const observation = decodeObservation(data["observation"]) as AgentStep["observation"];
        let action: AgentAction;
        const index = data["index"] === undefined ? undefined : countOf(data, "index", stored.seq);
        if (index !== undefined) {
          const known = this.turns.get(iteration)?.[index];
          if (known === undefined) throw new TypeError(`step ${stored.seq} refers to action ${index} of iteration ${iteration}, which is not recorded`);
          action = known;
          this.settle(iteration, index, { action, observation });
        } else {
          action = decodeAction(data["action"]);
          this.steps.push({ action, observation });
        }
        const step: AgentStep = { action, observation };
        const toolCallId = (action as { toolCallId?: unknown }).toolCallId;
        const messages: BaseMessage[] =
          typeof toolCallId === "string"
            ? [new ToolMessage({ content: observation as ToolMessage["content"], tool_call_id: toolCallId })]
            : [new HumanMessage({ content: observation as ToolMessage["content"] })];
        const event: AgentStreamEvent = { type: "step", iteration, step, messages, durationMs: Number(data["durationMs"] ?? 0), at };
        if (index !== undefined) event.index = index;
        if (data["metadata"] !== undefined) event.metadata = decodeValue(data["metadata"]) as Record<string, unknown>;
        return event;
      }
      case "token":
        return { type: "token", iteration, text: String(data["text"] ?? ""), at };
      case "usage": {
        const event: UsageEvent = { type: "usage", iteration, usage: decodeValue(data["usage"] ?? null) as UsageMetadata, at };
        if (typeof data["model"] === "string") event.model = data["model"];
        return event;
      }
      case "output": {
        // A pause is not an end: the paused turn's results stay pending until it goes on.
        if (data["stopReason"] !== "interrupted") this.flushPending();
        const event: OutputEvent = {
          type: "output",
          runId: String(data["runId"] ?? this.runId),
          output: String(data["output"] ?? ""),
          returnValues: decodeValue(data["returnValues"] ?? {}) as Record<string, unknown>,
          messages: decodeMessages(data["messages"] ?? []),
          stopReason: data["stopReason"] as StopReason,
          at,
        };
        // A pause's steps are the live output's: every finished step, with the paused turn's (its
        // calls that ran, or were rejected or given a result) after them, though that turn stays pending.
        if (data["withSteps"] === true) event.intermediateSteps = data["stopReason"] === "interrupted" ? this.stepsWithPending() : this.steps.slice();
        if (typeof data["iterations"] === "number") event.iterations = countOf(data, "iterations", stored.seq);
        if (data["stoppedBy"] !== undefined) event.stoppedBy = decodeValue(data["stoppedBy"]);
        if (typeof data["generateError"] === "string") event.generateError = data["generateError"];
        if (data["usage"] !== undefined) event.usage = decodeValue(data["usage"]) as UsageMetadata;
        // Recorded in `returnValues` (where the live event's comes from): the event carries it too, as live.
        const structuredOutput = event.returnValues["structuredOutput"];
        if (structuredOutput !== undefined) event.structuredOutput = structuredOutput;
        return event;
      }
      case "message": {
        const message = decodeMessages([data["message"] ?? null])[0];
        if (message === undefined) throw new TypeError(`message event ${stored.seq} has no message`);
        const event: AgentStreamEvent = { type: "message", iteration, message, at };
        if (typeof data["inboxSeq"] === "number") event.inboxSeq = data["inboxSeq"];
        if (data["unanswered"] === true) event.unanswered = true;
        this.steps.push(messageStepOf(event));
        return event;
      }
      case "interrupt": {
        const interrupts = decodeValue(data["interrupts"] ?? []) as Interrupt[];
        if (!Array.isArray(interrupts)) throw new TypeError(`event ${stored.seq} (interrupt) has no list of interrupts`);
        // Each names its call by iteration and index (what a decision's call is found by): a damaged
        // one is refused (one without them, which no release wrote, is shown; a run's state refuses it).
        for (const interrupt of interrupts) {
          if (interrupt === null || typeof interrupt !== "object") throw new TypeError(`event ${stored.seq} (interrupt) has an interrupt that is not an object: ${describeValue(interrupt)}`);
          for (const field of ["iteration", "index"]) if ((interrupt as unknown as JsonObject)[field] !== undefined) countOf(interrupt as unknown as JsonObject, field, stored.seq);
        }
        this.paused.paused(interrupts);
        return { type: "interrupt", runId: String(data["runId"] ?? this.runId), interrupts, at };
      }
      case "compaction": {
        const steps = data["steps"];
        if (typeof steps !== "number" || !Number.isInteger(steps) || steps < 0 || typeof data["summary"] !== "string") {
          throw new TypeError(`compaction ${stored.seq} has no step count or summary`);
        }
        return { type: "compaction", iteration, middleware: String(data["middleware"] ?? ""), steps, summary: data["summary"], at };
      }
      case "middleware":
        return { type: "middleware", iteration, name: String(data["name"] ?? ""), data: (decodeValue(data["data"] ?? {}) ?? {}) as Record<string, unknown>, at };
      case "decisions": {
        const decisions = decodeValue(data["decisions"] ?? {}) as Record<string, Decision>;
        this.applyEdits(decisions);
        return { type: "decisions", at, decisions };
      }
      case "model_call":
        return {
          type: "model_call",
          call: Number(data["call"]),
          iteration,
          at,
          durationMs: Number(data["durationMs"] ?? 0),
          inputCount: Number(data["inputCount"] ?? 0),
          inputDigest: String(data["inputDigest"] ?? ""),
          message: decodeMessages([data["message"] ?? null])[0] as BaseMessage,
          ...(isObject(data["prompt"]) ? { prompt: data["prompt"] as unknown as RecordedPromptRef } : {}),
          ...(isObject(data["blobs"]) ? { blobs: data["blobs"] as JsonObject } : {}),
        };
      case "tool_intent": {
        const intent: RecordedToolIntent = { type: "tool_intent", iteration, at, action: decodeAction(data["action"]) };
        const key = recordedKey(data, stored.seq);
        if (key !== undefined) intent.idempotencyKey = key;
        return intent;
      }
      default:
        throw new TypeError(`event ${stored.seq} has an unknown type ${JSON.stringify(data["type"])}`);
    }
  }

  /** The actions recorded for `iteration`, in turn order. */
  actionsOf(iteration: number): AgentAction[] | undefined {
    return this.turns.get(iteration);
  }

  /** The recorded results of `iteration`'s turn so far (by action index), while it is not complete. */
  resultsOf(iteration: number): (AgentStep | undefined)[] | undefined {
    return this.pendingSteps.get(iteration);
  }

  /**
   * A person's edits: the call runs with the edited input, so its step carries it (as the live
   * step did, and as `reduceRun` has it); the `action` event decoded before keeps what the model asked for.
   */
  private applyEdits(decisions: Record<string, Decision>): void {
    for (const { iteration, index, toolInput } of this.paused.edits(decisions)) {
      const actions = this.turns.get(iteration);
      const action = actions?.[index];
      if (actions !== undefined && action !== undefined) actions[index] = { ...action, toolInput: toolInput as AgentAction["toolInput"] };
    }
  }

  /** Appends a turn's steps once all of its actions have results; steps of a halted turn at the output. */
  private settle(iteration: number, index: number, step: AgentStep): void {
    const actions = this.turns.get(iteration) ?? [];
    let results = this.pendingSteps.get(iteration);
    if (results === undefined) this.pendingSteps.set(iteration, (results = new Array(actions.length)));
    results[index] = step;
    for (let i = 0; i < actions.length; i++) if (results[i] === undefined) return;
    this.pendingSteps.delete(iteration);
    this.steps.push(...(results as AgentStep[]));
  }

  /** Every completed step, then the finished results of the turns still pending (a paused turn's), in turn and call order. */
  private stepsWithPending(): AgentStep[] {
    const steps = this.steps.slice();
    this.pendingInto(steps);
    return steps;
  }

  private flushPending(): void {
    this.pendingInto(this.steps);
    this.pendingSteps.clear();
  }

  /** Appends the finished results of the pending turns to `steps`, in turn and call order. */
  private pendingInto(steps: AgentStep[]): void {
    for (const [, results] of [...this.pendingSteps].sort((a, b) => a[0] - b[0])) for (const step of results) if (step !== undefined) steps.push(step);
  }
}

/** The types of recorded entries that belong to an agent call, and name its `iteration`. */
const ITERATION_TYPES: ReadonlySet<string> = new Set(["action", "step", "token", "usage", "compaction", "middleware", "message", "model_call", "tool_intent"]);

/** Those that a run's state is rebuilt from by their iteration: without one, they cannot be read. */
const TURN_TYPES: ReadonlySet<string> = new Set(["action", "step", "model_call", "tool_intent"]);

/**
 * A count an entry records (an `iteration`, an `index`): a whole number from 0 up to
 * `Number.MAX_SAFE_INTEGER`. Anything else (missing, negative, a fraction, a string) is refused,
 * naming the event.
 */
function countOf(data: JsonObject, field: string, seq: number): number {
  const value = data[field];
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  throw new TypeError(`event ${seq} (${String(data["type"] ?? "interrupt")}) has an ${field} that is not a whole number from 0 up: ${describeValue(value)}`);
}

function describeValue(value: unknown): string {
  if (value === undefined) return "it is missing";
  const text = valueToText(value, { quoteStrings: true });
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `idempotencyKey` an `action` or `tool_intent` entry recorded, if any; a damaged one is refused. */
function recordedKey(data: JsonObject, seq: number): string | undefined {
  const key = data["idempotencyKey"];
  if (key === undefined) return undefined;
  if (typeof key !== "string" || key === "") throw new TypeError(`event ${seq} (${String(data["type"])}) has an idempotencyKey that is not a non-empty string: ${JSON.stringify(key)}`);
  return key;
}
