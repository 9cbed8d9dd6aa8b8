import { checkOptionKeys, InvalidArgumentError } from "@agentrx/core";
import {
  RunBusyError,
  RunNotFoundError,
  RunFinishedError,
  RunStoreError,
  type CancelRun,
  runInboxId,
  type ClaimRun,
  type ListRunsOptions,
  type NewRun,
  type NewThreadMessage,
  type ReadThreadMessagesOptions,
  type RunInfo,
  type RunStore,
  type RunMessageAppended,
  type RunWrite,
  type RunWriteResult,
  type StoredRunEvent,
  type StoredThreadMessage,
} from "@agentrx/executors";
import { compareRows, rowMatches, sortKeyOf, withCursors } from "../internal/run-list-query";
import { eventRows, listedRunInfoOf, newRunRow, runInfoOf, storedEventOf, writeColumns, type EventRow, type RunRow } from "../internal/run-record";
import type { RunSearchWords } from "../internal/search-words";
import { CANCELLABLE_STATUSES, closedStoreError, leaseLostError, seqError } from "../internal/store-errors";
import { SUB_RUN_CANCELLABLE_STATUSES, cancelPausedSubRuns } from "../internal/sub-run-cancel";
import { checkThreadRead, storedThreadMessageOf, threadMessageRows, type ThreadMessageRow } from "../internal/thread-record";
import {
  checkCancel,
  checkClaim,
  checkKey,
  checkThreadKey,
  checkListOptions,
  checkNewRun,
  checkPruneOptions,
  checkReadOptions,
  checkWrite,
} from "../internal/validate-run-arguments";

const STORE = "MemoryRunStore";

/** Options of {@link MemoryRunStore}: none yet; the object is there so options can be added without a breaking change. */
export interface MemoryRunStoreOptions {}

/**
 * A run store in the process's memory, for tests and short-lived scripts: what it records is gone
 * when the process exits. It keeps JSON text, like the database stores, so what goes in and comes
 * out are copies (callers cannot change a record by mutating an object) and values JSON cannot hold
 * behave as they do in SQLite or PostgreSQL.
 *
 * @example
 * ```ts
 * import { MemoryRunStore } from "@agentrx/runs";
 *
 * const store = new MemoryRunStore();
 * await store.createRun({ runId: "r1", inputs: { input: "hi" }, status: "queued", at: Date.now() });
 * console.log((await store.getRun("r1"))?.status); // "queued"
 * ```
 */
export class MemoryRunStore implements RunStore {
  /** Each run's row with its search words (what the SQL stores index). */
  readonly #runs = new Map<string, RunRow & RunSearchWords>();
  readonly #events = new Map<string, EventRow[]>();
  /** Each thread's messages in seq order, seq n at index n - 1. */
  readonly #threads = new Map<string, ThreadMessageRow[]>();
  /** The runs whose inbox is closed (see `RunUpdate.closeInbox`) until their next claim. */
  readonly #closedInboxes = new Set<string>();
  #closed = false;

