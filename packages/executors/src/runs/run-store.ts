import type { RunUsage } from "../cost/cost";

/**
 * Where a run is in its life. `queued`: recorded, not started (a worker queue); `running`: a
 * process holds its lease; `interrupted`: paused for approval; `finished`: it produced its output;
 * `failed`: it errored (`error` says why); `cancelled`: its subscriber unsubscribed or its signal
 * aborted. Every status but `finished` can be resumed.
 */
export type RunStatus = "queued" | "running" | "interrupted" | "finished" | "failed" | "cancelled";

/** A JSON value, as a store keeps it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * One event of a run as a store keeps it: the serialized form of an `AgentStreamEvent` (plus the
 * record-only `model_call` entries), with its 1-based position in the run's record.
 */
export interface StoredRunEvent {
  /** 1-based position in the run's record; consecutive, assigned by the writer. */
  seq: number;
  /** The event's `type` (`start`, `action`, `step`, `token`, `usage`, `output`, `model_call`, ...). */
  type: string;
  /** When it happened, epoch milliseconds. */
  at: number;
  /** The serialized event (what `encodeRunEvent` produced), `type` and `at` included. */
  data: JsonObject;
}

/**
 * The small, fixed-size checkpoint a run writes with each batch of events: what resuming needs
 * besides the events themselves. Its size does not grow with the run's length.
 */
export interface RunCheckpoint {
  /** The schema of the run state this checkpoint belongs to. */
  schemaVersion: number;
  /**
   * Agent calls made so far (iterations), over every segment of the run, counted as a resume counts
   * them: once their outcome is recorded (a call under way, or cut off while its model answered,
   * is not counted; see docs/runs.md, Resume).
   */
  iteration: number;
  /** Wall time spent running, in milliseconds, over every segment so far. */
  elapsedMs: number;
  /** The run's total usage so far, summed over its model calls. */
  usage?: RunUsage;
  /** The loop's phase at the time of the write. */
  phase: string;
  /**
   * The W3C `traceparent` of the `invoke_agent` span of the run's last traced segment (the
   * executor's `telemetry` option; a segment that is not traced keeps the one before, and a fork's
   * record starts with its source's): the span of the next traced segment that resumes the run, or
   * of a fork's first segment, links to it (see docs/telemetry.md).
   */
  traceparent?: string;
}

/** What `getRun` and `listRuns` return about a run. */
export interface RunInfo {
  runId: string;
  /** The conversation the run belongs to, if any. */
  threadId?: string;
  status: RunStatus;
  /** Why the run ended (`finish`, `max_iterations`, ...); set once it has an output. */
  stopReason?: string;
  /** The inputs the run started with. */
  inputs: JsonObject;
  /** The run's total usage, summed over its model calls; absent when no model reported usage. */
  usage?: RunUsage;
  /** Why the run failed (status `failed`), or what cannot be read of a corrupt record. */
  error?: string;
  /** The last checkpoint written. */
  checkpoint?: RunCheckpoint;
  /** Free-form labels given at creation (e.g. the executor's name on a worker). */
  metadata?: JsonObject;
  /**
   * Epoch milliseconds: exactly the `at` the run was created with (`createRun`), never a time of
   * the store's own. A BullMQ worker tells a run's jobs from those of an earlier, deleted run of the
   * same id by its `metadata.submissionId`, or by this time for a job queued before submission ids
   * (the store conformance suite checks it).
   */
  createdAt: number;
  /** Epoch milliseconds of the last write. */
  updatedAt: number;
  /** How many events are recorded (the `seq` of the last one; 0 when none). */
  eventCount: number;
  /** Who holds the run's lease while it is `running` (a process-unique id). */
  owner?: string;
  /** When that lease expires, epoch milliseconds. */
  leaseExpiresAt?: number;
  /**
   * The run's fencing token: 1 when it is created, one more at every `claimRun`. On `claimRun`'s
   * result it is the epoch that claim took (the other fields are the run as it was before the
   * claim). A write that carries an older epoch is refused with `RunLeaseLostError`. Absent from
   * stores written before fencing existed.
   */
  epoch?: number;
  /** The run this one was forked from, and at which iteration (see `AgentExecutor.fork`). */
  forkOf?: ForkOf;
  /**
   * The start of the run's input (its `input` when that is a string, else its inputs as JSON), at
   * most 200 characters. Set by the stores of `@agentrx/runs`.
   */
  inputPreview?: string;
  /** The start of the run's final answer, at most 200 characters; absent until it has one. */
  answerPreview?: string;
  /**
   * On a `listRuns` row: pass it as `ListRunsOptions.cursor` (with the same filters and sort) for
   * the runs after this one.
   */
  cursor?: string;
}

