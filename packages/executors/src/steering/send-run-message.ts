import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { type BaseMessage, HumanMessage, isBaseMessage } from "@langchain/core/messages";
import { encodeMessages } from "../runs/json-value";
import type { JsonObject, RunStatus, RunStore } from "../runs/run-store";
import { RunNotFoundError } from "../runs/run-store-errors";
import { withStoreTimeout } from "../runs/with-store-timeout";
import { validateStore } from "../executor/validate-options";
import { appendToInbox, runInboxId } from "./run-inbox";
import { RunFinishedError } from "./run-finished-error";
import { RunSteering } from "./run-steering";
import { SteeringInboxFullError } from "./steering-inbox-full-error";

/**
 * A message for a running run: text (sent as a `HumanMessage`) or a `HumanMessage` (its content
 * may hold images). It joins as the user's turn: `send` refuses a message of another role, and one
 * with no text but white space and nothing else.
 */
export type SteeringMessage = string | BaseMessage;

/** Options of `AgentExecutor.send`. */
export interface SendMessageOptions {
  /**
   * The store the run records to. @default the executor's store (without one, when its tools need
   * approval, the in-process store its runs pause in)
   */
  store?: RunStore;
  /**
   * The most characters of text a message may have (a string's length, or the sum of a
   * `HumanMessage`'s text blocks; images are not counted): a longer one is refused with an
   * `InvalidArgumentError`. @default 100_000
   */
  maxMessageChars?: number;
  /**
   * The most messages that may wait for the run (sent, not yet joined): one more is refused with a
   * `SteeringInboxFullError` until the run has taken some. @default 100
   */
  maxPendingMessages?: number;
}

/** The default of `SendMessageOptions.maxMessageChars`. */
const DEFAULT_MAX_MESSAGE_CHARS = 100_000;
/** The default of `SendMessageOptions.maxPendingMessages`. */
const DEFAULT_MAX_PENDING_MESSAGES = 100;

/** What `send` did with the message. */
export interface SendMessageResult {
  /** The run the message was sent to. */
  runId: string;
  /**
   * The message's position in the run's inbox (sent through a store); absent when it was handed to
   * a run of this process that records to no store.
   */
  inboxSeq?: number;
  /**
   * The run's status when the message was recorded: `running` (it joins at the next turn
   * boundary), or `queued`, `interrupted`, `cancelled`, `failed` (it joins when the run starts or
   * is resumed).
   */
  status: RunStatus;
}

/**
 * `message` as the `HumanMessage` that joins the run. A message joins as the user's turn (a
 * `_Message` step holds its content, not its role), so other roles are refused, as is a message
 * with no text (or only white space) and no other content (an image). @internal
 */
export function toSteeringMessage(message: unknown, operation: string): BaseMessage {
  if (typeof message === "string" && message.trim() !== "") return new HumanMessage(message);
  if (isBaseMessage(message)) {
    const type = message.getType();
    if (type !== "human") {
      const name = (message.constructor as { lc_name?: () => string }).lc_name?.() ?? "message";
      throw new InvalidArgumentError({
        argument: "message",
        value: message,
        message: `${operation}: a message joins the run as the user's, so it must be a HumanMessage (or a string), got a message of type "${type}" (${name}); send its text as a string to pass it on.`,
      });
    }
    if (!isBlank(message.content)) return message;
  }
  const got = isBaseMessage(message) ? "a HumanMessage that is empty or only white space" : typeof message !== "string" ? typeof message : message === "" ? "an empty string" : "only white space";
  throw new InvalidArgumentError({
    argument: "message",
    value: message,
    message: `${operation}: \`message\` must be a non-empty string or a HumanMessage with text or other content (an image), got ${got}.`,
  });
}

/** Whether a message's content has no text but white space, and nothing else (no image or other block). */
function isBlank(content: unknown): boolean {
  if (typeof content === "string") return content.trim() === "";
  if (!Array.isArray(content)) return false;
  return content.every((block: unknown) => {
    if (typeof block === "string") return block.trim() === "";
    if (typeof block !== "object" || block === null || (block as { type?: unknown }).type !== "text") return false;
    const text = (block as { text?: unknown }).text;
    return text === undefined || (typeof text === "string" && text.trim() === "");
  });
}

