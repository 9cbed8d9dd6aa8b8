import { RunBusyError, RunFinishedError, RunNotFoundError, RunStoreError, runInboxId, type RunInfo, type RunMessageAppended, type RunStatus, type RunWriteResult } from "@agentrx/executors";
import { RUN_COLUMNS, runInfoOf, type EventRow, type RunRow, type WriteColumns } from "../internal/run-record";
import type { RunSearchWords } from "../internal/search-words";
import { leaseLostError, seqError } from "../internal/store-errors";
import { cancelPausedSubRuns } from "../internal/sub-run-cancel";
import type { NewThreadMessageRow, ThreadMessageRow, ThreadRead } from "../internal/thread-record";
import type { RunFilter } from "../internal/validate-run-arguments";
import { SORT_COLUMNS } from "../internal/run-list-query";
import { hasRunsFts } from "./sqlite-migrations";
import type { SqliteConnection, SqliteStatement } from "./sqlite-driver";
import { pendingSearchWords, type PendingSearchWords } from "./sqlite-search-words";

const STORE = "SqliteRunStore";
/** Above this many search hits, a listing walks its sort's index instead of sorting the hits. */
const MANY_HITS = 1000;
const SORT_INDEXES = { createdAt: "created", updatedAt: "updated", cost: "cost" } as const;

/** What one action of a batch gave: its value, or the error that refused it. */
export type BatchOutcome = { value: unknown; error?: undefined } | { error: RunStoreError };

/** One run's write, its values as the tables hold them (see `SqliteStatements.write`). */
export interface SqliteWrite {
  runId: string;
  owner: string;
  epoch: number | null;
  expected: number | null;
  columns: WriteColumns;
  events: readonly EventRow[];
  closeInbox: number | null;
}

/** The columns a write sets only when it has a value for them, in the order of their bits in a write's shape. */
const OPTIONAL_COLUMNS = ["status", "stop_reason", "usage", "error", "checkpoint", "event_count", "answer_text", "answer_words"] as const satisfies readonly (keyof WriteColumns)[];
const RELEASE = 1 << OPTIONAL_COLUMNS.length;
const BY_EPOCH = RELEASE << 1;
const BY_COUNT = BY_EPOCH << 1;

/** The UPDATE of a write of one shape: its positional parameters in the order `#writeUpdate` pushes them. */
function writeUpdateOf(shape: number): string {
  const set = OPTIONAL_COLUMNS.filter((_, bit) => shape & (1 << bit)).map((column) => `${column} = ?`);
  set.push(shape & RELEASE ? "owner = NULL, lease_expires_at = NULL" : "lease_expires_at = ?", "updated_at = ?");
  let where = "run_id = ? AND owner = ?";
  if (shape & BY_EPOCH) where += " AND epoch = ?";
  if (shape & BY_COUNT) where += " AND event_count = ?";
  return `UPDATE agentrx_runs SET ${set.join(", ")} WHERE ${where}`;
}

/**
 * The prepared statements and transactions of one open SQLite store, prepared once and reused by
 * every call (a write is one `BEGIN IMMEDIATE` transaction of two or three statements).
 */