/** Where a forked run came from: the source run and the iteration its copied prefix ends before. */
export interface ForkOf {
  runId: string;
  /** The copied prefix holds the source's iterations `0 .. iteration - 1`. */
  iteration: number;
}

/**
 * Filters, sort and paging of `listRuns`. By default runs come newest first (by `createdAt`, then
 * `runId`). A page ends with a row whose `cursor` continues the listing:
 * `listRuns({ ...same, cursor: page.at(-1)!.cursor })`.
 */
export interface ListRunsOptions {
  threadId?: string | undefined;
  status?: RunStatus | readonly RunStatus[] | undefined;
  /** Only runs created at or after this time (epoch ms or Date). */
  since?: number | Date | undefined;
  /** Only runs created before this time (epoch ms or Date). */
  before?: number | Date | undefined;
  /** At most this many runs (an integer >= 1). @default 100 */
  limit?: number | undefined;
  /**
   * Full-text search over each run's input and final answer: every word must start a word of the
   * run's text (case-insensitive; `"par wea"` finds "Weather in Paris"). Words are runs of letters
   * and digits; other characters only separate them.
   */
  search?: string | undefined;
  /** `true`: only runs with an `error` (failed, or cancelled with a reason); `false`: only runs without. */
  hasError?: boolean | undefined;
  /** Only runs that cost at least this many US dollars (a run without a priced call costs 0). */
  minCost?: number | undefined;
  /** Only runs that cost at most this many US dollars. */
  maxCost?: number | undefined;
  /** What the runs are sorted by (ties by `runId`). @default "createdAt" */
  sort?: "createdAt" | "updatedAt" | "cost" | undefined;
  /** Sort direction. @default "desc" */
  order?: "asc" | "desc" | undefined;
  /** The `cursor` of the last row of the previous page: the runs after it. */
  cursor?: string | undefined;
}

/** A run to create. */
export interface NewRun {
  runId: string;
  threadId?: string | undefined;
  inputs: JsonObject;
  /** `running` (with `owner` and `leaseMs`) or `queued`. */
  status: "running" | "queued";
  /** The process-unique id that takes the lease (with status `running`). */
  owner?: string | undefined;
  /** Lease length in milliseconds (with status `running`). */
  leaseMs?: number | undefined;
  metadata?: JsonObject | undefined;
  /** The run this one is a fork of (shown by `listRuns` and `getRun`). */
  forkOf?: ForkOf | undefined;
  /** Creation time, epoch ms. */
  at: number;
}

/** Changes a write makes to the run's row, next to the events it appends. */
export interface RunUpdate {
  status?: RunStatus | undefined;
  stopReason?: string | undefined;
  usage?: RunUsage | undefined;
  error?: string | undefined;
  checkpoint?: RunCheckpoint | undefined;
  /** Gives up the lease (with a status other than `running`). */
  release?: boolean | undefined;
  /**
   * Closes the run's inbox (see docs/steering.md) when it holds no message after this position
   * (the last one the run took), in the same atomic step as the rest of the write: from then on
   * `appendRunMessage` refuses messages with `RunFinishedError`, until the next `claimRun` opens
   * it again. When the inbox does hold a later message it stays open and the rest of the write is
   * applied all the same; the write's result says which (`inboxClosed`). What a run writes just
   * before it ends with an answer, so that no message is accepted that it would not take.
   */
  closeInbox?: number | undefined;
}

/** What a store's `write` reports (the stores of `@agentrx/runs` do; `void` from a store that does not). */
export interface RunWriteResult {
  /** The last position in the run's inbox when the write was applied (0: nothing sent). */
  inboxSeq: number;
  /** With `update.closeInbox`: whether the inbox was closed (false: a message waits after that position). */
  inboxClosed?: boolean;
}

/** What `RunStore.appendRunMessage` did with a message. */
export interface RunMessageAppended {
  /** The message's position in the run's inbox (1-based; store-assigned). */
  inboxSeq: number;
  /** The run's status when the message was appended (never `finished`). */
  status: RunStatus;
}

