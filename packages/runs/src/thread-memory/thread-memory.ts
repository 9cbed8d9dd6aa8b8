import { checkOptionKeys, InvalidArgumentError, refusePromise } from "@agentrx/core";
import { RunStoreError, runInboxId, type JsonObject, type NewThreadMessage, type RunStore, type StoredThreadMessage } from "@agentrx/executors";
import { isBaseMessage, mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages, type BaseMessage, type StoredMessage } from "@langchain/core/messages";
import { estimateMessageTokens } from "./estimate-message-tokens";
import { selectWindow } from "./select-window";
import { withoutToolMessages } from "./without-tool-messages";

/** How many messages `hasRunMessages` reads at a time. */
const RUN_MESSAGES_PAGE = 100;

/** Options of {@link ThreadMemory}. */
export interface ThreadMemoryOptions {
  /** Where each thread's messages are kept: any `RunStore` (`MemoryRunStore`, `SqliteRunStore`, `PostgresRunStore`, or yours). */
  store: RunStore;
  /**
   * The window's budget: `getMessages` returns the newest messages whose token counts add up to
   * at most this (an integer >= 1). A leading system message is kept even when it alone is larger.
   */
  maxTokens: number;
  /**
   * Counts a message's tokens. Called once per message, when `addMessages` writes it; the count is
   * stored with the message and never recomputed (a different function later applies to new
   * messages only). Must return a finite number >= 0 (rounded up to an integer), synchronously: a
   * Promise is refused (`InvalidArgumentError` naming `countTokens`), its rejection handled.
   * @default estimateMessageTokens (offline; within a few percent of OpenAI's o200k_base on English)
   */
  countTokens?: (message: BaseMessage) => number;
  /**
   * Whether `addMessages` keeps tool calls and their results. When false, it drops tool messages
   * and AI messages that only call tools, and keeps what an AI message says without the calls it
   * makes: the thread holds the user's input and the answers.
   * @default false
   */
  includeToolMessages?: boolean;
  /**
   * Move the window's start in steps of this many messages (an integer >= 1), for prompt caching:
   * the window starts at a message whose position in the thread is a multiple of `cutEvery` (or
   * at the first whole message after it), so from one run to the next the history keeps the same
   * beginning, and the provider's prompt cache keeps serving it, until the thread has grown by
   * about `cutEvery` messages. The window then holds fewer messages than `maxTokens` allows, by
   * up to `cutEvery`. @default 1 (the window starts wherever the budget ends)
   */
  cutEvery?: number;
  /**
   * Which message a window the budget cut starts on. `"human"`: the first user's message (a
   * `HumanMessage`, or a `ChatMessage` with role `user`) at or after the cut (after `cutEvery`'s
   * step too), so the history never opens on an answer whose question was cut off (Anthropic and
   * Gemini require the conversation to start with the user's turn); when the window holds no
   * user's message, it is empty (or the leading system message alone). `"any"`: the window starts
   * wherever the budget (and `cutEvery`) ends, on any message but a tool result. A window that
   * holds the whole thread is kept whole either way. @default "human"
   */
  startOn?: "human" | "any";
}

/** Options of {@link ThreadMemory.addMessages}. */
export interface AddThreadMessagesOptions {
  /** The run that produced the messages, stored with each of them. */
  runId?: string;
}

function invalid(argument: string, value: unknown, expected: string): InvalidArgumentError {
  const shown = typeof value === "function" ? "a function" : typeof value === "string" ? JSON.stringify(value) : String(value);
  return new InvalidArgumentError({ argument, value, message: `ThreadMemory: ${argument} must be ${expected}, got ${shown}.` });
}

/**
 * A conversation's memory on a run store: the messages of each thread, with each message's token
 * count computed once, when it is written, and `getMessages` for the newest messages that fit in
 * `maxTokens` (never splitting a tool call from its results, never starting on an orphaned tool
 * message, always keeping a leading system message, and, when the budget cuts the thread, starting
 * on a user's message: see `startOn`). Selecting the window reads the thread from
 * its newest message backwards, a page at a time, and stops when the budget is spent: its cost
 * follows the window, not the thread's length.
 *
 * @example
 * ```ts
 * import { MemoryRunStore, ThreadMemory } from "@agentrx/runs";
 * import { AIMessage, HumanMessage } from "@langchain/core/messages";
 *
 * const memory = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 2000 });
 * await memory.addMessages("user-42", [new HumanMessage("Hi, I'm Ada."), new AIMessage("Hello Ada!")]);
 * const history = await memory.getMessages("user-42");
 * console.log(history.map((message) => message.text)); // [ "Hi, I'm Ada.", "Hello Ada!" ]
 * ```
 */
