import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";
import { type SqliteConnection, type SqliteDriver, sqlitePackagePath } from "./sqlite-driver";

/**
 * Pages in the WAL not yet copied back into the database file at which the worker is asked for a
 * checkpoint: SQLite's own automatic checkpoint mark.
 */
export const CHECKPOINT_PAGES = 1000;
/**
 * The WAL's length, in pages, from which the store copies the WAL's last pages itself, inline, once
 * the worker has copied the rest (at most {@link TAIL_PAGES} are left). SQLite starts the WAL over
 * from its beginning only when every page in it was copied back, which a worker seldom manages
 * while the store keeps committing: without this, the WAL would grow as long as the writes go on.
 */
export const TAIL_CHECKPOINT_PAGES = 4 * CHECKPOINT_PAGES;
/** Pages left to copy at which the store copies the WAL's tail itself (see {@link TAIL_CHECKPOINT_PAGES}). */
const TAIL_PAGES = 256;
/**
 * The WAL's length, in pages, at which the store checkpoints inline whatever is left to copy, as
 * SQLite does by itself: the worker fell far behind, or hangs.
 */
export const INLINE_CHECKPOINT_PAGES = 2 * TAIL_CHECKPOINT_PAGES;
/** Commits between two looks at the WAL (each one read of 104 bytes of the `-shm` file). */
const COMMITS_PER_LOOK = 4;
/** How long the store must not commit before the worker copies the WAL's last pages, in milliseconds. */
const QUIET_MS = 2;
/** How many times the worker waits {@link QUIET_MS} for the store to be quiet before it leaves the last pages. */
const QUIET_WAITS = 25;
/** How long close() waits for the worker to end by itself before it terminates it, in milliseconds. */
const CLOSE_GRACE_MS = 2000;
/** The `iVersion` of a wal-index header (https://www.sqlite.org/walformat.html). */
const WAL_INDEX_VERSION = 3007000;

/** What the worker is to do, in `state[COMMAND]`. */
const IDLE = 0;
const CHECKPOINT = 1;
const CLOSE = 2;
/**
 * The cells of the state the store and its worker share: the command; the checkpoints the worker
 * made; whether it failed to open; the store's commits.
 */
const COMMAND = 0;
const MADE = 1;
const FAILED = 2;
const COMMITS = 3;
const CELLS = 4;

/**
 * The worker's code (CommonJS, run with `eval`: no file to ship next to the bundle). It opens the
 * store's file with the store's driver, checking before and after that the path still names the
 * file the store opened. Then it waits (`Atomics.wait`: the store's event loop need not turn for
 * the worker to hear it) for `CHECKPOINT` or `CLOSE`. For a `CHECKPOINT` it runs a `PASSIVE`
 * checkpoint, which never waits for a lock and never blocks a writer. The pages committed
 * meanwhile are left; it copies them once the store has not committed for `QUIET_MS` (trying
 * `QUIET_WAITS` times), so that the store's next write can start the WAL over from its beginning.
 */
const WORKER_SOURCE = `"use strict";
const { workerData } = require("node:worker_threads");
const { statSync } = require("node:fs");
const { driver, driverPath, path, dev, ino, busyTimeoutMs } = workerData;
const state = new Int32Array(workerData.state);
function checkFile() {
  const now = statSync(path);
  if (now.dev !== dev || now.ino !== ino) throw new Error(path + " names another file than the store opened");
}
let db;
let statement;
try {
  checkFile();
  if (driver === "better-sqlite3") {
    const Database = require(driverPath);
    db = new Database(path, { fileMustExist: true, timeout: busyTimeoutMs });
  } else {
    const { DatabaseSync } = require("node:sqlite");
    db = new DatabaseSync(path);
    db.exec("PRAGMA busy_timeout = " + busyTimeoutMs);
  }
  checkFile();
  statement = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
} catch (error) {
  Atomics.store(state, ${FAILED}, 1);
  if (db !== undefined) db.close();
  throw error;
}
// Whether every page of the WAL is copied back.
function checkpoint() {
  try {
    const { busy, log, checkpointed } = statement.get();
    if (Number(busy) !== 0) return false;
    Atomics.add(state, ${MADE}, 1);
    return Number(log) === Number(checkpointed);
  } catch {
    return false;
  }
}
for (;;) {
  Atomics.wait(state, ${COMMAND}, ${IDLE});
  if (Atomics.load(state, ${COMMAND}) === ${CLOSE}) break;
  let done = checkpoint();
  for (let waits = 0; !done && waits < ${QUIET_WAITS} && Atomics.load(state, ${COMMAND}) === ${CHECKPOINT}; waits++) {
    const commits = Atomics.load(state, ${COMMITS});
    Atomics.wait(state, ${COMMAND}, ${CHECKPOINT}, ${QUIET_MS});
    if (Atomics.load(state, ${COMMAND}) === ${CHECKPOINT} && Atomics.load(state, ${COMMITS}) === commits) done = checkpoint();
  }
  Atomics.compareExchange(state, ${COMMAND}, ${CHECKPOINT}, ${IDLE});
}
db.close();
`;

