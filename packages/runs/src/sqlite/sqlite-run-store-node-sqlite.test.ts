// SqliteRunStore on the built-in node:sqlite module, the driver it uses under Deno and Bun. Node 20
// has no node:sqlite, so under it these tests are skipped; the runtime matrix
// (test/runtimes/runtime-matrix.test.ts) runs this file under Deno, where they run.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunStoreError } from "@agentrx/executors";
import { afterAll, describe, expect, it, vi } from "vitest";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { runStoreConformance } from "../testing/run-store-conformance";
import { defaultSqliteDriver, loadSqliteDriver, sqliteErrorCode } from "./sqlite-driver";
import { SqliteRunStore, walCheckpointState } from "./sqlite-run-store";

const nodeSqlite = await import("node:sqlite" as string).then(
  () => true,
  () => false,
);
const dir = mkdtempSync(join(tmpdir(), "agentrx-node-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const conformancePath = join(dir, "conformance", "runs.db");

async function update(path: string, sql: string, ...params: unknown[]): Promise<void> {
  const db = (await loadSqliteDriver("test", "node:sqlite"))(path, 1000);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

runStoreConformance({
  name: 'SqliteRunStore (driver "node:sqlite")',
  skip: !nodeSqlite,
  create: async () => new SqliteRunStore({ path: conformancePath, driver: "node:sqlite" }),
  persistent: true,
  corrupt: (runId, column) =>
    column === "event"
      ? update(conformancePath, "UPDATE agentrx_run_events SET data = '{not json' WHERE run_id = ? AND seq = 1", runId)
      : update(conformancePath, `UPDATE agentrx_runs SET ${column} = '{"truncated":' WHERE run_id = ?`, runId),
  corruptThreadMessage: (threadId, seq) => update(conformancePath, "UPDATE agentrx_thread_messages SET message = '{not json' WHERE thread_id = ? AND seq = ?", threadId, seq),
});

describe('SqliteRunStore driver "node:sqlite"', () => {
  it.skipIf(!nodeSqlite)("opens the file in WAL mode, and a second connection waits for the first one's write lock, then reports SQLITE_BUSY", async () => {
    const path = join(dir, "busy.db");
    const store = new SqliteRunStore({ path, driver: "node:sqlite", busyTimeoutMs: 50 });
    expect(store.driver).toBe("node:sqlite");
    expect(await store.listRuns()).toEqual([]);
    const db = (await loadSqliteDriver("test", "node:sqlite"))(path, 0);
    try {
      expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      db.exec("BEGIN IMMEDIATE");
      const started = Date.now();
      const error = await rejectionOf(store.createRun({ runId: "r1", status: "queued", inputs: {}, at: 1 }));
      expect(Date.now() - started).toBeGreaterThanOrEqual(40);
      expect(RunStoreError.isInstance(error) && error.message).toMatch(/waited 50 ms for another connection .* \(SQLITE_BUSY\)/);
      expect(sqliteErrorCode((error as Error).cause)).toBe("SQLITE_BUSY");
      db.exec("ROLLBACK");
    } finally {
      db.close();
      await store.close();
    }
  });

  // Under Deno and Bun the store leaves checkpoints to SQLite (no worker): Node.js 22.13+ only.
  const onNode = (globalThis as { Deno?: unknown }).Deno === undefined && (globalThis as { process?: { versions?: { bun?: string } } }).process?.versions?.bun === undefined;
  it.skipIf(!nodeSqlite || !onNode)("checkpoints the WAL from a worker thread that opens the file with node:sqlite too", async () => {
    const path = join(dir, "checkpoints.db");
    const store = new SqliteRunStore({ path, driver: "node:sqlite" });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    let seq = 0;
    while (walCheckpointState(store)?.worker !== true && seq < 2000) {
      seq++;
      await store.write("r1", { owner: "w", leaseMs: 60_000, epoch: 1, at: seq + 1, events: [{ seq, type: "step", at: seq + 1, data: { text: "x".repeat(6000) } }] });
    }
    expect(walCheckpointState(store)?.worker).toBe(true);
    await vi.waitFor(() => expect(walCheckpointState(store)?.background).toBeGreaterThan(0), { timeout: 20_000, interval: 20 });
    expect(walCheckpointState(store)?.mode).toBe("background");
    await store.close();
    expect(walCheckpointState(store)?.worker).toBe(false);
    const reopened = new SqliteRunStore({ path, driver: "node:sqlite" });
    expect((await reopened.getRun("r1"))?.eventCount).toBe(seq);
    await reopened.close();
  });

  it.skipIf(!nodeSqlite || onNode)("leaves the WAL's checkpoints to SQLite under Deno and Bun: no worker, and the WAL stays bounded", async () => {
    const path = join(dir, "sqlite-checkpoints.db");
    const store = new SqliteRunStore({ path, driver: "node:sqlite" });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    const writes = 1500;
    for (let seq = 1; seq <= writes; seq++) {
      await store.write("r1", { owner: "w", leaseMs: 60_000, epoch: 1, at: seq + 1, events: [{ seq, type: "step", at: seq + 1, data: { text: "x".repeat(6000) } }] });
    }
    expect(walCheckpointState(store)).toBeUndefined();
    // The writes append about 4,500 pages; SQLite's own checkpoints start the WAL over every 1,000.
    expect(statSync(`${path}-wal`).size).toBeLessThan(1600 * 4096);
    expect((await store.getRun("r1"))?.eventCount).toBe(writes);
    await store.close();
  });

  it.skipIf(nodeSqlite)("says which runtimes have node:sqlite where it is missing", async () => {
    const store = new SqliteRunStore({ path: join(dir, "missing.db"), driver: "node:sqlite" });
    const error = await rejectionOf(store.listRuns());
    expect(RunStoreError.isInstance(error) && error.message).toMatch(/driver "node:sqlite" needs a runtime with the built-in node:sqlite module \(Deno 2, Bun 1, Node\.js 22\.13 or later\).*Use driver "better-sqlite3"/);
    await store.close();
  });

  it("defaults to better-sqlite3 under Node.js and to node:sqlite under Deno and Bun", () => {
    const runtime = globalThis as { Deno?: unknown; process: { versions: { bun?: string } } };
    const expected = runtime.Deno !== undefined || runtime.process.versions.bun !== undefined ? "node:sqlite" : "better-sqlite3";
    expect(defaultSqliteDriver()).toBe(expected);
    expect(new SqliteRunStore({ path: ":memory:" }).driver).toBe(expected);
  });

  it.each([
    [{ file: "runs.db" }, "file", /SqliteRunStore: unknown option `file`\. Known options: path, busyTimeoutMs, driver\./],
    [{ path: ":memory:", busyTimeout: 100 }, "busyTimeout", /unknown option `busyTimeout`/],
    ["runs.db", "options", /SqliteRunStore: options must be an object such as \{ path: "runs\.db" \}, got "runs\.db"\./],
    [null, "options", /SqliteRunStore: options must be an object/],
  ])("refuses options %j instead of recording into the default file, naming the problem", (options, argument, message) => {
    expect(() => new SqliteRunStore(options as never)).toThrow(expect.objectContaining({ name: "InvalidArgumentError", argument, message: expect.stringMatching(message) }));
  });

  it("rejects an unknown driver at construction, naming the option", () => {
    expect(() => new SqliteRunStore({ driver: "sqlite3" as never })).toThrow(/SqliteRunStore: driver must be "better-sqlite3" or "node:sqlite", got "sqlite3"/);
  });
});