export class ThreadMemory {
  /** The store the messages are kept in. */
  readonly store: RunStore;
  /** The window's budget, in tokens. */
  readonly maxTokens: number;
  /** Whether tool calls and their results are kept. */
  readonly includeToolMessages: boolean;
  /** The step, in messages, the window's start moves by. */
  readonly cutEvery: number;
  /** Which message a window the budget cut starts on. */
  readonly startOn: "human" | "any";
  readonly #countTokens: (message: BaseMessage) => number;

  constructor(options: ThreadMemoryOptions) {
    if (options === null || typeof options !== "object") throw invalid("options", options, "an object with store and maxTokens");
    checkOptionKeys("ThreadMemory", options, ["store", "maxTokens", "countTokens", "includeToolMessages", "cutEvery", "startOn"]);
    const { store, maxTokens, countTokens = estimateMessageTokens, includeToolMessages = false, cutEvery = 1, startOn = "human" } = options;
    const missing = (["appendThreadMessages", "readThreadMessages", "clearThread"] as const).filter(
      (method) => typeof (store as Partial<RunStore> | null | undefined)?.[method] !== "function",
    );
    if (store === null || typeof store !== "object" || missing.length > 0) {
      throw new InvalidArgumentError({
        argument: "store",
        value: store,
        message: `ThreadMemory: store must be a RunStore that keeps thread messages (e.g. new SqliteRunStore() from @agentrx/runs)${missing.length > 0 && store !== null && typeof store === "object" ? `; it has no ${missing.join(", ")} method` : ""}.`,
      });
    }
    if (typeof maxTokens !== "number" || !Number.isSafeInteger(maxTokens) || maxTokens < 1) throw invalid("maxTokens", maxTokens, "an integer >= 1 (tokens)");
    if (typeof countTokens !== "function") throw invalid("countTokens", countTokens, "a function (message) => number");
    if (typeof includeToolMessages !== "boolean") throw invalid("includeToolMessages", includeToolMessages, "a boolean");
    if (!Number.isSafeInteger(cutEvery) || cutEvery < 1) throw invalid("cutEvery", cutEvery, "an integer >= 1 (messages)");
    if (startOn !== "human" && startOn !== "any") throw invalid("startOn", startOn, '"human" or "any"');
    this.cutEvery = cutEvery;
    this.startOn = startOn;
    this.store = store;
    this.maxTokens = maxTokens;
    this.includeToolMessages = includeToolMessages;
    this.#countTokens = countTokens;
  }

  /**
   * The thread's window: its newest messages whose stored token counts add up to at most
   * `maxTokens`, oldest first, as `@langchain/core` messages (from a user's message when the
   * budget cuts the thread, unless `startOn` is `"any"`). An unknown thread has none.
   */
  async getMessages(threadId: string): Promise<BaseMessage[]> {
    checkThreadId(threadId);
    const window = await selectWindow(
      (before, limit) => this.store.readThreadMessages(threadId, { newestFirst: true, limit, ...(before === undefined ? {} : { before }) }),
      this.maxTokens,
      { cutEvery: this.cutEvery, startOn: this.startOn },
    );
    return window.map((stored) => toMessage(threadId, stored));
  }

  /**
   * Appends messages to the thread, in order and at once (all or none), each with its token count.
   * Without `includeToolMessages`, tool calls and results are left out first (see the option).
   */
  async addMessages(threadId: string, messages: readonly BaseMessage[], options: AddThreadMessagesOptions = {}): Promise<void> {
    checkThreadId(threadId);
    if (!Array.isArray(messages)) throw invalid("messages", messages, "an array of @langchain/core messages");
    messages.forEach((message, index) => {
      if (!isBaseMessage(message)) throw invalid(`messages[${index}]`, message, "a @langchain/core message (HumanMessage, AIMessage, ...)");
    });
    if (options === null || typeof options !== "object") throw invalid("options", options, "an object");
    checkOptionKeys("ThreadMemory", options, ["runId"], "options.");
    const { runId } = options;
    if (runId !== undefined && (typeof runId !== "string" || runId === "")) throw invalid("runId", runId, "a non-empty string");
    const kept = this.includeToolMessages ? [...messages] : withoutToolMessages(messages);
    if (kept.length === 0) return;
    const stored = mapChatMessagesToStoredMessages(kept);
    const at = Date.now();
    const entries: NewThreadMessage[] = kept.map((message, index) => ({
      // toDict() copies the message's fields; JSON is what the store keeps.
      message: stored[index] as unknown as JsonObject,
      tokens: this.#count(message, index),
      at,
      ...(runId === undefined ? {} : { runId }),
    }));
    await this.store.appendThreadMessages(threadId, entries);
  }

