// SqliteRunStore on a file the process may read but not write, which holds runs an older
// release's process wrote without their search words (marked `words_pending`): a search cannot
// write their words, and must still find them. Tests run
// as root in CI, where `chmod` stops nothing: the store's connections to the files named in
// `readOnly` are opened with better-sqlite3's `readonly` flag, whose writes SQLite refuses as it
// does on a file the process may not write (SQLITE_READONLY, once BEGIN IMMEDIATE succeeded). The
// test's own connections (the older process) are better-sqlite3's, unchanged.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { sqliteErrorCode } from "./sqlite-driver";
import { SqliteRunStore } from "./sqlite-run-store";

const { readOnly } = vi.hoisted(() => ({ readOnly: new Set<string>() }));

vi.mock("better-sqlite3", async (importOriginal) => {
  const { default: Original } = await importOriginal<{ default: typeof Database }>();
  const ReadOnly = new Proxy(Original, {
    construct: (target, [path, options]: [string, Database.Options | undefined]) => new target(path, readOnly.has(path) ? { ...options, readonly: true } : options),
  });
  return { default: ReadOnly };
});

const { default: Sqlite } = await vi.importActual<{ default: typeof Database }>("better-sqlite3");

const dir = mkdtempSync(join(tmpdir(), "agentrx-sqlite-read-only-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A file recorded by this release: run "current" asked about Lisbon and answered "Cloudy." (its words computed). */
async function recordedFile(fts: boolean): Promise<string> {
  const path = join(dir, `store-${++files}.db`);
  const store = new SqliteRunStore({ path });
  await store.createRun({ runId: "current", inputs: { input: "Weather in Lisbon?" }, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
  await store.write("current", { owner: "w", leaseMs: 60_000, epoch: 1, at: 2, events: [{ seq: 1, type: "output", at: 2, data: { type: "output", output: "Cloudy." } }] });
  await store.close();
  // As a build of SQLite without FTS5 leaves the file: search reads the word columns.
  if (!fts) withFile(path, (db) => db.exec("DROP TRIGGER agentrx_runs_fts_insert; DROP TRIGGER agentrx_runs_fts_delete; DROP TRIGGER agentrx_runs_fts_update; DROP TABLE agentrx_runs_fts;"));
  return path;
}

function withFile<T>(path: string, use: (db: Database.Database) => T): T {
  const db = new Sqlite(path);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/**
 * What a process of an older release (schema version 5, before the search words) writes through its
 * own connection: runs asking "Weather in Paris?" whose INSERT names no words column (created at
 * `at`, `at + 1`...), and an answer of run "current" that sets its text alone.
 */
function olderWrites(path: string, { runIds = [], at = 100, answerCurrent }: { runIds?: readonly string[]; at?: number; answerCurrent?: string }): void {
  withFile(path, (db) => {
    const insert = db.prepare(`INSERT INTO agentrx_runs (run_id, status, inputs, created_at, updated_at, owner, epoch, input_text) VALUES (?, 'running', '{"input":"Weather in Paris?"}', ?, ?, 'old', 1, 'Weather in Paris?')`);
    const event = db.prepare("INSERT INTO agentrx_run_events (run_id, seq, type, at, data) VALUES (?, ?, 'output', ?, ?)");
    db.transaction(() => {
      runIds.forEach((runId, index) => insert.run(runId, at + index, at + index));
      if (answerCurrent !== undefined) {
        event.run("current", 2, 50, JSON.stringify({ type: "output", at: 50, output: answerCurrent }));
        db.prepare("UPDATE agentrx_runs SET event_count = 2, answer_text = ?, updated_at = 50 WHERE run_id = 'current'").run(answerCurrent);
      }
    })();
  });
}

const pendingCount = (path: string) => withFile(path, (db) => (db.prepare("SELECT count(*) AS n FROM agentrx_runs WHERE words_pending IS NOT NULL").get() as { n: number }).n);

const found = async (store: SqliteRunStore, search: string, limit?: number) => (await store.listRuns({ search, sort: "createdAt", order: "asc", ...(limit === undefined ? {} : { limit }) })).map((run) => run.runId);

describe.each([
  { index: "the FTS5 index", fts: true },
  { index: "the word columns (no FTS5)", fts: false },
])("SqliteRunStore on a file it may not write, searching $index", ({ fts }) => {
  it("finds the runs an older process wrote without their search words, by the words of their text now", async () => {
    const path = await recordedFile(fts);
    olderWrites(path, { runIds: ["older"], answerCurrent: "Rainy." });
    expect(pendingCount(path)).toBe(2);
    readOnly.add(path);
    const store = new SqliteRunStore({ path });
    try {
      expect(await found(store, "paris")).toEqual(["older"]);
      expect(await found(store, "weather")).toEqual(["current", "older"]);
      expect(await found(store, "pari weath")).toEqual(["older"]);
      // "current" was answered again: found by its new answer, not by the words its row still holds.
      expect(await found(store, "lisbon rainy")).toEqual(["current"]);
      expect(await found(store, "cloudy")).toEqual([]);
      expect(await found(store, "berlin")).toEqual([]);
      // The other filters and the cursor apply to the runs matched in memory as to the others.
      expect((await store.listRuns({ search: "weather", status: ["running"], sort: "createdAt", order: "desc", limit: 1 })).map((run) => run.runId)).toEqual(["older"]);
      const [first] = await store.listRuns({ search: "weather", sort: "createdAt", order: "asc", limit: 1 });
      expect((await store.listRuns({ search: "weather", sort: "createdAt", order: "asc", cursor: first!.cursor })).map((run) => run.runId)).toEqual(["older"]);
      expect((await store.listRuns()).map((run) => run.runId).sort()).toEqual(["current", "older"]);
      expect((await store.getRun("older"))?.status).toBe("running");
      // The store may indeed not write the file.
      await expect(store.deleteRun("older")).rejects.toThrow(/readonly/);
    } finally {
      await store.close();
      readOnly.delete(path);
    }
    // Nothing was written: a store that may write the file computes the words later.
    expect(pendingCount(path)).toBe(2);
  });

  it("finds the runs an older process writes while the store has the file open", async () => {
    const path = await recordedFile(fts);
    readOnly.add(path);
    const store = new SqliteRunStore({ path });
    try {
      expect(await found(store, "weather")).toEqual(["current"]);
      olderWrites(path, { runIds: ["older"], answerCurrent: "Rainy." });
      expect(await found(store, "paris")).toEqual(["older"]);
      expect(await found(store, "rainy")).toEqual(["current"]);
      expect(await found(store, "cloudy")).toEqual([]);
      olderWrites(path, { runIds: ["older-2"], at: 200 });
      expect(await found(store, "paris")).toEqual(["older", "older-2"]);
    } finally {
      await store.close();
      readOnly.delete(path);
    }
  });
});

describe("SqliteRunStore on a file it may not write", () => {
  it("finds marked runs among more than 1,000 hits (the listing walks the sort's index), in order and up to the limit", async () => {
    const path = await recordedFile(true);
    olderWrites(path, { runIds: Array.from({ length: 1100 }, (_, index) => `older-${String(index + 1).padStart(5, "0")}`) });
    withFile(path, (db) => db.prepare("UPDATE agentrx_runs SET input_words = 'weather in paris', words_pending = NULL WHERE run_id <= 'older-00600' AND run_id <> 'current'").run());
    expect(pendingCount(path)).toBe(500);
    readOnly.add(path);
    const store = new SqliteRunStore({ path });
    try {
      expect(await found(store, "paris", 3)).toEqual(["older-00001", "older-00002", "older-00003"]);
      const last = await store.listRuns({ search: "weather paris", sort: "createdAt", order: "desc", limit: 2 });
      expect(last.map((run) => run.runId)).toEqual(["older-01100", "older-01099"]);
      expect(await store.listRuns({ search: "paris", limit: 1000 })).toHaveLength(1000);
    } finally {
      await store.close();
      readOnly.delete(path);
    }
    expect(pendingCount(path)).toBe(500);
  });

  it("names node:sqlite's read-only errors as better-sqlite3 does (SQLITE_READONLY and its extended codes)", () => {
    expect(sqliteErrorCode({ code: "ERR_SQLITE_ERROR", errcode: 8 })).toBe("SQLITE_READONLY");
    expect(sqliteErrorCode({ code: "ERR_SQLITE_ERROR", errcode: 8 | (6 << 8) })).toBe("SQLITE_READONLY");
    expect(sqliteErrorCode({ code: "SQLITE_READONLY_DIRECTORY" })).toBe("SQLITE_READONLY_DIRECTORY");
  });
});
