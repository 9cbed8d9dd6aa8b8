import { withCursors } from "../internal/run-list-query";
import { urlScheme } from "../internal/url-scheme";
import { redact } from "../internal/redact";
import { mkdirSync, statSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import { checkOptionKeys, InvalidArgumentError, onNextTurn } from "@agentrx/core";
import {
  RunStoreError,
  type CancelRun,
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
  runInboxId,
  type StoredRunEvent,
  type StoredThreadMessage,
} from "@agentrx/executors";
import { eventRows, listedRunInfoOf, newRunRow, runInfoOf, storedEventOf, writeColumns, type RunRow } from "../internal/run-record";
import type { RunSearchWords } from "../internal/search-words";
import { closedStoreError, wrapStoreError } from "../internal/store-errors";
import { checkThreadRead, storedThreadMessageOf, threadMessageRows, threadSubject } from "../internal/thread-record";
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
import { defaultSqliteDriver, resolveSqliteDriver, SQLITE_DRIVERS, sqliteErrorCode, type SqliteConnection, type SqliteDriver } from "./sqlite-driver";
import { loadWorkerThreads, WalCheckpoints, type WalCheckpointState } from "./sqlite-checkpoints";
import { migrateSqlite } from "./sqlite-migrations";
import { type BatchOutcome, SqliteStatements, type SqliteWrite } from "./sqlite-statements";

const STORE = "SqliteRunStore";
/** The longest SQLite itself waits for a lock (it blocks the thread meanwhile); the store retries asynchronously after that. */
const DRIVER_BUSY_MS = 50;
/** The first delay before retrying a busy call, doubled up to {@link MAX_RETRY_DELAY_MS}. */
const FIRST_RETRY_DELAY_MS = 5;
const MAX_RETRY_DELAY_MS = 100;

/** A change waiting for the end of the turn: what it does alone (in a transaction of its own), and in a batch. */
interface WaitingChange {
  operation: string;
  runId: string;
  now: (statements: SqliteStatements) => unknown;
  apply: (statements: SqliteStatements) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** A write checked and in the tables' form; throws on an invalid one. */
function sqliteWriteOf(runId: string, write: RunWrite): SqliteWrite {
  const expected = checkWrite(runId, write);
  return {
    runId,
    owner: write.owner,
    epoch: write.epoch ?? null,
    expected: expected ?? null,
    columns: writeColumns(write),
    events: eventRows(write.events),
    closeInbox: write.update?.closeInbox ?? null,
  };
}

/**
 * Whether this is Node.js, where the WAL's checkpoints go to a worker thread; Deno and Bun (which
 * also report a Node.js version) keep SQLite's own checkpoints, made in the commits.
 */
function onNode(): boolean {
  const runtime = globalThis as { Deno?: unknown; process?: { versions?: { bun?: string; node?: string } } };
  return runtime.Deno === undefined && runtime.process?.versions?.bun === undefined && runtime.process?.versions?.node !== undefined;
}

/** The checkpoints of each open store's WAL (for {@link walCheckpointState}). */
const storeCheckpoints = new WeakMap<SqliteRunStore, WalCheckpoints>();

/**
 * Where `store`'s WAL checkpoints are made and how many were (undefined before it opened its file,
 * for `":memory:"`, and off Node.js). Internal: for tests and benchmarks, not exported by the package.
 */
export function walCheckpointState(store: SqliteRunStore): WalCheckpointState | undefined {
  return storeCheckpoints.get(store)?.state;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The code of a file system error (`ENOENT`, `EACCES`, ...), when it has one. */
const fsCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

/** What `path` is: undefined when nothing is there (or an ancestor is not a folder). */
function statOf(path: string, file: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = fsCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new RunStoreError({ operation: "open", message: `${STORE}: cannot create the folder of ${file}: ${path} cannot be read: ${(error as Error)?.message ?? String(error)}`, cause: error });
  }
}

/**
 * Creates `dir` (the folder of the database file `file`) and its missing parents, one level at a
 * time. Node's own `mkdirSync(dir, { recursive: true })` loops forever at full CPU where creating a
 * folder fails with ENOENT though its parent exists (under /proc or /sys, for instance).
 */
function createFolder(dir: string, file: string): void {
  const missing: string[] = [];
  for (let at = dir; ; ) {
    const stat = statOf(at, file);
    if (stat !== undefined) {
      if (!stat.isDirectory()) {
        throw new RunStoreError({ operation: "open", message: `${STORE}: cannot create the folder of ${file}: ${at} exists and is not a folder. Point \`path\` elsewhere.` });
      }
      break;
    }
    const parent = dirname(at);
    missing.push(at);
    if (parent === at) break;
    at = parent;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      const code = fsCode(error);
      // Another process created it meanwhile.
      if (code === "EEXIST" && statOf(folder, file)?.isDirectory()) continue;
      const why =
        code === "ENOENT"
          ? `${dirname(folder)} does not allow new folders (ENOENT while it exists; a virtual file system such as /proc or /sys?)`
          : code === "EACCES" || code === "EPERM" || code === "EROFS"
            ? `${dirname(folder)} is not writable (${code})`
            : `${(error as Error)?.message ?? String(error)}`;
      throw new RunStoreError({ operation: "open", message: `${STORE}: cannot create the folder ${folder} for ${file}: ${why}. Point \`path\` at a writable folder.`, cause: error });
    }
  }
}

/** Which file a path names: its device and inode. */
interface FileId {
  dev: number;
  ino: number;
}

/** Options of {@link SqliteRunStore}. */
export interface SqliteRunStoreOptions {
  /**
   * The database file; its folder is created when missing. `":memory:"` keeps the runs in memory
   * (gone with the store). Several processes may share one file.
   * @default ".agentrx/runs.db"
   */
  path?: string | undefined;
  /**
   * How long a call waits in all for another connection's write lock (another process writing the
   * same file) before it fails with a `RunStoreError` whose `reason` is `"timeout"`, in
   * milliseconds. The wait does not block the event loop: SQLite itself waits at most 50 ms at a
   * time, then the store retries after a `setTimeout` with a growing delay (5 ms, doubling up to
   * 100 ms) until this much time has passed.
   * @default 5000
   */
  busyTimeoutMs?: number | undefined;
  /**
   * The SQLite binding: `"better-sqlite3"` (the npm package, a native addon for Node.js) or
   * `"node:sqlite"` (the runtime's built-in module: Deno 2, Bun 1, Node.js 22.13 and later). Both
   * read and write the same file format and schema. When none is given and `better-sqlite3`
   * cannot be loaded (not installed, its native addon not built, or built for another Node.js)
   * while the runtime has `node:sqlite` (Node.js 22.13 and later), the store uses `node:sqlite` and
   * the process gets one warning (code `AGENTRX_SQLITE_DRIVER_FALLBACK`) saying why; a driver
   * given here is never replaced.
   * @default "node:sqlite" under Deno and Bun (they cannot load `better-sqlite3` 12; 13 loads there when asked for), else "better-sqlite3"
   */
  driver?: SqliteDriver | undefined;
}

/**
 * A run store in an SQLite file, through the `better-sqlite3` package under Node.js (an optional
 * peer dependency: `npm install better-sqlite3`) and the built-in `node:sqlite` module under Deno
 * and Bun (see the `driver` option). The file is opened in WAL mode with
 * `synchronous = NORMAL` at the first call; its schema is created and migrated then. Under
 * Node.js the WAL is copied back into the file (checkpointed) by a worker thread with its own
 * connection, started once the WAL holds 1,000 pages, rather than inside the commit that crosses
 * that mark; it does not keep the process alive, and `close()` ends it. Several
 * processes can use one file: writes and claims are `BEGIN IMMEDIATE` transactions that wait up
 * to `busyTimeoutMs` for each other, without blocking the event loop for more than 50 ms at a
 * time. Every call that changes the file first checks that the path still names the file the
 * store opened: when it was deleted or replaced, the call fails with a `RunStoreError` whose
 * `reason` is `"gone"` rather than write into a file nobody will read again.
 *
 * @example
 * ```ts
 * import { SqliteRunStore } from "@agentrx/runs";
 *
 * const store = new SqliteRunStore({ path: ".agentrx/runs.db" });
 * const runs = await store.listRuns({ status: ["running", "interrupted"], limit: 10 });
 * console.log(runs.map((run) => run.runId));
 * await store.close();
 * ```
 */
export class SqliteRunStore implements RunStore {
  /** The database file (absolute), or `":memory:"`. */
  readonly path: string;
  /** The `driver` option (undefined when it was not given: the default, with its fallback). */
  readonly #requestedDriver: SqliteDriver | undefined;
  #driver: SqliteDriver;
  readonly #busyTimeoutMs: number;
  #db: SqliteConnection | undefined;
  /** The WAL's checkpoints, made by a worker thread off the commits (undefined for `":memory:"`, and off Node.js). */
  #checkpoints: WalCheckpoints | undefined;
  #statements: SqliteStatements | undefined;
  #opening: Promise<void> | undefined;
  /** The file the store opened (undefined for `":memory:"`). */
  #file: FileId | undefined;
  /** Set once the file was found deleted or replaced: every later call fails with it. */
  #gone: RunStoreError | undefined;
  #closed = false;
  /** Set while a change was applied in this turn of the event loop (cleared at its end, see {@link write}). */
  #turnBusy = false;
  /** The run whose change was applied first in this turn. */
  #turnRunId: string | undefined;
  /** The changes that arrived during a busy turn, applied together at its end. */
  #waiting: WaitingChange[] = [];

  constructor(options: SqliteRunStoreOptions = {}) {
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      throw new InvalidArgumentError({ argument: "options", value: options, message: `SqliteRunStore: options must be an object such as { path: "runs.db" }, got ${JSON.stringify(options)}.` });
    }
    checkOptionKeys(STORE, options, ["path", "busyTimeoutMs", "driver"]);
    const { path = ".agentrx/runs.db", busyTimeoutMs = 5000, driver: requestedDriver } = options;
    const driver = requestedDriver ?? defaultSqliteDriver();
    if (typeof path !== "string" || path.length === 0) {
      throw new InvalidArgumentError({ argument: "path", value: path, message: `SqliteRunStore: path must be a file path or ":memory:", got ${JSON.stringify(path)}.` });
    }
    // A URL (a database server's, or SQLite's `file:` form, which the driver is not given) would be
    // taken for a relative path: folders named `postgres:` or `file:` made in the working folder.
    const scheme = urlScheme(path);
    if (scheme !== undefined) {
      const hint = /^postgres(ql)?$/i.test(scheme) ? " For PostgreSQL, use PostgresRunStore({ connectionString })." : scheme.toLowerCase() === "file" ? " Give the file's path itself (without file: and its query)." : "";
      // Its password is not shown (a PostgreSQL URL's, given here by mistake).
      const shown = redact(path);
      throw new InvalidArgumentError({ argument: "path", value: shown, message: `SqliteRunStore: path must be a file path or ":memory:", not a URL (${scheme}:), got ${JSON.stringify(shown)}.${hint}` });
    }
    if (typeof busyTimeoutMs !== "number" || !Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new InvalidArgumentError({ argument: "busyTimeoutMs", value: busyTimeoutMs, message: `SqliteRunStore: busyTimeoutMs must be an integer >= 0 (milliseconds), got ${String(busyTimeoutMs)}.` });
    }
    if (!SQLITE_DRIVERS.includes(driver)) {
      throw new InvalidArgumentError({ argument: "driver", value: driver, message: `SqliteRunStore: driver must be ${SQLITE_DRIVERS.map((name) => JSON.stringify(name)).join(" or ")}, got ${JSON.stringify(driver)}.` });
    }
    this.path = path === ":memory:" ? path : resolve(path);
    this.#requestedDriver = requestedDriver;
    this.#driver = driver;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  /**
   * The SQLite binding the store opens its file with: the `driver` option, else the runtime's
   * default. Under Node.js, when the default `better-sqlite3` cannot be loaded and `node:sqlite`
   * can, it is `"node:sqlite"` once the store has opened its file (a process warning says so).
   */
  get driver(): SqliteDriver {
    return this.#driver;
  }

  #open(): Promise<void> {
    this.#opening ??= this.#openDatabase().catch((error: unknown) => {
      this.#opening = undefined;
      throw error;
    });
    return this.#opening;
  }

  async #openDatabase(): Promise<void> {
    const { driver, open: openSqlite } = await resolveSqliteDriver(STORE, this.#requestedDriver);
    this.#driver = driver;
    const Worker = this.path !== ":memory:" && onNode() ? await loadWorkerThreads() : undefined;
    const deadline = Date.now() + this.#busyTimeoutMs;
    for (let delay = FIRST_RETRY_DELAY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS)) {
      if (this.#closed) return;
      let db: SqliteConnection | undefined;
      try {
        if (this.path !== ":memory:") createFolder(dirname(this.path), this.path);
        db = openSqlite(this.path, Math.min(this.#busyTimeoutMs, DRIVER_BUSY_MS));
        const { journal_mode: journal } = db.prepare("PRAGMA journal_mode = WAL").get() as { journal_mode: string };
        db.exec("PRAGMA synchronous = NORMAL");
        migrateSqlite(db, this.path);
        const file = this.#fileId();
        const statements = new SqliteStatements(db);
        // The runs an older release's process wrote without their search words (docs/deploying.md).
        statements.indexPendingWords();
        if (journal === "wal" && file !== undefined && Worker !== undefined) {
          this.#checkpoints = new WalCheckpoints({ db, path: this.path, driver: this.#driver, file, busyTimeoutMs: this.#busyTimeoutMs, Worker });
          storeCheckpoints.set(this, this.#checkpoints);
        }
        this.#file = file;
        this.#statements = statements;
        this.#db = db;
        return;
      } catch (error) {
        db?.close();
        // Another process holds the lock (creating or migrating the same file): try again shortly.
        if (sqliteErrorCode(error) !== "SQLITE_BUSY" || Date.now() >= deadline) throw this.#openError(error);
      }
      await sleep(Math.min(delay, Math.max(1, deadline - Date.now())));
    }
  }

  /** The file the path names now (undefined when there is none, or for `":memory:"`). */
  #fileId(): FileId | undefined {
    if (this.path === ":memory:") return undefined;
    const stat = statSync(this.path, { throwIfNoEntry: false });
    return stat === undefined ? undefined : { dev: stat.dev, ino: stat.ino };
  }

  /**
   * Fails when the path no longer names the file the store opened (deleted, or replaced by another
   * file): SQLite would go on writing into the unlinked file, and the runs would be lost. One
   * `stat` per change (measured at 6-15 µs, against about 200 µs for a write).
   */
  #checkFile(operation: string, runId: string | undefined): void {
    if (this.#gone !== undefined) throw this.#gone;
    if (this.#file === undefined) return;
    const now = this.#fileId();
    if (now !== undefined && now.dev === this.#file.dev && now.ino === this.#file.ino) return;
    this.#gone = new RunStoreError({
      operation,
      runId,
      reason: "gone",
      message: `${STORE}: ${this.path} was ${now === undefined ? "deleted" : "replaced by another file"} while the store had it open; ${operation} was refused rather than written into a file nobody reads. Open a new store on the path (or restore the file).`,
    });
    throw this.#gone;
  }

  #openError(error: unknown): RunStoreError {
    if (RunStoreError.isInstance(error)) return error;
    const code = sqliteErrorCode(error) ?? (error as { code?: unknown } | null)?.code;
    const message =
      code === "SQLITE_NOTADB"
        ? `${this.path} is not an SQLite database, so it cannot be an AgentRx run store (SQLITE_NOTADB). Point \`path\` at another file.`
        : `cannot open ${this.path}: ${(error as Error)?.message ?? String(error)}${typeof code === "string" ? ` (${code})` : ""}`;
    return new RunStoreError({ operation: "open", message: `${STORE}: ${message}`, cause: error });
  }

  /**
   * Runs `action` on the open database, synchronously once it is open; errors come back as
   * rejections. A call that finds the file locked (SQLITE_BUSY) is run again after a timer, until
   * `busyTimeoutMs` has passed. `subject` names what a call that is not about a run concerns (a
   * thread); `changes` says the call writes, so the file is checked first.
   */
  async #call<T>(operation: string, runId: string | undefined, action: (statements: SqliteStatements) => T, { subject, changes = false }: { subject?: string; changes?: boolean } = {}): Promise<T> {
    let deadline: number | undefined;
    for (let delay = FIRST_RETRY_DELAY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS)) {
      if (this.#closed) throw closedStoreError(STORE, operation, runId);
      if (this.#statements === undefined) await this.#open();
      const statements = this.#statements;
      if (statements === undefined) throw closedStoreError(STORE, operation, runId);
      try {
        if (!changes) return action(statements);
        this.#checkFile(operation, runId);
        const value = action(statements);
        this.#checkpoints?.committed();
        return value;
      } catch (error) {
        if (sqliteErrorCode(error) !== "SQLITE_BUSY") throw wrapStoreError(STORE, operation, runId, error, subject);
        // Another connection holds the write lock: wait without blocking the event loop, then retry
        // (a busy statement or transaction applied nothing).
        deadline ??= Date.now() + this.#busyTimeoutMs - Math.min(this.#busyTimeoutMs, DRIVER_BUSY_MS);
        const left = deadline - Date.now();
        if (left <= 0) throw this.#busyError(operation, runId, error);
        await sleep(Math.min(delay, left));
      }
    }
  }

  #busyError(operation: string, runId: string | undefined, error: unknown): RunStoreError {
    return new RunStoreError({
      operation,
      runId,
      reason: "timeout",
      message: `${STORE}: ${operation} waited ${this.#busyTimeoutMs} ms for another connection to ${this.path} to finish writing (SQLITE_BUSY). Raise busyTimeoutMs, or find the process holding the file.`,
      cause: error,
    });
  }

  createRun(run: NewRun): Promise<void> {
    const alone = () =>
      this.#call("createRun", run?.runId, (statements) => {
        checkNewRun(run);
        this.#insert(statements, run.runId, newRunRow(run));
      }, { changes: true });
    let row: RunRow & RunSearchWords;
    try {
      checkNewRun(run);
      row = newRunRow(run);
    } catch {
      return alone(); // rejects with the invalid argument, as a call alone does
    }
    return this.#inTurn("createRun", run.runId, (statements) => this.#insert(statements, run.runId, row), alone);
  }

  #insert(statements: SqliteStatements, runId: string, row: RunRow & RunSearchWords): void {
    if (!statements.insertRun(row)) {
      throw new RunStoreError({ operation: "createRun", runId, message: `${STORE}: run "${runId}" exists already; run ids must be unique.` });
    }
  }

  claimRun(runId: string, claim: ClaimRun): Promise<RunInfo> {
    return this.#call("claimRun", runId, (statements) => {
      checkClaim(runId, claim);
      return statements.claim(runId, claim.owner, claim.at + claim.leaseMs, claim.at);
    }, { changes: true });
  }

  cancelRun(runId: string, cancel: CancelRun): Promise<boolean> {
    return this.#call("cancelRun", runId, (statements) => {
      checkCancel(runId, cancel);
      return statements.cancel(runId, cancel.reason, cancel.at);
    }, { changes: true });
  }

  /**
   * Applies a write. The writes and new runs of several runs that arrive within one turn of the
   * event loop share a commit: the first is applied at once, alone; the others wait for the next
   * turn (`setImmediate`) and are applied together in one `BEGIN IMMEDIATE` transaction, each
   * resolved once that committed (docs/performance.md). A batch that fails as a whole is applied
   * again call by call.
   */
  write(runId: string, write: RunWrite): Promise<RunWriteResult> {
    const alone = () => this.#call("write", runId, (statements) => statements.write(sqliteWriteOf(runId, write)), { changes: true });
    let item: SqliteWrite;
    try {
      item = sqliteWriteOf(runId, write);
    } catch {
      return alone(); // rejects with the invalid argument, as a call alone does
    }
    return this.#inTurn("write", runId, (statements) => statements.write(item), alone, (statements) => statements.writeInBatch(item));
  }

  /**
   * Runs a change (`now`, already checked) at once when it is the first of this turn of the event
   * loop (or the same run's, with nothing waiting), else queues it for the batch at the turn's end (`inBatch`: the same without a transaction
   * of its own). `alone` is the whole call, checks included, for a store not open yet.
   */
  #inTurn<T>(operation: string, runId: string, now: (statements: SqliteStatements) => T, alone: () => Promise<T>, inBatch: (statements: SqliteStatements) => T = now): Promise<T> {
    if (this.#statements === undefined || this.#closed) return alone();
    // A run's next write in the same turn, with no other run's waiting, gains nothing by waiting.
    if (!this.#turnBusy || (this.#turnRunId === runId && this.#waiting.length === 0)) {
      if (!this.#turnBusy) onNextTurn(this.#endTurn);
      this.#turnBusy = true;
      this.#turnRunId = runId;
      return this.#call(operation, runId, now, { changes: true });
    }
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ operation, runId, now, apply: inBatch, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** The end of a turn in which a change was applied: the changes that came after it, in one transaction. */
  readonly #endTurn = (): void => {
    this.#turnBusy = false;
    const waiting = this.#waiting;
    if (waiting.length === 0) return;
    this.#waiting = [];
    const statements = this.#statements;
    let outcomes: BatchOutcome[] | undefined;
    if (statements !== undefined && !this.#closed && waiting.length > 1) {
      try {
        this.#checkFile("write", waiting[0]!.runId);
        outcomes = statements.batch(waiting.map((entry) => () => entry.apply(statements)));
        this.#checkpoints?.committed();
      } catch {
        outcomes = undefined; // nothing was applied: each change goes again alone, with its own retries and errors
      }
    }
    waiting.forEach((entry, index) => {
      const outcome = outcomes?.[index];
      if (outcome === undefined) this.#call(entry.operation, entry.runId, entry.now, { changes: true }).then(entry.resolve, entry.reject);
      else if (outcome.error !== undefined) entry.reject(outcome.error);
      else entry.resolve(outcome.value);
    });
  };

  getRun(runId: string): Promise<RunInfo | undefined> {
    return this.#call("getRun", runId, (statements) => {
      checkKey("getRun", "runId", runId);
      const row = statements.selectRun(runId);
      return row === undefined ? undefined : runInfoOf(row, STORE, "getRun");
    });
  }

  readEvents(runId: string, options?: { after?: number | undefined; limit?: number | undefined }): Promise<StoredRunEvent[]> {
    return this.#call("readEvents", runId, (statements) => {
      const { after, limit } = checkReadOptions(runId, options);
      return statements.readEvents(runId, after, limit).map((row) => storedEventOf(runId, row, STORE));
    });
  }

  /**
   * Lists runs (see `RunStore.listRuns`). A search first computes the search words of the runs a
   * process of an older release wrote into the file since (without them), so it finds those runs
   * too (docs/deploying.md). A store that may not write the file (the process may read it, not
   * write it) computes those words in memory for each search instead.
   */
  listRuns(options?: ListRunsOptions): Promise<RunInfo[]> {
    return this.#call("listRuns", undefined, (statements) => {
      const filter = checkListOptions(options);
      if (filter.terms !== undefined && statements.indexPendingWords() > 0) this.#checkpoints?.committed();
      const rows = statements.listRuns(filter);
      return withCursors(rows.map(listedRunInfoOf), rows, filter);
    });
  }

  deleteRun(runId: string): Promise<boolean> {
    return this.#call("deleteRun", runId, (statements) => statements.deleteRun(checkKey("deleteRun", "runId", runId)), { changes: true });
  }

  pruneRuns(options: { olderThan: number | Date }): Promise<number> {
    return this.#call("pruneRuns", undefined, (statements) => statements.pruneRuns(checkPruneOptions(options)), { changes: true });
  }

  appendThreadMessages(threadId: string, messages: readonly NewThreadMessage[]): Promise<number[]> {
    return this.#call("appendThreadMessages", undefined, (statements) => statements.appendThreadMessages(threadId, threadMessageRows(threadId, messages)), { subject: threadSubject(threadId), changes: true });
  }

  appendRunMessage(runId: string, message: NewThreadMessage): Promise<RunMessageAppended> {
    return this.#call("appendRunMessage", runId, (statements) => {
      checkKey("appendRunMessage", "runId", runId);
      const [row] = threadMessageRows(runInboxId(runId), [message]);
      return statements.appendRunMessage(runId, row!);
    }, { changes: true });
  }

  readThreadMessages(threadId: string, options?: ReadThreadMessagesOptions): Promise<StoredThreadMessage[]> {
    return this.#call(
      "readThreadMessages",
      undefined,
      (statements) => statements.readThreadMessages(threadId, checkThreadRead(threadId, options)).map((row) => storedThreadMessageOf(threadId, row, STORE)),
      { subject: threadSubject(threadId) },
    );
  }

  clearThread(threadId: string): Promise<number> {
    return this.#call("clearThread", undefined, (statements) => statements.clearThread(checkThreadKey("clearThread", "threadId", threadId)), { subject: threadSubject(threadId), changes: true });
  }

  /** Closes the database file. Calls made after it reject with a `RunStoreError`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#endTurn(); // the changes asked for before close() are applied
    this.#closed = true;
    await this.#opening?.catch(() => undefined);
    this.#statements = undefined;
    // The worker's connection first: the store's, closed last, copies the WAL back and removes it.
    await this.#checkpoints?.close();
    this.#db?.close();
    this.#db = undefined;
  }
}