/** The options {@link sendRunMessage} takes. */
const SEND_RUN_MESSAGE_OPTION_KEYS = ["store", "storeTimeoutMs", "operation", "maxMessageChars", "maxPendingMessages"];

/**
 * Sends a message to a run (see docs/steering.md): a run of this process that records to no store
 * gets it in memory; otherwise it is appended to the run's inbox in `store` at once (durable when
 * this resolves), and the run takes it at its next turn boundary, whichever process runs it.
 * Rejects with `RunFinishedError` when the run had finished, or was ending (its inbox closed),
 * before the message was recorded, `RunNotFoundError` when the store has no such run,
 * `SteeringInboxFullError` when `maxPendingMessages` messages wait for the run (counting the sends
 * of this process under way: racing ones never go over it together). A message
 * this accepted is taken by the run: before its answer, or (as the run ends without another agent
 * call) recorded as `unanswered`.
 *
 * What `AgentExecutor.send` and `RunClient.send` (`@agentrx/bullmq`) do, for a process that has
 * only the store.
 *
 * @example
 * ```ts
 * import { sendRunMessage, type RunStore } from "@agentrx/executors";
 *
 * async function steer(store: RunStore, runId: string): Promise<void> {
 *   await sendRunMessage(runId, "Also check Rome.", { store, operation: "steer" });
 * }
 * ```
 */
export async function sendRunMessage(
  runId: string,
  given: unknown,
  options: { store: RunStore | undefined; storeTimeoutMs?: number; operation?: string } & Pick<SendMessageOptions, "maxMessageChars" | "maxPendingMessages">,
): Promise<SendMessageResult> {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({ argument: "options", value: options, message: "sendRunMessage: pass the options, e.g. { store } (the store the run records to)." });
  }
  // A misspelt option (`maxPending`, `stor`) would be ignored: refused, naming it.
  checkOptionKeys(typeof options.operation === "string" ? options.operation : "sendRunMessage", options, SEND_RUN_MESSAGE_OPTION_KEYS, "options.");
  const { store, storeTimeoutMs = 10_000, operation = "sendRunMessage", maxMessageChars = DEFAULT_MAX_MESSAGE_CHARS, maxPendingMessages = DEFAULT_MAX_PENDING_MESSAGES } = options;
  if (typeof runId !== "string" || runId === "") {
    throw new InvalidArgumentError({ argument: "runId", value: runId, message: `${operation}: \`runId\` must be a non-empty string, got ${JSON.stringify(runId)}.` });
  }
  validateStore(store, "options.store", operation);
  checkLimit(operation, "maxMessageChars", maxMessageChars);
  checkLimit(operation, "maxPendingMessages", maxPendingMessages);
  const message = toSteeringMessage(given, operation);
  const chars = textLength(message.content);
  if (chars > maxMessageChars) {
    throw new InvalidArgumentError({ argument: "message", value: message, message: `${operation}: the message has ${chars} characters of text; at most ${maxMessageChars} are accepted (\`maxMessageChars\`).` });
  }
  const live = RunSteering.live(runId);
  if (live !== undefined && live.store === undefined) {
    if (live.queuedCount >= maxPendingMessages) throw new SteeringInboxFullError({ operation, runId, limit: maxPendingMessages, pending: live.queuedCount });
    live.push(message);
    return { runId, status: "running" };
  }
  const inbox = live?.store ?? store;
  // A run of this process without a store that has ended: refused as a store refuses one.
  if (inbox === undefined && live === undefined && RunSteering.ended(runId)) throw new RunFinishedError({ runId });
  if (inbox === undefined) {
    throw new InvalidArgumentError({
      argument: "store",
      value: undefined,
      message: `${operation}: no run "${runId}" is going on in this process, and there is no store to send the message through; pass \`store\` to the executor or to send(runId, message, { store }).`,
    });
  }
  if (typeof inbox.appendThreadMessages !== "function") {
    throw new InvalidArgumentError({ argument: "store", value: inbox, message: `${operation}: this store keeps no thread messages (it has no appendThreadMessages), where a run's messages wait for it; use a store from @agentrx/runs.` });
  }
  // The slot is reserved before the first await, so the sends of this process racing each other
  // count one another (the store alone would show none of them until they are appended).
  const slot = reserveSlot(inbox, runId);
  try {
    // As many sends under way as the limit: refused without reading the store.
    if (slot.ahead.length >= maxPendingMessages) throw new SteeringInboxFullError({ operation, runId, limit: maxPendingMessages, pending: slot.ahead.length });
    // Counted through the sender's own store when it has one (its connection, not the run's).
    const counted = await pendingMessages(store ?? inbox, runId, live, maxPendingMessages, storeTimeoutMs);
    const pending = counted.pending + slot.ahead.filter((other) => !seenIn(other, counted.last)).length;
    if (pending >= maxPendingMessages) throw new SteeringInboxFullError({ operation, runId, limit: maxPendingMessages, pending });
    const sent = await appendMessage(inbox, runId, message, storeTimeoutMs);
    slot.inboxSeq = sent.inboxSeq ?? REFUSED;
    return sent;
  } catch (error) {
    slot.inboxSeq = REFUSED;
    throw error;
  } finally {
    releaseSlot(inbox, runId, slot);
  }
}