  /**
   * Whether the thread holds messages appended for run `runId` (`addMessages` with that `runId`),
   * read from the newest back to those appended before `since` (epoch ms; all of them without it),
   * a page at a time. The executor asks it when it resumes a run whose answer was recorded but
   * whose process stopped before the run's messages were appended (see docs/memory.md).
   */
  async hasRunMessages(threadId: string, runId: string, options: { since?: number } = {}): Promise<boolean> {
    checkThreadId(threadId);
    if (typeof runId !== "string" || runId === "") throw invalid("runId", runId, "a non-empty string");
    if (options === null || typeof options !== "object") throw invalid("options", options, "an object");
    checkOptionKeys("ThreadMemory.hasRunMessages", options, ["since"], "options.");
    const { since } = options;
    if (since !== undefined && !Number.isFinite(since)) throw invalid("since", since, "a time in epoch milliseconds");
    let before: number | undefined;
    for (;;) {
      const page = await this.store.readThreadMessages(threadId, { newestFirst: true, limit: RUN_MESSAGES_PAGE, ...(before === undefined ? {} : { before }) });
      for (const message of page) {
        if (since !== undefined && message.at < since) return false;
        if (message.runId === runId) return true;
      }
      if (page.length < RUN_MESSAGES_PAGE) return false;
      before = (page[page.length - 1] as StoredThreadMessage).seq;
    }
  }

  /** Deletes the thread's messages; resolves with how many there were. */
  async clear(threadId: string): Promise<number> {
    checkThreadId(threadId);
    return this.store.clearThread(threadId);
  }

  #count(message: BaseMessage, index: number): number {
    const tokens: unknown = this.#countTokens(message);
    // A count beyond Number.MAX_SAFE_INTEGER is not a count: stores keep safe integers.
    if (typeof tokens !== "number" || !Number.isSafeInteger(Math.ceil(tokens)) || tokens < 0) {
      const what = `for messages[${index}] (a ${message.type} message)`;
      // Refused, not awaited: its rejection, if any, is handled rather than left to crash the process.
      if (refusePromise(tokens)) {
        throw new InvalidArgumentError({
          argument: "countTokens",
          value: tokens,
          message: `ThreadMemory: countTokens must return a finite number >= 0 (at most Number.MAX_SAFE_INTEGER), synchronously, got a Promise ${what}: count with a synchronous tokenizer, loaded before the ThreadMemory is created (docs/memory.md).`,
        });
      }
      throw new InvalidArgumentError({
        argument: "countTokens",
        value: tokens,
        message: `ThreadMemory: countTokens must return a finite number >= 0 (at most Number.MAX_SAFE_INTEGER), got ${String(tokens)} ${what}.`,
      });
    }
    return Math.ceil(tokens);
  }
}

/** The prefix of the threads a store keeps runs' inboxes in (see `runInboxId`): not a conversation. */
const INBOX_PREFIX = runInboxId("");

function checkThreadId(threadId: unknown): void {
  if (typeof threadId !== "string" || threadId === "") throw invalid("threadId", threadId, "a non-empty string");
  // Reading or writing there would read or steer another run (docs/steering.md).
  if (threadId.startsWith(INBOX_PREFIX)) throw invalid("threadId", threadId, `a thread id that does not start with "${INBOX_PREFIX}" (the threads of runs' inboxes)`);
}

/** The `@langchain/core` message a stored one holds; a message it cannot read fails naming the thread and the seq. */
function toMessage(threadId: string, stored: StoredThreadMessage): BaseMessage {
  try {
    const { type, data } = stored.message;
    if (typeof type !== "string" || data === null || typeof data !== "object" || Array.isArray(data)) throw new Error("it has no type and data");
    return mapStoredMessagesToChatMessages([stored.message as unknown as StoredMessage])[0]!;
  } catch (cause) {
    throw new RunStoreError({
      operation: "readThreadMessages",
      message: `ThreadMemory: message ${stored.seq} of thread "${threadId}" is not a message @langchain/core can read (${(cause as Error).message}). Clear the thread (clear) or repair the row.`,
      cause,
    });
  }
}
