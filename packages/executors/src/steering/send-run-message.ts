import { InvalidArgumentError } from "@agentrx/core";
import { type BaseMessage, HumanMessage, isBaseMessage } from "@langchain/core/messages";
import { encodeMessages } from "../runs/json-value";
import type { JsonObject, RunStatus, RunStore } from "../runs/run-store";
import { RunNotFoundError } from "../runs/run-store-errors";
import { withStoreTimeout } from "../runs/with-store-timeout";
import { appendToInbox } from "./run-inbox";
import { RunFinishedError } from "./run-finished-error";
import { RunSteering } from "./run-steering";

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
}

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

/**
 * Sends a message to a run (see docs/steering.md): a run of this process that records to no store
 * gets it in memory; otherwise it is appended to the run's inbox in `store` at once (durable when
 * this resolves), and the run takes it at its next turn boundary, whichever process runs it.
 * Rejects with `RunFinishedError` when the run had finished, or was ending (its inbox closed),
 * before the message was recorded, `RunNotFoundError` when the store has no such run. A message
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
  { store, storeTimeoutMs = 10_000, operation }: { store: RunStore | undefined; storeTimeoutMs?: number; operation: string },
): Promise<SendMessageResult> {
  if (typeof runId !== "string" || runId === "") {
    throw new InvalidArgumentError({ argument: "runId", value: runId, message: `${operation}: \`runId\` must be a non-empty string, got ${JSON.stringify(runId)}.` });
  }
  const message = toSteeringMessage(given, operation);
  const live = RunSteering.live(runId);
  if (live !== undefined && live.store === undefined) {
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

/** Whether the run's record has the `message` event of inbox position `inboxSeq`. */
async function joined(store: RunStore, runId: string, inboxSeq: number, timeoutMs: number): Promise<boolean> {
  const events = await withStoreTimeout(store.readEvents(runId), timeoutMs, "readEvents", runId);
  return events.some((stored) => stored.type === "message" && stored.data["inboxSeq"] === inboxSeq);
}