  constructor(options: MemoryRunStoreOptions = {}) {
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      throw new InvalidArgumentError({ argument: "options", value: options, message: `${STORE}: options must be an object (it takes none yet), got ${JSON.stringify(options)}.` });
    }
    checkOptionKeys(STORE, options, []);
  }

  #open(operation: string, runId?: string): void {
    if (this.#closed) throw closedStoreError(STORE, operation, runId);
  }

  async createRun(run: NewRun): Promise<void> {
    this.#open("createRun", run?.runId);
    checkNewRun(run);
    if (this.#runs.has(run.runId)) {
      throw new RunStoreError({ operation: "createRun", runId: run.runId, message: `${STORE}: run "${run.runId}" exists already; run ids must be unique.` });
    }
    this.#runs.set(run.runId, newRunRow(run));
    this.#events.set(run.runId, []);
  }

  async claimRun(runId: string, claim: ClaimRun): Promise<RunInfo> {
    this.#open("claimRun", runId);
    checkClaim(runId, claim);
    const row = this.#runs.get(runId);
    if (row === undefined) throw new RunNotFoundError({ operation: "claimRun", runId });
    const free = row.status !== "running" || row.lease_expires_at === null || row.lease_expires_at <= claim.at || row.owner === claim.owner;
    if (!free) throw new RunBusyError({ runId, owner: row.owner ?? undefined, leaseExpiresAt: row.lease_expires_at ?? undefined });
    const epoch = row.epoch + 1;
    this.#closedInboxes.delete(runId);
    this.#runs.set(runId, { ...row, status: "running", error: null, owner: claim.owner, lease_expires_at: claim.at + claim.leaseMs, updated_at: claim.at, epoch });
    return { ...runInfoOf(row, STORE, "claimRun"), epoch };
  }

  async write(runId: string, write: RunWrite): Promise<RunWriteResult> {
    this.#open("write", runId);
    const expected = checkWrite(runId, write);
    const columns = writeColumns(write);
    const rows = eventRows(write.events);
    const row = this.#runs.get(runId);
    if (row === undefined) throw new RunNotFoundError({ operation: "write", runId });
    if (row.owner !== write.owner || (write.epoch !== undefined && row.epoch !== write.epoch)) throw leaseLostError(STORE, runId, write.owner, write.epoch, row);
    if (expected !== undefined && row.event_count !== expected) throw seqError(STORE, runId, row.event_count, expected + 1);
    this.#runs.set(runId, {
      ...row,
      status: columns.status ?? row.status,
      stop_reason: columns.stop_reason ?? row.stop_reason,
      usage: columns.usage ?? row.usage,
      error: columns.error ?? row.error,
      checkpoint: columns.checkpoint ?? row.checkpoint,
      owner: columns.release ? null : row.owner,
      lease_expires_at: columns.release ? null : columns.lease_expires_at,
      updated_at: columns.updated_at,
      event_count: columns.event_count ?? row.event_count,
      answer_text: columns.answer_text ?? row.answer_text,
      answer_words: columns.answer_words ?? row.answer_words,
      cost_usd: columns.cost_usd ?? row.cost_usd,
    });
    this.#events.get(runId)!.push(...rows);
    const inboxSeq = this.#threads.get(runInboxId(runId))?.length ?? 0;
    const closeInbox = write.update?.closeInbox;
    if (closeInbox === undefined) return { inboxSeq };
    const inboxClosed = inboxSeq <= closeInbox;
    if (inboxClosed) this.#closedInboxes.add(runId);
    return { inboxSeq, inboxClosed };
  }

  async cancelRun(runId: string, cancel: CancelRun): Promise<boolean> {
    this.#open("cancelRun", runId);
    checkCancel(runId, cancel);
    const row = this.#runs.get(runId);
    if (row === undefined || !CANCELLABLE_STATUSES.includes(row.status)) return false;
    this.#cancel(runId, row, cancel.reason, cancel.at);
    // Its paused sub-runs (handoff, asTool) with it, in the same step: nothing runs in between.
    cancelPausedSubRuns(runId, cancel.reason, {
      interruptEvents: (id) => (this.#events.get(id) ?? []).filter((event) => event.type === "interrupt").reverse().map((event) => event.data),
      cancelIfPaused: (id, reason) => {
        const sub = this.#runs.get(id);
        if (sub === undefined || !SUB_RUN_CANCELLABLE_STATUSES.includes(sub.status)) return false;
        this.#cancel(id, sub, reason, cancel.at);
        return true;
      },
    });
    return true;
  }

  #cancel(runId: string, row: RunRow & RunSearchWords, reason: string, at: number): void {
    this.#runs.set(runId, { ...row, status: "cancelled", error: reason, owner: null, lease_expires_at: null, epoch: row.epoch + 1, updated_at: at });
  }

  async getRun(runId: string): Promise<RunInfo | undefined> {
    this.#open("getRun", runId);
    checkKey("getRun", "runId", runId);
    const row = this.#runs.get(runId);
    return row === undefined ? undefined : runInfoOf(row, STORE, "getRun");
  }

  async readEvents(runId: string, options?: { after?: number | undefined; limit?: number | undefined }): Promise<StoredRunEvent[]> {
    this.#open("readEvents", runId);
    const { after, limit } = checkReadOptions(runId, options);
    const events = this.#events.get(runId) ?? [];
    // Events are kept in seq order, seq n at index n - 1.
    const selected = events.slice(after, limit === undefined ? undefined : after + limit);
    return selected.map((event) => storedEventOf(runId, event, STORE));
  }

  async listRuns(options?: ListRunsOptions): Promise<RunInfo[]> {
    this.#open("listRuns");
    const filter = checkListOptions(options);
    const rows = [...this.#runs.values()].filter((row) => rowMatches(row, filter));
    // Ties in run id order by code point (UTF-8 byte order), as SQLite and PostgreSQL (COLLATE "C") sort.
    rows.sort((a, b) => compareRows(a, { key: sortKeyOf(b, filter.sort), runId: b.run_id }, filter));
    const page = rows.slice(0, filter.limit);
    return withCursors(page.map(listedRunInfoOf), page, filter);
  }

  async deleteRun(runId: string): Promise<boolean> {
    this.#open("deleteRun", runId);
    checkKey("deleteRun", "runId", runId);
    this.#events.delete(runId);
    this.#threads.delete(runInboxId(runId));
    this.#closedInboxes.delete(runId);
    return this.#runs.delete(runId);
  }

  async pruneRuns(options: { olderThan: number | Date }): Promise<number> {
    this.#open("pruneRuns");
    const olderThan = checkPruneOptions(options);
    let count = 0;
    for (const row of [...this.#runs.values()]) {
      if (row.updated_at < olderThan && row.status !== "running") {
        this.#runs.delete(row.run_id);
        this.#events.delete(row.run_id);
        this.#threads.delete(runInboxId(row.run_id));
        this.#closedInboxes.delete(row.run_id);
        count++;
      }
    }
    return count;
  }

  async appendThreadMessages(threadId: string, messages: readonly NewThreadMessage[]): Promise<number[]> {
    this.#open("appendThreadMessages");
    const rows = threadMessageRows(threadId, messages);
    if (rows.length === 0) return [];
    let thread = this.#threads.get(threadId);
    if (thread === undefined) this.#threads.set(threadId, (thread = []));
    const first = thread.length + 1;
    thread.push(...rows.map((row, index) => ({ ...row, seq: first + index })));
    return rows.map((_, index) => first + index);
  }

  async appendRunMessage(runId: string, message: NewThreadMessage): Promise<RunMessageAppended> {
    this.#open("appendRunMessage", runId);
    checkKey("appendRunMessage", "runId", runId);
    threadMessageRows(runInboxId(runId), [message]); // the message is checked before the run
    const row = this.#runs.get(runId);
    if (row === undefined) throw new RunNotFoundError({ operation: "appendRunMessage", runId });
    if (row.status === "finished" || (row.status === "running" && this.#closedInboxes.has(runId))) {
      throw new RunFinishedError({ runId, stopReason: row.stop_reason ?? undefined });
    }
    const [inboxSeq] = await this.appendThreadMessages(runInboxId(runId), [message]);
    return { inboxSeq: inboxSeq as number, status: row.status as RunMessageAppended["status"] };
  }

  async readThreadMessages(threadId: string, options?: ReadThreadMessagesOptions): Promise<StoredThreadMessage[]> {
    this.#open("readThreadMessages");
    const { after, before, limit, newestFirst } = checkThreadRead(threadId, options);
    const thread = this.#threads.get(threadId) ?? [];
    // seq n is at index n - 1: after < seq < before is the index range [after, before - 1).
    const from = Math.min(after, thread.length);
    const to = Math.max(from, Math.min(before - 1, thread.length));
    let rows: ThreadMessageRow[];
    if (!newestFirst) rows = thread.slice(from, limit === undefined ? to : Math.min(to, from + limit));
    else rows = thread.slice(limit === undefined ? from : Math.max(from, to - limit), to).reverse();
    return rows.map((row) => storedThreadMessageOf(threadId, row, STORE));
  }

  async clearThread(threadId: string): Promise<number> {
    this.#open("clearThread");
    checkThreadKey("clearThread", "threadId", threadId);
    const count = this.#threads.get(threadId)?.length ?? 0;
    this.#threads.delete(threadId);
    return count;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#runs.clear();
    this.#events.clear();
    this.#threads.clear();
  }
}
