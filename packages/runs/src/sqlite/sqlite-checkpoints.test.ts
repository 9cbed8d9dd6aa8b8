import { execFile } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { RunStoreError } from "@agentrx/executors";
import { afterAll, describe, expect, it, vi } from "vitest";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { CHECKPOINT_PAGES, INLINE_CHECKPOINT_PAGES, loadWorkerThreads, TAIL_CHECKPOINT_PAGES, WalCheckpoints, type WorkerConstructor } from "./sqlite-checkpoints";
import { loadSqliteDriver, type SqliteConnection } from "./sqlite-driver";
import { SqliteRunStore, walCheckpointState } from "./sqlite-run-store";

const dir = mkdtempSync(join(tmpdir(), "agentrx-sqlite-checkpoints-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `wal-${++files}.db`);
const ROOT = resolve(__dirname, "../../../..");

/** A WAL-mode file with a table of blobs, opened as the store opens its own. */
async function openFile(path: string): Promise<{ db: SqliteConnection; file: { dev: number; ino: number } }> {
  const db = (await loadSqliteDriver("test", "better-sqlite3"))(path, 50);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB)");
  const { dev, ino } = statSync(path);
  return { db, file: { dev, ino } };
}

/** The WAL file's length in pages of the file's page size (4,096 bytes, plus each frame's 24-byte header). */
const walPages = (path: string) => Math.floor(statSync(`${path}-wal`).size / (4096 + 24));

/**
 * The WAL header's checkpoint sequence number (bytes 12-15, big-endian; see
 * https://www.sqlite.org/fileformat2.html#walformat): SQLite raises it each time the WAL starts over.
 */
function walSequence(path: string): number {
  const header = Buffer.alloc(16);
  const fd = openSync(`${path}-wal`, "r");
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(12);
}

/** `count` commits of about two pages each, each followed by `checkpoints.committed()`. */
function commit(db: SqliteConnection, checkpoints: WalCheckpoints, count: number): void {
  const insert = db.prepare("INSERT INTO blobs (data) VALUES (randomblob(6000))");
  for (let index = 0; index < count; index++) {
    insert.run();
    checkpoints.committed();
  }
}

const realWorker = async () => (await loadWorkerThreads())!;

describe("WalCheckpoints", () => {
  it("turns SQLite's automatic checkpoints off and has a worker thread checkpoint once the WAL holds 1,000 pages", async () => {
    const path = freshPath();
    const { db, file } = await openFile(path);
    const Real = await realWorker();
    const started: { unref: ReturnType<typeof vi.fn> }[] = [];
    const Worker = function (this: unknown, source: string, options: { eval: true; workerData: unknown }) {
      const worker = new Real(source, options);
      const original = worker.unref.bind(worker);
      const unref = vi.fn(() => original());
      started.push({ unref });
      return Object.assign(worker, { unref });
    } as unknown as WorkerConstructor;
    const checkpoints = new WalCheckpoints({ db, path, driver: "better-sqlite3", file, busyTimeoutMs: 1000, Worker });
    try {
      expect(db.prepare("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 0 });
      commit(db, checkpoints, 100);
      // Below the mark: no worker yet (a store that writes little never starts one).
      expect(started).toHaveLength(0);
      expect(checkpoints.state).toEqual({ mode: "background", worker: false, background: 0, inline: 0 });
      commit(db, checkpoints, CHECKPOINT_PAGES / 2);
      expect(started).toHaveLength(1);
      expect(started[0]!.unref).toHaveBeenCalledTimes(1); // it does not keep the process alive
      await vi.waitFor(() => expect(checkpoints.state.background).toBeGreaterThan(0), { timeout: 20_000, interval: 20 });
      // The worker copied the pages back into the file (in WAL mode, only checkpoints write it).
      expect(statSync(path).size).toBeGreaterThan((CHECKPOINT_PAGES / 2) * 4096);
      expect(checkpoints.state).toMatchObject({ mode: "background", worker: true, inline: 0 });
    } finally {
      await checkpoints.close();
      db.close();
    }
    expect(checkpoints.state.worker).toBe(false);
  });

  it("keeps the WAL bounded while the store commits without a pause, with the worker's checkpoints and its own of the last pages", async () => {
    const path = freshPath();
    const { db, file } = await openFile(path);
    const checkpoints = new WalCheckpoints({ db, path, driver: "better-sqlite3", file, busyTimeoutMs: 1000, Worker: await realWorker() });
    try {
      let longest = 0;
      let restarts = 0;
      let sequence = walSequence(path);
      for (let round = 0; round < 120; round++) {
        commit(db, checkpoints, 200);
        longest = Math.max(longest, walPages(path));
        const now = walSequence(path);
        restarts += now - sequence;
        sequence = now;
        await new Promise((resolve) => setImmediate(resolve));
      }
      // 120 rounds of 200 commits of two pages or more: over 48,000 pages, six times the WAL's cap.
      // Commits this fast (and without a pause) add pages while the worker holds the checkpoint lock,
      // so the cap is not exact: on a quiet machine the WAL starts over 10 to 14 times and peaks at
      // 8,000 to 13,000 pages. While a checkpoint waits on a busy disk (its fsync) the WAL cannot
      // start over, and grows for as long as that takes: CI saw 31,232 pages once, and a full local
      // run 60,560, nearly all that was written. What holds whatever the timing: the WAL starts over
      // again and again, and keeps doing so as the commits go on (it does not grow for good).
      expect(restarts, `the WAL started over ${restarts} times (longest: ${longest} pages)`).toBeGreaterThanOrEqual(2);
      const before = restarts;
      await vi.waitFor(
        async () => {
          commit(db, checkpoints, 200);
          const now = walSequence(path);
          restarts += now - sequence;
          sequence = now;
          await new Promise((resolve) => setImmediate(resolve));
          expect(restarts - before).toBeGreaterThanOrEqual(2);
        },
        { timeout: 30_000, interval: 0 },
      );
      expect(checkpoints.state.mode).toBe("background");
      await vi.waitFor(() => expect(checkpoints.state.background).toBeGreaterThan(0), { timeout: 20_000, interval: 20 });
    } finally {
      await checkpoints.close();
      db.close();
    }
  }, 60_000);

  it("checkpoints in the commits once the WAL reaches its cap when the worker never answers", async () => {
    const path = freshPath();
    const { db, file } = await openFile(path);
    // A worker that starts but never checkpoints (hung, or starved of CPU).
    const Worker = function () {
      return { on: () => undefined, ref: () => undefined, unref: () => undefined, terminate: async () => 0 };
    } as unknown as WorkerConstructor;
    const checkpoints = new WalCheckpoints({ db, path, driver: "better-sqlite3", file, busyTimeoutMs: 1000, Worker });
    try {
      commit(db, checkpoints, 3 * INLINE_CHECKPOINT_PAGES / 2);
      expect(checkpoints.state).toMatchObject({ mode: "background", background: 0 });
      expect(checkpoints.state.inline).toBeGreaterThan(0);
      expect(walPages(path)).toBeLessThanOrEqual(INLINE_CHECKPOINT_PAGES + 10);
    } finally {
      await checkpoints.close();
      db.close();
    }
  });

  it("goes back to SQLite's automatic checkpoints when the worker cannot start or cannot open the file", async () => {
    const throwing = function () {
      throw new Error("no threads here");
    } as unknown as WorkerConstructor;
    // A worker whose driver cannot be loaded (the real Worker, given a driver path that is not one).
    const broken = freshPath();
    writeFileSync(join(dir, "not-a-driver.cjs"), "throw new Error('not a driver');");
    const Real = await realWorker();
    const badDriver = function (this: unknown, source: string, options: { eval: true; workerData: Record<string, unknown> }) {
      return new Real(source, { ...options, workerData: { ...options.workerData, driverPath: join(dir, "not-a-driver.cjs") } });
    } as unknown as WorkerConstructor;
    for (const [path, Worker] of [[freshPath(), throwing], [broken, badDriver]] as const) {
      const { db, file } = await openFile(path);
      const checkpoints = new WalCheckpoints({ db, path, driver: "better-sqlite3", file, busyTimeoutMs: 1000, Worker });
      try {
        commit(db, checkpoints, CHECKPOINT_PAGES / 2 + 8);
        await vi.waitFor(() => expect(checkpoints.state.mode).toBe("inline"), { timeout: 20_000, interval: 20 });
        commit(db, checkpoints, 8);
        expect(db.prepare("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: CHECKPOINT_PAGES });
        // SQLite checkpoints in the commits again: the WAL starts over at about 1,000 pages.
        commit(db, checkpoints, CHECKPOINT_PAGES);
        expect(walPages(path)).toBeLessThan(TAIL_CHECKPOINT_PAGES);
        expect(checkpoints.state.worker).toBe(false);
      } finally {
        await checkpoints.close();
        db.close();
      }
    }
  });
});

describe("SqliteRunStore's WAL checkpoints", () => {
  const step = (store: SqliteRunStore, seq: number) =>
    store.write("r1", { owner: "w", leaseMs: 60_000, epoch: 1, at: seq + 1, events: [{ seq, type: "step", at: seq + 1, data: { type: "step", text: "x".repeat(6000) } }] });

  it("are made by a worker thread, which close() ends; its file deleted, a write still fails with reason \"gone\"", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    let seq = 0;
    while (walCheckpointState(store)?.worker !== true && seq < 2000) await step(store, ++seq);
    expect(walCheckpointState(store)?.worker).toBe(true); // started within about 1,000 pages (some 200 writes)
    await vi.waitFor(() => expect(walCheckpointState(store)?.background).toBeGreaterThan(0), { timeout: 20_000, interval: 20 });
    expect(walCheckpointState(store)).toMatchObject({ mode: "background", worker: true, inline: 0 });
    expect((await store.readEvents("r1")).length).toBe(seq);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    const error = await rejectionOf(step(store, ++seq));
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: "gone", operation: "write", runId: "r1" });
    await store.close();
    expect(walCheckpointState(store)?.worker).toBe(false);
  });

  it("has none for \":memory:\"", async () => {
    const store = new SqliteRunStore({ path: ":memory:" });
    await store.listRuns();
    expect(walCheckpointState(store)).toBeUndefined();
    await store.close();
  });

  it("keeps every write across a close and a reopen after the worker's checkpoints", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    let seq = 0;
    while ((walCheckpointState(store)?.background ?? 0) < 2 && seq < 5000) {
      await step(store, ++seq);
      if (seq % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 1)); // time for the worker
    }
    expect(walCheckpointState(store)?.background).toBeGreaterThanOrEqual(2);
    await store.close();
    const reopened = new SqliteRunStore({ path });
    expect((await reopened.getRun("r1"))?.eventCount).toBe(seq);
    expect((await reopened.readEvents("r1", { after: seq - 1 })).map((event) => event.seq)).toEqual([seq]);
    await reopened.close();
  });

  it("do not keep the process alive: a process that never closes its store ends", { timeout: 60_000 }, async () => {
    const path = freshPath();
    const script = join(dir, "never-closes.mts");
    writeFileSync(
      script,
      `import { SqliteRunStore, walCheckpointState } from ${JSON.stringify(resolve(__dirname, "sqlite-run-store.ts"))};
const store = new SqliteRunStore({ path: ${JSON.stringify(path)} });
await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
let seq = 0;
while ((walCheckpointState(store)?.background === 0 || walCheckpointState(store)?.worker !== true) && seq < 20000) {
  seq++;
  await store.write("r1", { owner: "w", leaseMs: 60_000, epoch: 1, at: seq + 1, events: [{ seq, type: "step", at: seq + 1, data: { text: "x".repeat(6000) } }] });
  await new Promise((resolve) => setImmediate(resolve));
}
console.log(JSON.stringify(walCheckpointState(store)));
`,
    );
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ["--import", "tsx", script], { cwd: ROOT, timeout: 50_000 }, (error, out) => (error ? reject(error) : resolve(out)));
    });
    expect(JSON.parse(stdout)).toMatchObject({ mode: "background", worker: true });
  });
});