/**
 * Appends `message` to the run's inbox in `inbox`, checking the run: atomically with the append
 * when the store has `appendRunMessage`, else before and after it.
 */
async function appendMessage(inbox: RunStore, runId: string, message: BaseMessage, storeTimeoutMs: number): Promise<SendMessageResult> {
  if (typeof inbox.appendRunMessage === "function") {
    // The store checks the run and appends in one atomic step (see RunStore.appendRunMessage).
    const stored = encodeMessages([message])[0] as JsonObject;
    const appended = await withStoreTimeout(inbox.appendRunMessage(runId, { message: stored, tokens: 0, runId, at: Date.now() }), storeTimeoutMs, "send", runId);
    return { runId, inboxSeq: appended.inboxSeq, status: appended.status };
  }
  // A store without appendRunMessage: append, then look at the run again (a narrow window remains).
  const info = await withStoreTimeout(inbox.getRun(runId), storeTimeoutMs, "getRun", runId);
  if (info === undefined) throw new RunNotFoundError({ operation: "send", runId });
  if (info.status === "finished") throw new RunFinishedError({ runId, stopReason: info.stopReason });
  const inboxSeq = await appendToInbox(inbox, runId, message, storeTimeoutMs);
  const after = await withStoreTimeout(inbox.getRun(runId), storeTimeoutMs, "getRun", runId);
  if (after?.status === "finished" && !(await joined(inbox, runId, inboxSeq, storeTimeoutMs))) {
    // It finished while the message was being recorded, without taking it.
    throw new RunFinishedError({ runId, stopReason: after.stopReason, late: true });
  }
  return { runId, inboxSeq, status: after?.status ?? info.status };
}

/** A limit option must be a positive integer. */
function checkLimit(operation: string, name: "maxMessageChars" | "maxPendingMessages", value: unknown): void {
  if (typeof value === "number" && Number.isInteger(value) && value > 0) return;
  throw new InvalidArgumentError({ argument: name, value, message: `${operation}: \`${name}\` must be a positive integer, got ${String(value)}.` });
}

/** `Slot.inboxSeq` of a send that was refused or failed: it added nothing to the inbox. */
const REFUSED = -1;

/**
 * A send of this process to a run's inbox, from before it counts the waiting messages until its
 * append settled. `ahead`: the sends to the same inbox that were under way when it began (a send
 * counts those, and they do not count it, so two sends never both take the last place).
 */
interface Slot {
  ahead: readonly Slot[];
  /** Its inbox position once appended, `REFUSED` once refused or failed, undefined while under way. */
  inboxSeq: number | undefined;
}

/**
 * The sends under way in this process, by inbox store and run id. Shared through `globalThis`,
 * as the live runs are (run-steering.ts), so two copies of the package count each other's sends.
 */
