import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { loadSqliteDriver } from "./sqlite-driver";
import { migrateSqlite } from "./sqlite-migrations";
import { SqliteRunStore } from "./sqlite-run-store";

const dir = mkdtempSync(join(tmpdir(), "agentrx-sqlite-older-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `store-${++files}.db`);

/**
 * What a process of schema version 5 (a release before the search words) writes, through its own
 * connection to the file: its INSERT names no words column, and its step's UPDATE sets the answer's
 * text alone.
 */
function olderWriter(path: string) {
  const db = new Database(path);
  const insert = db.prepare(`INSERT INTO agentrx_runs (run_id, thread_id, status, stop_reason, inputs, usage, error, checkpoint, metadata, created_at, updated_at, event_count, owner, lease_expires_at, epoch, fork_of_run_id, fork_of_iteration, input_text, answer_text, cost_usd)
    VALUES (@run_id, NULL, 'running', NULL, @inputs, NULL, NULL, NULL, NULL, @at, @at, 0, 'old', @at + 60000, 1, NULL, NULL, @input_text, '', 0) ON CONFLICT (run_id) DO NOTHING`);
  const answer = db.prepare("UPDATE agentrx_runs SET event_count = ?, answer_text = ?, lease_expires_at = ?, updated_at = ? WHERE run_id = ? AND owner = 'old'");
  const event = db.prepare("INSERT INTO agentrx_run_events (run_id, seq, type, at, data) VALUES (?, ?, 'output', ?, ?)");
  return {
    createRun: (runId: string, input: string, at: number) => insert.run({ run_id: runId, inputs: JSON.stringify({ input }), at, input_text: input }),
    answer: db.transaction((runId: string, seq: number, output: string, at: number) => {
      event.run(runId, seq, at, JSON.stringify({ type: "output", at, output }));
      answer.run(seq, output, at + 60_000, at, runId);
    }),
    raw: db,
    close: () => db.close(),
  };
}

const found = async (store: SqliteRunStore, search: string) => (await store.listRuns({ search, sort: "createdAt", order: "asc" })).map((run) => run.runId);

describe("SqliteRunStore and the writes of an older release's process", () => {
  it("finds the runs an older process writes into the file after this store opened it: their words are computed before a search", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "current", inputs: { input: "Weather in Lisbon?" }, status: "queued", at: 1 });
    const old = olderWriter(path);
    try {
      old.createRun("older", "Weather in Paris?", 2);
      expect(await found(store, "paris")).toEqual(["older"]);
      expect(await found(store, "weather")).toEqual(["current", "older"]);
      old.answer("older", 1, "Sunny and mild.", 3);
      expect(await found(store, "sunny mild")).toEqual(["older"]);
      expect(await found(store, "pari sunn")).toEqual(["older"]);
      expect(old.raw.prepare("SELECT input_words, answer_words, words_pending FROM agentrx_runs WHERE run_id = 'older'").get()).toEqual({
        input_words: "weather in paris",
        answer_words: "sunny and mild",
        words_pending: null,
      });
    } finally {
      old.close();
      await store.close();
    }
  });

  it("computes, when it opens the file, the words of the runs an older process wrote meanwhile", async () => {
    const path = freshPath();
    const first = new SqliteRunStore({ path });
    await first.getRun("x");
    await first.close();
    const old = olderWriter(path);
    old.createRun("older", "Bonjour tout le monde", 1);
    old.answer("older", 1, "Salut", 2);
    old.close();
    const store = new SqliteRunStore({ path });
    await store.getRun("older");
    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare("SELECT input_words, answer_words, words_pending FROM agentrx_runs WHERE run_id = 'older'").get()).toEqual({
        input_words: "bonjour tout le monde",
        answer_words: "salut",
        words_pending: null,
      });
    } finally {
      check.close();
      await store.close();
    }
  });

  it("computes the words of a run whose text has none once, then leaves it alone", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "current", inputs: { input: "?!" }, status: "queued", at: 1 });
    const old = olderWriter(path);
    try {
      old.createRun("older", "...", 2);
      const pending = old.raw.prepare("SELECT run_id FROM agentrx_runs WHERE words_pending IS NOT NULL ORDER BY run_id");
      expect(pending.all()).toEqual([{ run_id: "current" }, { run_id: "older" }]);
      expect(await found(store, "anything")).toEqual([]);
      expect(pending.all()).toEqual([]);
      expect(old.raw.prepare("SELECT run_id, input_words FROM agentrx_runs ORDER BY run_id").all()).toEqual([
        { run_id: "current", input_words: "" },
        { run_id: "older", input_words: "" },
      ]);
      // A later search, or a step of the run that leaves its text as it is, marks nothing again.
      expect(await found(store, "anything")).toEqual([]);
      old.raw.prepare("UPDATE agentrx_runs SET updated_at = 5, answer_text = answer_text WHERE run_id = 'older'").run();
      expect(pending.all()).toEqual([]);
    } finally {
      old.close();
      await store.close();
    }
  });

  it("leaves the runs this release writes unmarked: their words are written with their text", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "r", inputs: { input: "Weather in Paris?" }, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    for (let seq = 1; seq <= 3; seq++) {
      await store.write("r", { owner: "w", leaseMs: 60_000, epoch: 1, at: seq + 1, events: [{ seq, type: "step", at: seq + 1, data: { type: "step", iteration: seq } }] });
    }
    await store.write("r", { owner: "w", leaseMs: 60_000, epoch: 1, at: 10, events: [{ seq: 4, type: "output", at: 10, data: { type: "output", output: "Sunny." } }], update: { status: "finished", stopReason: "finish", release: true } });
    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare("SELECT input_words, answer_words, words_pending FROM agentrx_runs").get()).toEqual({ input_words: "weather in paris", answer_words: "sunny", words_pending: null });
    } finally {
      check.close();
      await store.close();
    }
  });

  it("migrates a file of schema version 6 to 7: the runs an older process wrote under version 6 are found", async () => {
    const path = freshPath();
    const open = await loadSqliteDriver("test", "better-sqlite3");
    const db = open(path, 1000);
    migrateSqlite(db, path, 100_000, 6);
    db.close();
    const versions = new Database(path, { readonly: true });
    expect(versions.prepare("SELECT max(version) AS version FROM agentrx_schema_migrations").get()).toEqual({ version: 6 });
    versions.close();
    // What this release wrote under version 6 (words and all), then what an older process wrote.
    const v6 = new Database(path);
    v6.prepare("INSERT INTO agentrx_runs (run_id, status, inputs, created_at, updated_at, owner, input_text, input_words, answer_text, answer_words) VALUES ('current', 'running', '{\"input\":\"Weather in Lisbon?\"}', 10000, 10000, 'old', 'Weather in Lisbon?', 'weather in lisbon', 'Cloudy.', 'cloudy')").run();
    v6.close();
    const old = olderWriter(path);
    old.createRun("older", "Weather in Paris?", 200_000);
    old.answer("older", 1, "Sunny and mild.", 200_001);
    // An older process answers again a run whose words were current: they are stale now, not empty.
    old.answer("current", 1, "Rainy.", 200_002);
    old.close();
    const store = new SqliteRunStore({ path });
    try {
      expect(await found(store, "paris sunny")).toEqual(["older"]);
      expect(await found(store, "lisbon rainy")).toEqual(["current"]);
      expect(await found(store, "cloudy")).toEqual([]);
      const check = new Database(path, { readonly: true });
      expect(check.prepare("SELECT version FROM agentrx_schema_migrations ORDER BY version").all()).toEqual([1, 2, 3, 4, 5, 6, 7].map((version) => ({ version })));
      check.close();
    } finally {
      await store.close();
    }
  });
});
