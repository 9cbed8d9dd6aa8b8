import { RunStoreError, type JsonObject, type NewThreadMessage, type ReadThreadMessagesOptions, type StoredThreadMessage } from "@agentrx/executors";
import { checkKey, checkThreadKey, checkObject, checkPositiveInteger, checkTime, invalid, toJsonText } from "./validate-run-arguments";

/** A thread message as a store's table holds it (`agentrx_thread_messages`): the message as JSON text. */
export interface ThreadMessageRow {
  seq: number;
  run_id: string | null;
  tokens: number;
  at: number;
  message: string;
}

/** A message to append, checked and serialized; the store gives it its seq. */
export type NewThreadMessageRow = Omit<ThreadMessageRow, "seq">;

/** The checked and normalized options of `readThreadMessages`. */
export interface ThreadRead {
  after: number;
  /** The exclusive upper bound of seq (`Number.MAX_SAFE_INTEGER` when none was given). */
  before: number;
  limit: number | undefined;
  newestFirst: boolean;
}

/** Checks the arguments of `appendThreadMessages` and returns the rows to insert, in order. */
export function threadMessageRows(threadId: string, messages: readonly NewThreadMessage[]): NewThreadMessageRow[] {
  const operation = "appendThreadMessages";
  checkThreadKey(operation, "threadId", threadId);
  if (!Array.isArray(messages)) throw invalid(operation, "messages", messages, "an array");
  return messages.map((entry: NewThreadMessage, index) => {
    const name = `messages[${index}]`;
    if (entry === null || typeof entry !== "object") throw invalid(operation, name, entry, "an object with message, tokens and at");
    checkObject(operation, `${name}.message`, entry.message);
    if (typeof entry.tokens !== "number" || !Number.isSafeInteger(entry.tokens) || entry.tokens < 0) {
      throw invalid(operation, `${name}.tokens`, entry.tokens, "an integer >= 0");
    }
    if (entry.runId !== undefined) checkKey(operation, `${name}.runId`, entry.runId);
    checkTime(operation, `${name}.at`, entry.at);
    return { run_id: entry.runId ?? null, tokens: entry.tokens, at: entry.at, message: toJsonText(operation, `${name}.message`, entry.message) };
  });
}

/** Checks the arguments of `readThreadMessages`. */
export function checkThreadRead(threadId: string, options: ReadThreadMessagesOptions | undefined): ThreadRead {
  const operation = "readThreadMessages";
  checkThreadKey(operation, "threadId", threadId);
  if (options === undefined) return { after: 0, before: Number.MAX_SAFE_INTEGER, limit: undefined, newestFirst: false };
  if (options === null || typeof options !== "object") throw invalid(operation, "options", options, "an object");
  const after = options.after ?? 0;
  if (typeof after !== "number" || !Number.isSafeInteger(after) || after < 0) throw invalid(operation, "options.after", after, "an integer >= 0");
  const before = options.before === undefined ? Number.MAX_SAFE_INTEGER : checkPositiveInteger(operation, "options.before", options.before);
  const limit = options.limit === undefined ? undefined : checkPositiveInteger(operation, "options.limit", options.limit);
  if (options.newestFirst !== undefined && typeof options.newestFirst !== "boolean") throw invalid(operation, "options.newestFirst", options.newestFirst, "a boolean");
  return { after, before, limit, newestFirst: options.newestFirst === true };
}

/** The message a row holds; rejects a corrupt row with a `RunStoreError` naming the thread and the seq. */
export function storedThreadMessageOf(threadId: string, row: ThreadMessageRow, store: string): StoredThreadMessage {
  let message: unknown;
  let problem: string | undefined;
  try {
    message = JSON.parse(row.message);
    if (message === null || typeof message !== "object" || Array.isArray(message)) problem = "its message is not a JSON object";
  } catch (cause) {
    problem = `its message is not valid JSON (${(cause as Error).message})`;
  }
  if (problem !== undefined) {
    throw new RunStoreError({
      reason: "corrupt",
      operation: "readThreadMessages",
      message: `${store}: message ${row.seq} of thread "${threadId}" is corrupt: ${problem}. Clear the thread (clearThread) or repair the row.`,
    });
  }
  const stored: StoredThreadMessage = { seq: row.seq, message: message as JsonObject, tokens: row.tokens, at: row.at };
  if (row.run_id !== null) stored.runId = row.run_id;
  return stored;
}

/** The message a thread-level store error names. */
export function threadSubject(threadId: string): string {
  return `thread "${threadId}"`;
}