export class SqliteStatements {
  readonly #db: SqliteConnection;
  readonly #insertRun: SqliteStatement;
  readonly #selectRun: SqliteStatement;
  readonly #claimUpdate: SqliteStatement;
  readonly #cancelUpdate: SqliteStatement;
  readonly #cancelPausedUpdate: SqliteStatement;
  readonly #interruptEvents: SqliteStatement;
  readonly #cancel: (runId: string, reason: string, at: number) => boolean;
  /** The UPDATE of a write, one per set of columns a write changes (see {@link writeUpdateOf}). */
  readonly #writeUpdates = new Map<number, SqliteStatement>();
  readonly #writeCost: SqliteStatement;
  readonly #writeState: SqliteStatement;
  readonly #insertEvent: SqliteStatement;
  readonly #readEvents: SqliteStatement;
  readonly #deleteEvents: SqliteStatement;
  readonly #deleteRun: SqliteStatement;
  readonly #pruneEvents: SqliteStatement;
  readonly #pruneRuns: SqliteStatement;
  readonly #pruneInboxes: SqliteStatement;
  readonly #lists = new Map<string, SqliteStatement>();
  readonly #lastSeq: SqliteStatement;
  readonly #insertMessage: SqliteStatement;
  readonly #readOldest: SqliteStatement;
  readonly #readNewest: SqliteStatement;
  readonly #clearThread: SqliteStatement;
  readonly #append: (threadId: string, rows: readonly NewThreadMessageRow[]) => number[];
  readonly #claim: (runId: string, owner: string, leaseExpiresAt: number, at: number) => { row: RunRow; epoch: number };
  readonly #write: (runId: string, owner: string, epoch: number | null, expected: number | null, columns: WriteColumns, events: readonly EventRow[], closeInbox: number | null) => RunWriteResult;
  readonly #writeBody: (runId: string, owner: string, epoch: number | null, expected: number | null, columns: WriteColumns, events: readonly EventRow[], closeInbox: number | null) => RunWriteResult;
  readonly #batch: (actions: readonly (() => unknown)[]) => BatchOutcome[];
  readonly #closeInbox: SqliteStatement;
  readonly #runMessageState: SqliteStatement;
  readonly #appendRunMessage: (runId: string, row: NewThreadMessageRow) => RunMessageAppended;
  readonly #delete: (runId: string) => boolean;
  readonly #prune: (olderThan: number) => number;
  readonly #pendingWords: PendingSearchWords;

  /** Whether the file has the FTS5 index of the runs list (else search reads the text columns). */
  readonly #fts: boolean;
  readonly #ftsCount: SqliteStatement;