/** The parts of `node:worker_threads`' `Worker` the checkpoints use. */
interface CheckpointWorker {
  on(event: "error", listener: (error: unknown) => void): unknown;
  on(event: "exit", listener: (code: number) => void): unknown;
  ref(): void;
  unref(): void;
  terminate(): Promise<number>;
}

/** `node:worker_threads`' `Worker` constructor, as the checkpoints call it. */
export type WorkerConstructor = new (source: string, options: { eval: true; workerData: unknown }) => CheckpointWorker;

/**
 * `node:worker_threads`' `Worker`, loaded before the store's first commit (so that starting the
 * worker later needs no turn of the event loop), or undefined where the runtime has none.
 */
export async function loadWorkerThreads(): Promise<WorkerConstructor | undefined> {
  try {
    const { Worker } = await import("node:worker_threads");
    return typeof Worker === "function" ? (Worker as unknown as WorkerConstructor) : undefined;
  } catch {
    return undefined;
  }
}

/** Where the checkpoints of a {@link WalCheckpoints} are made, and how many so far. */
export interface WalCheckpointState {
  /** `"background"`: in a worker thread; `"inline"`: in the store's commits (SQLite's automatic checkpoints). */
  mode: "background" | "inline";
  /** Whether the worker thread was started and has not ended. */
  worker: boolean;
  /** Checkpoints the worker made. */
  background: number;
  /** Checkpoints the store made on its own connection because the worker fell behind ({@link INLINE_CHECKPOINT_PAGES}). */
  inline: number;
}

/**
 * Keeps the checkpoints of a store's WAL off its commits. SQLite copies the WAL back into the
 * database file (a checkpoint, two `fsync`s) inside the commit that takes the WAL past 1,000
 * pages, which more than doubled a commit's average time (docs/performance.md). Here the store's
 * connection has automatic checkpoints off (`wal_autocheckpoint = 0`), and every few commits the
 * store reads how many pages the WAL holds that are not yet in the file (the wal-index header of
 * the `-shm` file); past {@link CHECKPOINT_PAGES} a worker thread with its own connection, started
 * then, runs a `PASSIVE` checkpoint, which never blocks a writer. Past
 * {@link INLINE_CHECKPOINT_PAGES} (the worker fell behind) the store checkpoints inline. Where the
 * worker cannot run (no `node:worker_threads`, the driver cannot be loaded in it, an unreadable
 * `-shm` file), automatic checkpoints are turned back on: inline, as SQLite does by itself.
 * Durability is unchanged: a commit is in the WAL either way, and a checkpoint from another
 * connection copies only committed pages.
 */
export class WalCheckpoints {
  readonly #db: SqliteConnection;
  readonly #path: string;
  readonly #driver: SqliteDriver;
  readonly #file: { dev: number; ino: number };
  readonly #busyTimeoutMs: number;
  readonly #header = Buffer.alloc(104);
  readonly #littleEndian = endianness() === "LE";
  /** Shared with the worker: see {@link COMMAND} and the cells after it. */
  readonly #state = new Int32Array(new SharedArrayBuffer(CELLS * Int32Array.BYTES_PER_ELEMENT));
  #shm: number | undefined;
  #commits = 0;
  #mode: "background" | "inline" = "background";
  #worker: CheckpointWorker | undefined;
  #started = false;
  readonly #Worker: WorkerConstructor;
  #exited: Promise<void> | undefined;
  #closed = false;
  #inline = 0;

  /**
   * Turns the connection's automatic checkpoints off; `file` is the file the store opened (the
   * worker refuses to work on another one at the same path).
   */
  constructor(options: { db: SqliteConnection; path: string; driver: SqliteDriver; file: { dev: number; ino: number }; busyTimeoutMs: number; Worker: WorkerConstructor }) {
    this.#db = options.db;
    this.#Worker = options.Worker;
    this.#path = options.path;
    this.#driver = options.driver;
    this.#file = options.file;
    this.#busyTimeoutMs = options.busyTimeoutMs;
    this.#db.exec("PRAGMA wal_autocheckpoint = 0");
  }