/** One write: events to append and changes to the run, applied together or not at all. */
export interface RunWrite {
  /** The lease holder; the write fails with `RunLeaseLostError` when it no longer holds the lease. */
  owner: string;
  /** Lease length in milliseconds: every write renews the lease to `at + leaseMs`. */
  leaseMs: number;
  /**
   * The writer's fencing token (from `createRun`: 1, or from its `claimRun`). When given, the store
   * refuses the write with `RunLeaseLostError` unless it equals the run's current epoch, in the
   * same statement that appends (compare-and-set): a process that lost the run cannot write to it.
   */
  epoch?: number | undefined;
  /** Events to append, `seq` consecutive after the last recorded one. */
  events: readonly StoredRunEvent[];
  update?: RunUpdate | undefined;
  /** Time of the write, epoch ms. */
  at: number;
}

/** Cancelling a run from any process: see `RunStore.cancelRun`. */
export interface CancelRun {
  /** Why, kept as the run's `error` (e.g. `The run was cancelled from agentrx ui.`). */
  reason: string;
  /** Time of the cancel, epoch ms. */
  at: number;
}

/** Taking a run's lease to run (or resume) it. */
export interface ClaimRun {
  owner: string;
  leaseMs: number;
  at: number;
}

/**
 * A message to append to a conversation (a thread), as `RunStore.appendThreadMessages` takes it.
 * `ThreadMemory` (in `@agentrx/runs`) writes these; the store keeps them as given.
 */
export interface NewThreadMessage {
  /** The message, serialized (`ThreadMemory` stores `@langchain/core`'s `StoredMessage` form). */
  message: JsonObject;
  /** Its token count, computed once by the writer (an integer >= 0), so reading a window never recounts. */
  tokens: number;
  /** The run that produced it, if any. */
  runId?: string | undefined;
  /** When it was written, epoch ms. */
  at: number;
}

/** A message of a thread as a store keeps it: what was appended, plus its position. */
export interface StoredThreadMessage {
  /**
   * 1-based position in the thread, assigned by the store when the message is appended: the
   * messages of one append get consecutive values, in the order given, after every message
   * appended before. After `clearThread` the thread starts again at 1.
   */
  seq: number;
  message: JsonObject;
  tokens: number;
  runId?: string;
  at: number;
}

/**
 * Which messages of a thread `readThreadMessages` returns: those with `after < seq < before`,
 * oldest first (or newest first), at most `limit` of them, taken from the end the order starts at.
 * Reading a long thread from its newest message backwards, a page at a time:
 * `{ newestFirst: true, limit: 50 }`, then `{ newestFirst: true, limit: 50, before: <smallest seq read> }`.
 */
export interface ReadThreadMessagesOptions {
  /** Only messages with a `seq` greater than this (an integer >= 0). @default 0 */
  after?: number | undefined;
  /** Only messages with a `seq` smaller than this (an integer >= 1). @default no bound */
  before?: number | undefined;
  /** At most this many messages (an integer >= 1). @default no limit */
  limit?: number | undefined;
  /** Newest (highest `seq`) first, and `limit` counts from the newest. @default false */
  newestFirst?: boolean | undefined;
}

/**
 * Where runs are recorded. Every store (`MemoryRunStore`, `SqliteRunStore`, `PostgresRunStore` in
 * `@agentrx/runs`, or your own) implements this interface and passes the conformance suite. Writes
 * are append-only events plus a small checkpoint on the run's row, so what a step writes does not
 * grow with the run's length. A store also keeps the messages of threads (conversations), which
 * `ThreadMemory` reads back newest first, a page at a time.
 *
 * Errors: `RunNotFoundError` for an unknown run where one is required, `RunBusyError` when another
 * process holds the lease, `RunLeaseLostError` when a writer lost its lease, `RunStoreError` for
 * everything else (its `runId` and `operation` name what failed; the driver's error is its `cause`).
 *
 * @example
 * ```ts
 * import type { RunStore } from "@agentrx/executors";
 *
 * async function statusOf(store: RunStore, runId: string): Promise<string> {
 *   return (await store.getRun(runId))?.status ?? "unknown";
 * }
 * ```
 */
