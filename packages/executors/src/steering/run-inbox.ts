import type { BaseMessage } from "@langchain/core/messages";
import { decodeMessages, encodeMessages } from "../runs/json-value";
import type { JsonObject, RunStore } from "../runs/run-store";
import { withStoreTimeout } from "../runs/with-store-timeout";

/**
 * The messages sent to a run live in the store as the messages of a thread of their own, named
 * after the run: appending needs no lease (the store gives each its position atomically, across
 * processes) and never touches the run's record, whose writes stay the lease holder's alone. The
 * run reads them at each turn boundary and records each one it takes as a `message` event.
 */
const INBOX_PREFIX = "agentrx:run-inbox:";

/**
 * The thread id under which a store keeps a run's inbox (the messages sent to it, see
 * docs/steering.md). A store deletes this thread with its run (`deleteRun`, `pruneRuns`).
 *
 * @example
 * ```ts
 * import { runInboxId } from "@agentrx/executors";
 *
 * console.log(runInboxId("r1")); // "agentrx:run-inbox:r1"
 * ```
 */
export function runInboxId(runId: string): string {
  return `${INBOX_PREFIX}${runId}`;
}

/** A message waiting in a run's inbox. @internal */
export interface InboxMessage {
  /** Its position in the inbox (1-based; store-assigned). */
  inboxSeq: number;
  message: BaseMessage;
}

/** Appends `message` to the run's inbox; resolves with its position. @internal */
export async function appendToInbox(store: RunStore, runId: string, message: BaseMessage, timeoutMs: number): Promise<number> {
  const stored = encodeMessages([message])[0] as JsonObject;
  const [seq] = await withStoreTimeout(store.appendThreadMessages(runInboxId(runId), [{ message: stored, tokens: 0, runId, at: Date.now() }]), timeoutMs, "send", runId);
  return seq as number;
}

/** The inbox's messages after position `after`, oldest first. @internal */
export async function readInbox(store: RunStore, runId: string, after: number, timeoutMs: number): Promise<InboxMessage[]> {
  const rows = await withStoreTimeout(store.readThreadMessages(runInboxId(runId), { after }), timeoutMs, "readInbox", runId);
  return rows.map((row) => ({ inboxSeq: row.seq, message: decodeMessages([row.message])[0] as BaseMessage }));
}