  constructor(db: SqliteConnection) {
    this.#db = db;
    this.#fts = hasRunsFts(db);
    this.#pendingWords = pendingSearchWords(db);
    this.#ftsCount = this.#fts ? db.prepare("SELECT count(*) AS n FROM agentrx_runs_fts WHERE agentrx_runs_fts MATCH ?") : db.prepare("SELECT 0 AS n");
    const params = RUN_COLUMNS.split(", ").map((column) => `@${column}`).join(", ");
    this.#insertRun = db.prepare(`INSERT INTO agentrx_runs (${RUN_COLUMNS}, input_words, answer_words) VALUES (${params}, @input_words, @answer_words) ON CONFLICT (run_id) DO NOTHING`);
    this.#selectRun = db.prepare(`SELECT ${RUN_COLUMNS} FROM agentrx_runs WHERE run_id = ?`);
    // Compare-and-set: the lease check and the epoch's increment in one statement.
    this.#claimUpdate = db.prepare(`
      UPDATE agentrx_runs SET status = 'running', error = NULL, inbox_closed = 0, owner = @owner, lease_expires_at = @lease_expires_at, updated_at = @at, epoch = epoch + 1
      WHERE run_id = @run_id AND (status <> 'running' OR lease_expires_at IS NULL OR lease_expires_at <= @at OR owner = @owner)
      RETURNING epoch`);
    // Compare-and-set too: only a run that has not ended; the epoch's increment fences its writer.
    this.#cancelUpdate = db.prepare(`
      UPDATE agentrx_runs SET status = 'cancelled', error = @reason, owner = NULL, lease_expires_at = NULL, updated_at = @at, epoch = epoch + 1
      WHERE run_id = @run_id AND status IN ('queued', 'running', 'interrupted')`);
    // A sub-run cancelled with its calling run: only one that is paused or has not started.
    this.#cancelPausedUpdate = db.prepare(`
      UPDATE agentrx_runs SET status = 'cancelled', error = @reason, owner = NULL, lease_expires_at = NULL, updated_at = @at, epoch = epoch + 1
      WHERE run_id = @run_id AND status IN ('interrupted', 'queued')`);
    this.#interruptEvents = db.prepare("SELECT data FROM agentrx_run_events WHERE run_id = ? AND type = 'interrupt' ORDER BY seq DESC");
    // The run and its paused sub-runs (handoff, asTool), in one BEGIN IMMEDIATE transaction.
    this.#cancel = db.immediate((runId: string, reason: string, at: number): boolean => {
      if (this.#cancelUpdate.run({ run_id: runId, reason, at }).changes === 0) return false;
      cancelPausedSubRuns(runId, reason, {
        interruptEvents: (id) => (this.#interruptEvents.all(id) as { data: string }[]).map((row) => row.data),
        cancelIfPaused: (id, why) => this.#cancelPausedUpdate.run({ run_id: id, reason: why, at }).changes > 0,
      });
      return true;
    });
    this.#writeCost = db.prepare("UPDATE agentrx_runs SET cost_usd = ? WHERE run_id = ? AND cost_usd IS NOT ?");
    this.#writeState = db.prepare("SELECT owner, event_count, epoch, status FROM agentrx_runs WHERE run_id = ?");
    this.#insertEvent = db.prepare("INSERT INTO agentrx_run_events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)");
    this.#readEvents = db.prepare("SELECT seq, type, at, data FROM agentrx_run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?");
    this.#deleteEvents = db.prepare("DELETE FROM agentrx_run_events WHERE run_id = ?");
    this.#deleteRun = db.prepare("DELETE FROM agentrx_runs WHERE run_id = ?");
    const prunable = "updated_at < ? AND status <> 'running'";
    this.#pruneEvents = db.prepare(`DELETE FROM agentrx_run_events WHERE run_id IN (SELECT run_id FROM agentrx_runs WHERE ${prunable})`);
    this.#pruneRuns = db.prepare(`DELETE FROM agentrx_runs WHERE ${prunable}`);
    // A run's inbox is a thread named after it (runInboxId): it goes with the run.
    this.#pruneInboxes = db.prepare(`DELETE FROM agentrx_thread_messages WHERE thread_id IN (SELECT ? || run_id FROM agentrx_runs WHERE ${prunable})`);

    this.#claim = db.immediate((runId: string, owner: string, leaseExpiresAt: number, at: number): { row: RunRow; epoch: number } => {
      const row = this.#selectRun.get(runId) as RunRow | undefined;
      if (row === undefined) throw new RunNotFoundError({ operation: "claimRun", runId });
      const claimed = this.#claimUpdate.get({ run_id: runId, owner, lease_expires_at: leaseExpiresAt, at }) as { epoch: number } | undefined;
      if (claimed === undefined) throw new RunBusyError({ runId, owner: row.owner ?? undefined, leaseExpiresAt: row.lease_expires_at ?? undefined });
      return { row, epoch: claimed.epoch };
    });

    this.#closeInbox = db.prepare("UPDATE agentrx_runs SET inbox_closed = 1 WHERE run_id = ?");
    this.#runMessageState = db.prepare("SELECT status, stop_reason, inbox_closed FROM agentrx_runs WHERE run_id = ?");
    // Not itself a transaction: #write runs one in its own, #batch several in one.
    const write = (runId: string, owner: string, epoch: number | null, expected: number | null, columns: WriteColumns, events: readonly EventRow[], closeInbox: number | null): RunWriteResult => {
      // A refused write throws here, before it changed anything (what #batch relies on).
      const { changes } = this.#writeUpdate(runId, owner, epoch, expected, columns);
      if (changes === 0) throw this.#writeRefused(runId, owner, epoch, expected);
      // Only when the cost changed: an UPDATE that names cost_usd rewrites its index entry even when the value stays.
      if (columns.cost_usd !== null) this.#writeCost.run(columns.cost_usd, runId, columns.cost_usd);
      for (const event of events) this.#insertEvent.run(runId, event.seq, event.type, event.at, event.data);
      // The inbox's last position, read under the same write lock as a send's append (see appendRunMessage).
      const inboxSeq = (this.#lastSeq.get(runInboxId(runId)) as { seq: number }).seq;
      if (closeInbox === null) return { inboxSeq };
      const inboxClosed = inboxSeq <= closeInbox;
      if (inboxClosed) this.#closeInbox.run(runId);
      return { inboxSeq, inboxClosed };
    };
    this.#writeBody = write;
    this.#write = db.immediate(write);
    this.#batch = db.immediate((actions: readonly (() => unknown)[]): BatchOutcome[] =>
      actions.map((action) => {
        try {
          return { value: action() };
        } catch (error) {
          // A refusal (lease lost, seq or run id taken, no such run) changed nothing: the others
          // still commit. Anything else (a constraint, I/O) rolls the whole batch back.
          if (RunStoreError.isInstance(error)) return { error };
          throw error;
        }
      }),
    );

    this.#delete = db.immediate((runId: string): boolean => {
      this.#deleteEvents.run(runId);
      this.#clearThread.run(runInboxId(runId));
      return this.#deleteRun.run(runId).changes > 0;
    });

    this.#prune = db.immediate((olderThan: number): number => {
      this.#pruneEvents.run(olderThan);
      this.#pruneInboxes.run(runInboxId(""), olderThan);
      return this.#pruneRuns.run(olderThan).changes;
    });

    this.#lastSeq = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM agentrx_thread_messages WHERE thread_id = ?");
    this.#insertMessage = db.prepare("INSERT INTO agentrx_thread_messages (thread_id, seq, run_id, tokens, at, message) VALUES (?, ?, ?, ?, ?, ?)");
    const read = "SELECT seq, run_id, tokens, at, message FROM agentrx_thread_messages WHERE thread_id = ? AND seq > ? AND seq < ? ORDER BY seq";
    this.#readOldest = db.prepare(`${read} LIMIT ?`);
    this.#readNewest = db.prepare(`${read} DESC LIMIT ?`);
    this.#clearThread = db.prepare("DELETE FROM agentrx_thread_messages WHERE thread_id = ?");
    // BEGIN IMMEDIATE takes the file's write lock first, so no other connection appends between
    // reading the last seq and inserting after it.
    // Not itself a transaction: both callers wrap it in one (node:sqlite's driver cannot nest them).
    const append = (threadId: string, rows: readonly NewThreadMessageRow[]): number[] => {
      const first = (this.#lastSeq.get(threadId) as { seq: number }).seq + 1;
      rows.forEach((row, index) => this.#insertMessage.run(threadId, first + index, row.run_id, row.tokens, row.at, row.message));
      return rows.map((_, index) => first + index);
    };
    this.#append = db.immediate(append);
    // The run's check and the append in one BEGIN IMMEDIATE transaction: a write that closes the
    // inbox runs either before (the append is refused) or after (it sees the message).
    this.#appendRunMessage = db.immediate((runId: string, row: NewThreadMessageRow): RunMessageAppended => {
      const state = this.#runMessageState.get(runId) as { status: string; stop_reason: string | null; inbox_closed: number } | undefined;
      if (state === undefined) throw new RunNotFoundError({ operation: "appendRunMessage", runId });
      if (state.status === "finished" || (state.status === "running" && state.inbox_closed === 1)) {
        throw new RunFinishedError({ runId, stopReason: state.stop_reason ?? undefined });
      }
      const [inboxSeq] = append(runInboxId(runId), [row]);
      return { inboxSeq: inboxSeq as number, status: state.status as RunStatus };
    });
  }

  /**
   * Runs the UPDATE of a write. It names only the columns the write changes: SQLite rewrites the
   * index entries of every indexed column an UPDATE names, changed or not, and each index page it
   * dirties is one more page the commit appends to the WAL. A step's write so changes the row and
   * the `updated_at` index, not the status and cost indexes (docs/performance.md).
   */
  #writeUpdate(runId: string, owner: string, epoch: number | null, expected: number | null, columns: WriteColumns): { changes: number } {
    const values: unknown[] = [];
    let shape = 0;
    for (let bit = 0; bit < OPTIONAL_COLUMNS.length; bit++) {
      const value = columns[OPTIONAL_COLUMNS[bit]!];
      if (value === null) continue;
      shape |= 1 << bit;
      values.push(value);
    }
    if (columns.release) shape |= RELEASE;
    else values.push(columns.lease_expires_at);
    values.push(columns.updated_at, runId, owner);
    if (epoch !== null) (shape |= BY_EPOCH), values.push(epoch);
    if (expected !== null) (shape |= BY_COUNT), values.push(expected);
    let statement = this.#writeUpdates.get(shape);
    if (statement === undefined) this.#writeUpdates.set(shape, (statement = this.#db.prepare(writeUpdateOf(shape))));
    return statement.run(...values);
  }

  #writeRefused(runId: string, owner: string, epoch: number | null, expected: number | null): RunStoreError {
    const state = this.#writeState.get(runId) as { owner: string | null; event_count: number; epoch: number; status: string } | undefined;
    if (state === undefined) return new RunNotFoundError({ operation: "write", runId });
    if (state.owner !== owner || (epoch !== null && state.epoch !== epoch)) return leaseLostError(STORE, runId, owner, epoch ?? undefined, state);
    return seqError(STORE, runId, state.event_count, (expected ?? state.event_count) + 1);
  }

  /** Inserts a run; false when its id exists already. */
  insertRun(row: RunRow & RunSearchWords): boolean {
    return this.#insertRun.run(row).changes > 0;
  }

  selectRun(runId: string): RunRow | undefined {
    return this.#selectRun.get(runId) as RunRow | undefined;
  }

  /** Takes the lease (one `BEGIN IMMEDIATE` transaction) and returns the run as it was; a corrupt record is reported after the claim, as PostgreSQL does. */
  claim(runId: string, owner: string, leaseExpiresAt: number, at: number): RunInfo {
    const { row, epoch } = this.#claim(runId, owner, leaseExpiresAt, at);
    return { ...runInfoOf(row, STORE, "claimRun"), epoch };
  }

  /**
   * Cancels a run that has not ended, and the sub-runs paused inside it (one `BEGIN IMMEDIATE`
   * transaction); false when there is none.
   */
  cancel(runId: string, reason: string, at: number): boolean {
    return this.#cancel(runId, reason, at);
  }

  /** Appends the events and updates the row (one `BEGIN IMMEDIATE` transaction) when `owner` holds the lease at `epoch` (when given). */
  write(item: SqliteWrite): RunWriteResult {
    return this.#write(item.runId, item.owner, item.epoch, item.expected, item.columns, item.events, item.closeInbox);
  }

  /** The same as {@link write}, without a transaction of its own: for an action of {@link batch}. */
  writeInBatch(item: SqliteWrite): RunWriteResult {
    return this.#writeBody(item.runId, item.owner, item.epoch, item.expected, item.columns, item.events, item.closeInbox);
  }

  /**
   * Runs several calls' actions (`writeInBatch`, `insertRun`: none may begin a transaction) in
   * one `BEGIN IMMEDIATE` transaction: one commit for all. Each comes back as its value, or as the
   * `RunStoreError` that refused it (a refused call changes nothing; the others are applied). Any
   * other error rolls them all back and is thrown.
   */
  batch(actions: readonly (() => unknown)[]): BatchOutcome[] {
    return this.#batch(actions);
  }

  /** Appends a message to the run's inbox unless the run finished or closed it (one `BEGIN IMMEDIATE` transaction). */
  appendRunMessage(runId: string, row: NewThreadMessageRow): RunMessageAppended {
    return this.#appendRunMessage(runId, row);
  }

  readEvents(runId: string, after: number, limit: number | undefined): EventRow[] {
    return this.#readEvents.all(runId, after, limit ?? -1) as EventRow[];
  }

  /**
   * Computes the search words of the runs an older release's process wrote without them (marked
   * `words_pending`, see `pendingSearchWords`), a batch per `BEGIN IMMEDIATE` transaction; returns
   * how many runs it updated. With none marked, one read of a partial index. On a file the process
   * may not write it writes nothing and returns 0; {@link listRuns} then matches the marked runs
   * on words computed for each search.
   */
  indexPendingWords(): number {
    return this.#pendingWords.index();
  }

  listRuns(filter: RunFilter): RunRow[] {
    const where: string[] = [];
    const values: unknown[] = [];
    if (filter.threadId !== undefined) (where.push("thread_id = ?"), values.push(filter.threadId));
    if (filter.statuses !== undefined) (where.push(`status IN (${filter.statuses.map(() => "?").join(", ")})`), values.push(...filter.statuses));
    if (filter.since !== undefined) (where.push("created_at >= ?"), values.push(filter.since));
    if (filter.before !== undefined) (where.push("created_at < ?"), values.push(filter.before));
    if (filter.hasError !== undefined) where.push(filter.hasError ? "error IS NOT NULL" : "error IS NULL");
    if (filter.minCost !== undefined) (where.push("cost_usd >= ?"), values.push(filter.minCost));
    if (filter.maxCost !== undefined) (where.push("cost_usd <= ?"), values.push(filter.maxCost));
    const column = SORT_COLUMNS[filter.sort];
    const direction = filter.order === "asc" ? "ASC" : "DESC";
    let from = "agentrx_runs";
    if (filter.after !== undefined) {
      where.push(`(${column}, run_id) ${filter.order === "asc" ? ">" : "<"} (?, ?)`);
      values.push(filter.after.key, filter.after.runId);
    }
    if (filter.terms !== undefined) {
      // A store that may not write the file cannot compute the marked runs' words into their rows
      // (see indexPendingWords): they are matched on words computed now, not on the words their
      // row holds (none, or those of their former text).
      const pending = this.#pendingWords.readOnly ? this.#pendingWords.matching(filter.terms) : undefined;
      let search: string;
      let searchValue: string;
      if (this.#fts) {
        // Each word a quoted prefix query: nothing the user types is read as FTS5 syntax. The index
        // holds the search words (its "ascii" tokenizer splits them at the spaces only).
        searchValue = filter.terms.map((term) => `"${term}"*`).join(" AND ");
        // Few hits: fetch them by rowid and sort them. Many: walk the sort's index and keep the
        // hits (`+rowid` stops SQLite from fetching every hit first), which stops at the limit.
        // Measured at 100,000 runs (docs/runs.md): a common word 90 ms -> 13 ms, a rare one 0.1 ms either way.
        const hits = (this.#ftsCount.get(searchValue) as { n: number }).n + (pending?.length ?? 0);
        if (hits > MANY_HITS) {
          search = "+rowid IN (SELECT rowid FROM agentrx_runs_fts WHERE agentrx_runs_fts MATCH ?)";
          if (filter.threadId === undefined && filter.statuses === undefined) from = `agentrx_runs INDEXED BY agentrx_runs_${SORT_INDEXES[filter.sort]}_id`;
        } else search = "rowid IN (SELECT rowid FROM agentrx_runs_fts WHERE agentrx_runs_fts MATCH ?)";
      } else {
        // As MemoryRunStore searches (see searchHaystack): a word starts where a space precedes it.
        // One condition over the words as a JSON array, however many they are (a condition per
        // word would pass SQLite's expression depth limit at 1,000 words).
        search = "NOT EXISTS (SELECT 1 FROM json_each(?) AS term WHERE instr(' ' || input_words || ' ' || answer_words, ' ' || term.value) = 0)";
        searchValue = JSON.stringify(filter.terms);
      }
      if (pending === undefined) {
        where.push(search);
        values.push(searchValue);
      } else {
        where.push(`((${search} AND words_pending IS NULL) OR rowid IN (SELECT value FROM json_each(?)))`);
        values.push(searchValue, JSON.stringify(pending));
      }
    }
    const sql = `SELECT ${RUN_COLUMNS} FROM ${from}${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY ${column} ${direction}, run_id ${direction} LIMIT ?`;
    let statement = this.#lists.get(sql);
    if (statement === undefined) this.#lists.set(sql, (statement = this.#db.prepare(sql)));
    return statement.all(...values, filter.limit) as RunRow[];
  }

  deleteRun(runId: string): boolean {
    return this.#delete(runId);
  }

  pruneRuns(olderThan: number): number {
    return this.#prune(olderThan);
  }

  /** Appends the rows after the thread's last message (one `BEGIN IMMEDIATE` transaction); returns their seqs. */
  appendThreadMessages(threadId: string, rows: readonly NewThreadMessageRow[]): number[] {
    return rows.length === 0 ? [] : this.#append(threadId, rows);
  }

  readThreadMessages(threadId: string, read: ThreadRead): ThreadMessageRow[] {
    const statement = read.newestFirst ? this.#readNewest : this.#readOldest;
    return statement.all(threadId, read.after, read.before, read.limit ?? -1) as ThreadMessageRow[];
  }

  clearThread(threadId: string): number {
    return this.#clearThread.run(threadId).changes;
  }
}