export interface RunStore {
  /** Records a new run (at epoch 1). Rejects with `RunStoreError` when `runId` exists already. */
  createRun(run: NewRun): Promise<void>;
  /**
   * Takes the run's lease (compare-and-set): succeeds when the run is not `running`, its lease has
   * expired, or `owner` holds it already; the run becomes `running` under `owner` and its `epoch`
   * goes up by one; its `error` (why it stopped before: a cancel, a crash) is cleared. Resolves with
   * the run as it was before the claim, except `epoch`, which is the
   * new one (the claimant's fencing token). Rejects with `RunNotFoundError` or `RunBusyError`.
   */
  claimRun(runId: string, claim: ClaimRun): Promise<RunInfo>;
  /**
   * Appends events and updates the run, atomically; renews the lease. Resolves with the inbox's
   * last position (see {@link RunWriteResult}), or nothing from a store that keeps no inboxes.
   */
  write(runId: string, write: RunWrite): Promise<RunWriteResult | void>;
  /**
   * Cancels a run from any process, durably (compare-and-set): a `queued`, `running` or
   * `interrupted` run becomes `cancelled` with `reason` as its `error`, its lease is released and
   * its `epoch` goes up by one, so the process that runs it is refused its next write (a quiet run
   * renews its lease every third of it) with a `RunLeaseLostError` saying it was cancelled, and
   * stops. Resolves with whether the run was cancelled (false: it had ended, or is unknown).
   * The stores of `@agentrx/runs` also cancel, in the same atomic step, the sub-runs (`handoff`,
   * `asTool`) the run's last pause waits on (its interrupts' `subRun.runId`) that are recorded in
   * the same store and still `interrupted` or `queued`, recursively, each with the error
   * `Its calling run "<id>" was cancelled: <reason>`; other sub-runs are not touched (see
   * docs/approval.md, "A pause inside a handoff"). A store of your own should do the same; one that
   * does not leaves such sub-runs paused.
   * Optional: `agentrx ui` uses it to cancel runs of other processes.
   */
  cancelRun?(runId: string, cancel: CancelRun): Promise<boolean>;
  /** The run, or `undefined` when unknown. */
  getRun(runId: string): Promise<RunInfo | undefined>;
  /** The run's events with `seq > after` (default 0), in order; at most `limit`. */
  readEvents(runId: string, options?: { after?: number | undefined; limit?: number | undefined }): Promise<StoredRunEvent[]>;
  /** Runs matching the filters, newest first. A corrupt row is listed with `error` set, never thrown. */
  listRuns(options?: ListRunsOptions): Promise<RunInfo[]>;
  /** Deletes a run, its events and its inbox (the thread `runInboxId(runId)`); resolves with whether it existed. */
  deleteRun(runId: string): Promise<boolean>;
  /**
   * Deletes runs (with their events and inboxes) last updated before `olderThan` that are not
   * `running`; resolves with how many. Other threads' messages are not touched (`clearThread`
   * deletes those).
   */
  pruneRuns(options: { olderThan: number | Date }): Promise<number>;
  /**
   * Appends messages to a thread, atomically (all or none) and in the order given. The store
   * assigns each its `seq`, so concurrent appenders (other processes included) never collide or
   * interleave within one call. A thread needs no run: it exists while it has messages. Resolves
   * with the seqs assigned (consecutive; empty when `messages` is).
   */
  appendThreadMessages(threadId: string, messages: readonly NewThreadMessage[]): Promise<number[]>;
  /**
   * The thread's messages selected by `options` (see {@link ReadThreadMessagesOptions}); an unknown
   * thread has none. A message that cannot be read (a corrupt row) rejects with a `RunStoreError`
   * naming the thread and its seq.
   */
  readThreadMessages(threadId: string, options?: ReadThreadMessagesOptions): Promise<StoredThreadMessage[]>;
  /**
   * Appends a message to the run's inbox (the thread `runInboxId(runId)`) in one atomic step with
   * a check of the run: rejects with `RunNotFoundError` for an unknown run and with
   * `RunFinishedError` when the run is `finished` or `running` with its inbox closed (see
   * `RunUpdate.closeInbox`), else appends. Either the message is appended before the run closes its
   * inbox (which then sees it) or it is refused: a message is never accepted and left behind.
   * Optional: without it, `send` appends with `appendThreadMessages` and checks the run around it.
   */
  appendRunMessage?(runId: string, message: NewThreadMessage): Promise<RunMessageAppended>;
  /** Deletes every message of the thread; resolves with how many there were. Runs are not touched. */
  clearThread(threadId: string): Promise<number>;
  /** Releases the store's connections or file handles. */
  close(): Promise<void>;
}