const SLOTS = Symbol.for("agentrx.steering.sendSlots");
const slotsByStore: WeakMap<RunStore, Map<string, Slot[]>> = ((globalThis as { [key: symbol]: WeakMap<RunStore, Map<string, Slot[]>> | undefined })[SLOTS] ??= new WeakMap());

/** Registers a send to `runId`'s inbox in `inbox`; synchronous, so racing sends are ordered. */
function reserveSlot(inbox: RunStore, runId: string): Slot {
  let runs = slotsByStore.get(inbox);
  if (runs === undefined) slotsByStore.set(inbox, (runs = new Map()));
  const slots = runs.get(runId) ?? [];
  const slot: Slot = { ahead: [...slots], inboxSeq: undefined };
  slots.push(slot);
  runs.set(runId, slots);
  return slot;
}

/** The send settled: later sends no longer find it (those that began meanwhile keep it in `ahead`). */
function releaseSlot(inbox: RunStore, runId: string, slot: Slot): void {
  const runs = slotsByStore.get(inbox);
  const slots = runs?.get(runId);
  if (runs === undefined || slots === undefined) return;
  slots.splice(slots.indexOf(slot), 1);
  if (slots.length === 0) runs.delete(runId);
}

/**
 * Whether a send ahead is already in a count of the inbox whose last position read was `last`:
 * one refused adds nothing, one appended at or before `last` was read; one still under way, or
 * appended after the read, was not.
 */
function seenIn(other: Slot, last: number): boolean {
  return other.inboxSeq === REFUSED || (other.inboxSeq !== undefined && other.inboxSeq <= last);
}

/** The characters of text of a message's content: a string's, or its text blocks' (images and other blocks do not count). */
function textLength(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let length = 0;
  for (const block of content as unknown[]) {
    if (typeof block === "string") length += block.length;
    else if (typeof block === "object" && block !== null && typeof (block as { text?: unknown }).text === "string") length += ((block as { text: string }).text).length;
  }
  return length;
}

/**
 * How many messages wait in the run's inbox (sent, not yet taken), as far as `max` matters, and
 * the inbox's last position read. Inbox positions are consecutive from 1, so the last one is how
 * many were ever sent: fewer than `max` need no more reading. Otherwise what the run took is its
 * live steering's in this process, else the last inbox position among the `message` events of its
 * record. (The sends of this process are counted exactly, see `reserveSlot`; senders of other
 * processes racing each other may together go a few over: the limit bounds a run's inbox, it is
 * no exact quota across processes.)
 */
async function pendingMessages(store: RunStore, runId: string, live: RunSteering | undefined, max: number, timeoutMs: number): Promise<{ pending: number; last: number }> {
  // A store that cannot read its threads back (a partial one of your own) cannot count them.
  if (typeof store.readThreadMessages !== "function") return { pending: 0, last: Number.POSITIVE_INFINITY };
  const newest = await withStoreTimeout(store.readThreadMessages(runInboxId(runId), { newestFirst: true, limit: 1 }), timeoutMs, "readInbox", runId);
  // (Taking the highest seq read: a store may return more than asked, oldest first.)
  const last = newest.reduce((highest, row) => Math.max(highest, row.seq), 0);
  if (last < max) return { pending: last, last };
  if (live?.store !== undefined) return { pending: last - live.takenUpTo, last };
  const events = await withStoreTimeout(store.readEvents(runId), timeoutMs, "readEvents", runId);
  let taken = 0;
  for (const { type, data } of events) {
    const seq = data["inboxSeq"];
    if (type === "message" && data["subRun"] === undefined && typeof seq === "number" && seq > taken) taken = seq;
  }
  return { pending: last - taken, last };
}

/** Whether the run's record has the `message` event of inbox position `inboxSeq`. */
async function joined(store: RunStore, runId: string, inboxSeq: number, timeoutMs: number): Promise<boolean> {
  const events = await withStoreTimeout(store.readEvents(runId), timeoutMs, "readEvents", runId);
  return events.some((stored) => stored.type === "message" && stored.data["inboxSeq"] === inboxSeq);
}