  /** Where checkpoints are made now, and how many were made. */
  get state(): WalCheckpointState {
    return { mode: this.#mode, worker: this.#worker !== undefined, background: Atomics.load(this.#state, MADE), inline: this.#inline };
  }

  /** Called after each commit of the store's connection (never throws). */
  committed(): void {
    if (this.#mode === "inline") return;
    Atomics.add(this.#state, COMMITS, 1);
    if (++this.#commits < COMMITS_PER_LOOK) return;
    this.#commits = 0;
    const wal = this.#readWalIndex();
    if (wal === undefined || Atomics.load(this.#state, FAILED) !== 0) {
      this.#toInline();
      return;
    }
    const pending = Math.max(0, wal.frames - wal.backfilled);
    if ((wal.frames >= TAIL_CHECKPOINT_PAGES && pending <= TAIL_PAGES) || wal.frames >= INLINE_CHECKPOINT_PAGES) {
      try {
        const { busy } = this.#db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as { busy: number | bigint };
        if (Number(busy) === 0) this.#inline++;
      } catch {
        // Failing: the next look tries again.
      }
    } else if (pending >= CHECKPOINT_PAGES) {
      this.#ask();
    }
  }

  /**
   * The WAL's length in pages (`mxFrame`) and how many of them are copied back (`nBackfill`), from
   * the wal-index header; undefined when it cannot be read.
   */
  #readWalIndex(): { frames: number; backfilled: number } | undefined {
    try {
      this.#shm ??= openSync(`${this.#path}-shm`, "r");
      const header = this.#header;
      if (readSync(this.#shm, header, 0, header.length, 0) < header.length) return undefined;
      const u32 = (offset: number) => (this.#littleEndian ? header.readUInt32LE(offset) : header.readUInt32BE(offset));
      if (u32(0) !== WAL_INDEX_VERSION) return undefined;
      return { frames: u32(16), backfilled: u32(96) };
    } catch {
      return undefined;
    }
  }

  /** Asks the worker for a checkpoint (unless it is making one), starting it the first time. */
  #ask(): void {
    if (Atomics.compareExchange(this.#state, COMMAND, IDLE, CHECKPOINT) !== IDLE) return;
    Atomics.notify(this.#state, COMMAND);
    if (!this.#started) {
      this.#started = true;
      this.#start();
    }
  }

  #start(): void {
    let worker: CheckpointWorker;
    try {
      const driverPath = sqlitePackagePath(this.#driver);
      if (driverPath === undefined) throw new Error(`${this.#driver} cannot be resolved`);
      worker = new this.#Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { state: this.#state.buffer, driver: this.#driver, driverPath, path: this.#path, dev: this.#file.dev, ino: this.#file.ino, busyTimeoutMs: Math.min(this.#busyTimeoutMs, 50) },
      });
    } catch {
      this.#toInline();
      return;
    }
    // The worker must not keep the process alive; close() ends it.
    worker.unref();
    this.#worker = worker;
    this.#exited = new Promise((resolve) => {
      worker.on("exit", () => {
        this.#worker = undefined;
        if (!this.#closed) this.#toInline();
        resolve();
      });
    });
    // A worker that cannot open the file (or load its driver) ends with an error: "exit" follows.
    worker.on("error", () => undefined);
  }

  /** Back to SQLite's automatic checkpoints, made inline by the commits (where the worker cannot run). */
  #toInline(): void {
    if (this.#mode === "inline" || this.#closed) return;
    this.#mode = "inline";
    this.#closeShm();
    try {
      this.#db.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
    } catch {
      // The connection is failing: its calls say so.
    }
    this.#stopWorker();
  }

  #stopWorker(): void {
    Atomics.store(this.#state, COMMAND, CLOSE);
    Atomics.notify(this.#state, COMMAND);
  }

  #closeShm(): void {
    if (this.#shm === undefined) return;
    try {
      closeSync(this.#shm);
    } catch {
      // Already closed.
    }
    this.#shm = undefined;
  }

  /**
   * Stops the worker and waits until it has ended (it closes its connection first; one that has
   * not ended after {@link CLOSE_GRACE_MS}, stuck in a call, is terminated). Call it before
   * closing the store's connection.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closeShm();
    this.#stopWorker();
    const worker = this.#worker;
    if (worker === undefined) return;
    // Held by nothing else, the process could end before the worker has closed its connection.
    worker.ref();
    let grace: ReturnType<typeof setTimeout> | undefined;
    const stuck = new Promise<void>((resolve) => {
      grace = setTimeout(() => void worker.terminate().then(() => resolve(), () => resolve()), CLOSE_GRACE_MS);
    });
    await Promise.race([this.#exited, stuck]);
    clearTimeout(grace);
    this.#worker = undefined;
  }
}
