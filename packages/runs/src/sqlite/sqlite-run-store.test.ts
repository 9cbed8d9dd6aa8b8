import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidArgumentError } from "@agentrx/core";
import { RunLeaseLostError, RunStoreError } from "@agentrx/executors";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { appendInManyProcesses, runInAnotherProcess, runManyProcesses } from "../testing/another-process";
import { runStoreConformance } from "../testing/run-store-conformance";
import { SQLITE_MIGRATIONS } from "./sqlite-migrations";
import { SqliteRunStore } from "./sqlite-run-store";
import { childScript, REPO_ROOT } from "../../../../test/support/child-script";

const dir = mkdtempSync(join(tmpdir(), "agentrx-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const conformancePath = join(dir, "conformance", "runs.db");

runStoreConformance({
  name: "SqliteRunStore",
  create: async () => new SqliteRunStore({ path: conformancePath }),
  persistent: true,
  corrupt: async (runId, column) => {
    const db = new Database(conformancePath);
    try {
      if (column === "event") db.prepare("UPDATE agentrx_run_events SET data = '{not json' WHERE run_id = ? AND seq = 1").run(runId);
      else db.prepare(`UPDATE agentrx_runs SET ${column} = '{\"truncated\":' WHERE run_id = ?`).run(runId);
    } finally {
      db.close();
    }
  },
  corruptThreadMessage: async (threadId, seq) => {
    const db = new Database(conformancePath);
    try {
      db.prepare("UPDATE agentrx_thread_messages SET message = '{not json' WHERE thread_id = ? AND seq = ?").run(threadId, seq);
    } finally {
      db.close();
    }
  },
  inAnotherProcess: (request) => runInAnotherProcess({ kind: "sqlite", path: conformancePath }, request),
});

// The same store where the SQLite build has no FTS5: search reads the search words directly, and
// must find what the full-text index finds (the index is dropped, as a build without FTS5 never
// creates it).
const plainPath = join(dir, "no-fts", "runs.db");
let plainFile: Promise<void> | undefined;
runStoreConformance({
  name: "SqliteRunStore (without FTS5)",
  create: async () => {
    plainFile ??= (async () => {
      const store = new SqliteRunStore({ path: plainPath });
      await store.getRun("x");
      await store.close();
      const db = new Database(plainPath);
      db.exec("DROP TRIGGER agentrx_runs_fts_insert; DROP TRIGGER agentrx_runs_fts_delete; DROP TRIGGER agentrx_runs_fts_update; DROP TABLE agentrx_runs_fts;");
      db.close();
    })();
    await plainFile;
    return new SqliteRunStore({ path: plainPath });
  },
  persistent: true,
});

/** How many transactions the file's WAL holds (frames that end a commit, of the WAL's current salt). */
function walCommits(path: string): number {
  const wal = readFileSync(`${path}-wal`);
  const pageSize = wal.readUInt32BE(8);
  let commits = 0;
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
    if (wal.readUInt32BE(offset + 8) !== wal.readUInt32BE(16) || wal.readUInt32BE(offset + 12) !== wal.readUInt32BE(20)) break;
    if (wal.readUInt32BE(offset + 4) !== 0) commits++;
  }
  return commits;
}

let files = 0;
const freshPath = () => join(dir, `store-${++files}.db`);

describe("SqliteRunStore", () => {
  it("defaults to .agentrx/runs.db and opens nothing before the first call", async () => {
    const store = new SqliteRunStore();
    expect(store.path).toBe(resolve(".agentrx/runs.db"));
    await store.close();
    const nested = join(dir, "a", "b", "runs.db");
    const lazy = new SqliteRunStore({ path: nested });
    expect(existsSync(nested)).toBe(false);
    expect(await lazy.listRuns()).toEqual([]);
    expect(existsSync(nested)).toBe(true);
    await lazy.close();
  });

  it("creates the schema in WAL mode, once, with its migrations recorded", async () => {
    const path = freshPath();
    const first = new SqliteRunStore({ path });
    await first.getRun("x");
    await first.close();
    const second = new SqliteRunStore({ path });
    await second.getRun("x");
    await second.close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      const objects = db.prepare("SELECT type, name FROM sqlite_master WHERE name LIKE 'agentrx%' ORDER BY name").all();
      expect(objects).toEqual([
        { type: "table", name: "agentrx_run_events" },
        { type: "table", name: "agentrx_runs" },
        { type: "index", name: "agentrx_runs_cost_id" },
        { type: "index", name: "agentrx_runs_created_id" },
        { type: "table", name: "agentrx_runs_fts" },
        { type: "table", name: "agentrx_runs_fts_config" },
        { type: "table", name: "agentrx_runs_fts_data" },
        { type: "trigger", name: "agentrx_runs_fts_delete" },
        { type: "table", name: "agentrx_runs_fts_docsize" },
        { type: "table", name: "agentrx_runs_fts_idx" },
        { type: "trigger", name: "agentrx_runs_fts_insert" },
        { type: "trigger", name: "agentrx_runs_fts_update" },
        { type: "index", name: "agentrx_runs_status_created" },
        { type: "index", name: "agentrx_runs_thread_created" },
        { type: "index", name: "agentrx_runs_updated_id" },
        { type: "trigger", name: "agentrx_runs_words_insert" },
        { type: "index", name: "agentrx_runs_words_pending" },
        { type: "trigger", name: "agentrx_runs_words_update" },
        { type: "table", name: "agentrx_schema_migrations" },
        { type: "table", name: "agentrx_thread_messages" },
      ]);
      expect(db.prepare("SELECT version FROM agentrx_schema_migrations ORDER BY version").all()).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
    } finally {
      db.close();
    }
  });

  it("migrates a new file opened by several processes at once exactly once", { timeout: 60_000 }, async () => {
    const path = freshPath();
    const reports = await runManyProcesses({ kind: "sqlite", path }, 3);
    expect(new Set(reports.map((report) => report.pid)).size).toBe(3);
    const store = new SqliteRunStore({ path });
    expect((await store.listRuns()).map((run) => run.runId).sort()).toEqual(reports.map((report) => report.runId).sort());
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT version FROM agentrx_schema_migrations ORDER BY version").all()).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
    db.close();
  });

  it("upgrades a file of schema version 1 to the latest, keeping its runs (at epoch 0, shown without one until claimed)", async () => {
    const path = freshPath();
    const db = new Database(path);
    db.exec("CREATE TABLE agentrx_schema_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)");
    db.exec(SQLITE_MIGRATIONS[0]!.up);
    db.prepare("INSERT INTO agentrx_schema_migrations (version, applied_at) VALUES (1, 0)").run();
    db.prepare("INSERT INTO agentrx_runs (run_id, thread_id, status, inputs, created_at, updated_at) VALUES ('old', 't1', 'finished', '{\"input\":\"hi\"}', 1, 2)").run();
    db.close();
    const store = new SqliteRunStore({ path });
    const old = await store.getRun("old");
    expect(old).toMatchObject({ runId: "old", threadId: "t1", status: "finished", inputs: { input: "hi" } });
    expect(old?.epoch).toBeUndefined();
    expect(old?.forkOf).toBeUndefined();
    expect((await store.claimRun("old", { owner: "w", leaseMs: 1000, at: 3 })).epoch).toBe(1);
    expect(await store.appendThreadMessages("t1", [{ message: { type: "human", data: { content: "hi" } }, tokens: 5, at: 3 }])).toEqual([1]);
    await store.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT version FROM agentrx_schema_migrations ORDER BY version").all()).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
    check.close();
  });

  it("upgrades a file of schema version 3: old runs get previews, cost and search from their inputs, usage and output", async () => {
    const path = freshPath();
    const db = new Database(path);
    db.exec("CREATE TABLE agentrx_schema_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)");
    for (const migration of SQLITE_MIGRATIONS.slice(0, 3)) db.exec(migration.up);
    db.exec("INSERT INTO agentrx_schema_migrations (version, applied_at) VALUES (1, 0), (2, 0), (3, 0)");
    const insert = db.prepare("INSERT INTO agentrx_runs (run_id, status, inputs, usage, created_at, updated_at) VALUES (?, 'finished', ?, ?, ?, ?)");
    insert.run("old", '{"input":"Weather in Paris?"}', '{"input_tokens":1,"output_tokens":1,"total_tokens":2,"cost":{"input":0.5,"output":0.25,"total":0.75,"currency":"USD"}}', 1, 2);
    insert.run("broken", "{not json", null, 3, 4);
    db.prepare("INSERT INTO agentrx_run_events (run_id, seq, type, at, data) VALUES ('old', 1, 'output', 2, ?)").run('{"type":"output","at":2,"output":"Sunny and mild."}');
    db.close();
    const store = new SqliteRunStore({ path });
    expect(await store.getRun("old")).toMatchObject({ inputPreview: "Weather in Paris?", answerPreview: "Sunny and mild." });
    expect((await store.listRuns({ search: "sunn pari" })).map((run) => run.runId)).toEqual(["old"]);
    expect((await store.listRuns({ minCost: 0.5 })).map((run) => run.runId)).toEqual(["old"]);
    expect((await store.listRuns({ sort: "cost", order: "asc" })).map((run) => run.runId)).toEqual(["broken", "old"]);
    await store.close();
  });

  it("upgrades a file of schema version 5: its runs get search words, and the full-text index is made over them", async () => {
    const path = freshPath();
    const db = new Database(path);
    db.exec("CREATE TABLE agentrx_schema_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)");
    for (const migration of SQLITE_MIGRATIONS.slice(0, 5)) db.exec(migration.up);
    db.exec("INSERT INTO agentrx_schema_migrations (version, applied_at) VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)");
    // The index of versions 4 and 5: FTS5's own tokenizer over the text.
    db.exec(`CREATE VIRTUAL TABLE agentrx_runs_fts USING fts5(input_text, answer_text, content='agentrx_runs', content_rowid='rowid');
      CREATE TRIGGER agentrx_runs_fts_insert AFTER INSERT ON agentrx_runs BEGIN
        INSERT INTO agentrx_runs_fts (rowid, input_text, answer_text) VALUES (new.rowid, new.input_text, new.answer_text);
      END;`);
    const insert = db.prepare("INSERT INTO agentrx_runs (run_id, status, inputs, input_text, answer_text, created_at, updated_at) VALUES (?, 'finished', ?, ?, ?, ?, ?)");
    const messages = JSON.stringify({ messages: [{ role: "user", content: "first\nsecond" }] });
    insert.run("cyrillic", '{"input":"Йогурт и чай"}', "Йогурт и чай", "", 1, 1);
    insert.run("messages", messages, messages, "", 2, 2);
    insert.run("answered", '{"input":"question"}', "question", '{"text":"multi\\nline"}', 3, 3);
    insert.run("broken", "{not json", "", "", 4, 4);
    db.prepare("INSERT INTO agentrx_run_events (run_id, seq, type, at, data) VALUES ('answered', 1, 'output', 3, ?)").run('{"type":"output","at":3,"output":{"text":"multi\\nline"}}');
    db.close();
    const store = new SqliteRunStore({ path });
    const search = async (text: string) => (await store.listRuns({ search: text, sort: "createdAt", order: "asc" })).map((run) => run.runId);
    expect(await search("йогурт")).toEqual(["cyrillic"]);
    expect(await search("иогурт чай")).toEqual(["cyrillic"]);
    expect(await search("second")).toEqual(["messages"]);
    expect(await search("role")).toEqual([]);
    expect(await search("multi line")).toEqual(["answered"]);
    expect(await search("question")).toEqual(["answered"]);
    expect(await store.getRun("messages")).toMatchObject({ inputPreview: messages });
    // Runs recorded after the upgrade are indexed by the new triggers.
    await store.createRun({ runId: "new", inputs: { input: "Καλημέρα" }, status: "queued", at: 5 });
    expect(await search("καλημερα")).toEqual(["new"]);
    await store.deleteRun("cyrillic");
    expect(await search("чай")).toEqual([]);
    await store.close();
    const check = new Database(path, { readonly: true });
    try {
      expect((check.prepare("SELECT sql FROM sqlite_master WHERE name = 'agentrx_runs_fts'").get() as { sql: string }).sql).toMatch(/fts5\(input_words, answer_words, .*tokenize='ascii'\)/);
      expect(check.prepare("SELECT run_id, input_words, answer_words FROM agentrx_runs ORDER BY created_at").all()).toEqual([
        { run_id: "messages", input_words: "user first second", answer_words: "" },
        { run_id: "answered", input_words: "question", answer_words: "multi line" },
        { run_id: "broken", input_words: "", answer_words: "" },
        { run_id: "new", input_words: "καλημερα", answer_words: "" },
      ]);
    } finally {
      check.close();
    }
  });

  it("re-indexes a run's text for search only when it changes, not at every step's write", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "r", inputs: { input: "Weather in Paris?" }, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    const index = new Database(path, { readonly: true });
    const indexState = () => index.prepare("SELECT count(*) AS blocks, sum(length(block)) AS bytes FROM agentrx_runs_fts_data").get();
    try {
      const before = indexState();
      for (let seq = 1; seq <= 10; seq++) {
        await store.write("r", { owner: "w", leaseMs: 60_000, epoch: 1, at: seq + 1, events: [{ seq, type: "step", at: seq + 1, data: { type: "step", iteration: seq } }], update: { usage: { input_tokens: seq, output_tokens: 1, total_tokens: seq + 1 } } });
      }
      expect(indexState()).toEqual(before);
      await store.write("r", { owner: "w", leaseMs: 60_000, epoch: 1, at: 20, events: [{ seq: 11, type: "output", at: 20, data: { type: "output", output: "Sunny and mild." } }], update: { status: "finished", stopReason: "finish", release: true } });
      expect(indexState()).not.toEqual(before);
      expect((await store.listRuns({ search: "sunny paris" })).map((run) => run.runId)).toEqual(["r"]);
    } finally {
      index.close();
      await store.close();
    }
  });

  it("commits the writes of several runs made in one turn together, refusing only the one whose lease is lost", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    for (const runId of ["a", "b", "c", "d"]) await store.createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    const step = (runId: string, owner = "w") =>
      store.write(runId, { owner, leaseMs: 60_000, epoch: 1, at: 2, events: [{ seq: 1, type: "step", at: 2, data: { type: "step", runId } }], update: { usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, cost: { input: 0.2, output: 0.3, total: 0.5, currency: "USD" } } } });
    await new Promise((resolve) => setImmediate(resolve)); // a turn of its own for what follows
    const before = walCommits(path);
    try {
      // The first is applied at once; the three made in the same turn wait for its end, and commit as one.
      const outcomes = await Promise.allSettled([step("a"), step("b"), step("c", "thief"), step("d")]);
      expect(walCommits(path) - before).toBe(2);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
      expect((outcomes[1] as PromiseFulfilledResult<unknown>).value).toEqual({ inboxSeq: 0 });
      const refused = (outcomes[2] as PromiseRejectedResult).reason as RunLeaseLostError;
      expect(RunLeaseLostError.isInstance(refused)).toBe(true);
      expect(refused).toMatchObject({ runId: "c", owner: "thief" });
      for (const runId of ["a", "b", "d"]) {
        expect(await store.getRun(runId)).toMatchObject({ eventCount: 1, usage: { cost: { total: 0.5 } } });
        expect((await store.readEvents(runId)).map((event) => event.data)).toEqual([{ type: "step", runId }]);
      }
      expect(await store.getRun("c")).toMatchObject({ eventCount: 0 });
      expect((await store.listRuns({ sort: "cost", limit: 3 })).map((run) => run.runId).sort()).toEqual(["a", "b", "d"]);
    } finally {
      await store.close();
    }
  });

  it("applies a run's next write in the same turn at once when no other run's waits (nothing to share a commit with)", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "r", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    const step = (seq: number) => store.write("r", { owner: "w", leaseMs: 60_000, epoch: 1, at: 2, events: [{ seq, type: "step", at: 2, data: {} }] });
    await new Promise((resolve) => setImmediate(resolve));
    await step(1); // the first of this turn, applied at once; what follows is in the same turn
    const before = walCommits(path);
    const second = step(2);
    expect(walCommits(path) - before).toBe(1); // committed before the call returned
    await second;
    await store.close();
  });

  it("creates the runs asked for in one turn in one commit, refusing only an id that exists", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "taken", inputs: {}, status: "queued", at: 1 });
    await new Promise((resolve) => setImmediate(resolve)); // a turn of its own for what follows
    const before = walCommits(path);
    const create = (runId: string) => store.createRun({ runId, inputs: { input: `find ${runId}` }, status: "running", owner: "w", leaseMs: 60_000, at: 2 });
    const outcomes = await Promise.allSettled([create("a"), create("b"), create("taken"), create("c")]);
    expect(walCommits(path) - before).toBe(2);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(((outcomes[2] as PromiseRejectedResult).reason as Error).message).toMatch(/"taken" exists already/);
    expect((await store.listRuns({ search: "find" })).map((run) => run.runId).sort()).toEqual(["a", "b", "c"]);
    expect(await store.getRun("taken")).toMatchObject({ status: "queued" });
    await store.close();
  });

  it("applies the writes made before close() that were waiting for the end of the turn", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    for (const runId of ["a", "b"]) await store.createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    const step = (runId: string) => store.write(runId, { owner: "w", leaseMs: 60_000, at: 2, events: [{ seq: 1, type: "step", at: 2, data: {} }] });
    const written = Promise.all([step("a"), step("b")]);
    await store.close();
    await written;
    const reopened = new SqliteRunStore({ path });
    expect((await reopened.getRun("b"))?.eventCount).toBe(1);
    await reopened.close();
  });

  it("lists a search with many hits (walking the sort's index) in the same order and pages as with few", async () => {
    const store = new SqliteRunStore({ path: freshPath() });
    const at = 1_000_000;
    for (let i = 0; i < 1100; i++) {
      await store.createRun({ runId: `r${String(i).padStart(4, "0")}`, threadId: i % 2 === 0 ? "even" : "odd", inputs: { input: i % 550 === 0 ? "common rare" : "common" }, status: "queued", at: at + (i % 300) });
    }
    const byCreation = (await store.listRuns({ search: "common", limit: 5 })).map((run) => run.runId);
    expect(byCreation).toEqual(["r0899", "r0599", "r0299", "r0898", "r0598"]);
    const page = await store.listRuns({ search: "common", limit: 3, order: "asc", cursor: (await store.listRuns({ search: "common", limit: 3, order: "asc" })).at(-1)!.cursor! });
    expect(page.map((run) => run.runId)).toEqual(["r0900", "r0001", "r0301"]);
    expect((await store.listRuns({ search: "common", threadId: "odd", limit: 2 })).map((run) => run.runId)).toEqual(["r0899", "r0599"]);
    expect((await store.listRuns({ search: "rare common" })).map((run) => run.runId)).toEqual(["r0550", "r0000"]);
    await store.close();
  });

  it("assigns every seq of a thread once when several processes append to it at once", { timeout: 60_000 }, async () => {
    const path = freshPath();
    const reports = await appendInManyProcesses({ kind: "sqlite", path }, "shared", 3, 15, 2);
    const store = new SqliteRunStore({ path });
    const messages = await store.readThreadMessages("shared");
    await store.close();
    expect(messages.map((message) => message.seq)).toEqual(Array.from({ length: 90 }, (_, index) => index + 1));
    for (const report of reports) {
      for (const [append, seqs] of report.seqs.entries()) {
        expect(seqs[1]).toBe(seqs[0]! + 1);
        expect(seqs.map((seq) => messages[seq - 1]?.message)).toEqual([{ pid: report.pid, append, index: 0 }, { pid: report.pid, append, index: 1 }]);
      }
    }
  });

  it("adds its tables to an SQLite file that has other tables", async () => {
    const path = freshPath();
    const db = new Database(path);
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('kept')");
    db.close();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1 });
    expect((await store.getRun("r1"))?.status).toBe("queued");
    await store.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT body FROM notes").all()).toEqual([{ body: "kept" }]);
    check.close();
  });

  it("refuses a URL for a path (a PostgreSQL one, SQLite's file: form), making no folder of it", () => {
    expect(() => new SqliteRunStore({ path: "postgres://u@127.0.0.1/test" })).toThrow(/not a URL \(postgres:\).*use PostgresRunStore\(\{ connectionString \}\)/);
    expect(() => new SqliteRunStore({ path: "file:runs.db?mode=ro" })).toThrow(/not a URL \(file:\).*without file: and its query/);
    expect(() => new SqliteRunStore({ path: "file:///tmp/runs.db" })).toThrow(/not a URL/);
    // A Windows drive letter, or a colon later in a path, is a path.
    expect(new SqliteRunStore({ path: join(tmpdir(), "a:b", "runs.db") }).path).toContain("a:b");
  });

  it("does not repeat the password of a URL given as path, as PostgresRunStore and agentrx --db do not", () => {
    let caught: unknown;
    try {
      new SqliteRunStore({ path: "postgres://u:secret@h/db" });
    } catch (error) {
      caught = error;
    }
    expect(InvalidArgumentError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toBe('SqliteRunStore: path must be a file path or ":memory:", not a URL (postgres:), got "postgres://u:***@h/db". For PostgreSQL, use PostgresRunStore({ connectionString }).');
    expect(caught).toMatchObject({ argument: "path", value: "postgres://u:***@h/db" });
  });

  it("refuses a file that is not an SQLite database, naming it", async () => {
    const path = freshPath();
    writeFileSync(path, "this is a text file, not a database\n".repeat(200));
    const store = new SqliteRunStore({ path });
    const error = await rejectionOf(store.getRun("r1"));
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/not an SQLite database/);
    expect(error.message).toMatch(/run store/);
    await store.close();
  });

  it("refuses an SQLite file whose agentrx tables are not a run store's, or come from a newer version", async () => {
    const foreign = freshPath();
    const db = new Database(foreign);
    db.exec("CREATE TABLE agentrx_runs (something_else TEXT)");
    db.close();
    const store = new SqliteRunStore({ path: foreign });
    expect((await rejectionOf(store.listRuns())).message).toMatch(/not an AgentRx run store/);
    await store.close();

    const newer = freshPath();
    const seeded = new SqliteRunStore({ path: newer });
    await seeded.listRuns();
    await seeded.close();
    const raw = new Database(newer);
    raw.prepare("INSERT INTO agentrx_schema_migrations (version, applied_at) VALUES (99, 0)").run();
    raw.close();
    const later = new SqliteRunStore({ path: newer });
    expect((await rejectionOf(later.listRuns())).message).toMatch(/schema version 99, newer/);
    await later.close();
  });

  it("refuses a path whose folder cannot be created, naming it and why", async () => {
    const file = freshPath();
    writeFileSync(file, "a file, not a folder\n");
    const store = new SqliteRunStore({ path: join(file, "sub", "runs.db") });
    const error = await rejectionOf(store.listRuns());
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ operation: "open" });
    expect(error.message).toContain(join(file, "sub", "runs.db"));
    expect(error.message).toContain(`${file} exists and is not a folder`);
    await store.close();
  });

  // Node's `mkdirSync(dir, { recursive: true })` spins forever on such a path (mkdir fails with
  // ENOENT though the parent exists), so the store is opened in a child process that is killed
  // after 15 s rather than in this one.
  it.skipIf(!existsSync("/proc/self"))("fails at once, naming the folder, where a folder cannot be made under /proc", { timeout: 60_000 }, async () => {
    const main = await childScript(fileURLToPath(new URL("../testing/another-process-main.ts", import.meta.url)));
    const path = "/proc/nope/x.db";
    const job = JSON.stringify({ mode: "create", target: { kind: "sqlite", path } });
    const started = Date.now();
    const { error, stderr } = await new Promise<{ error: (Error & { killed?: boolean }) | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [main, job], { cwd: REPO_ROOT, timeout: 15_000 }, (error, _stdout, stderr) => resolve({ error, stderr }));
    });
    expect(error, "the child should fail").not.toBeNull();
    expect(error?.killed, `the store hung for ${Date.now() - started} ms on ${path}`).toBe(false);
    expect(stderr).toContain("RunStoreError");
    expect(stderr).toContain(`cannot create the folder /proc/nope for ${path}`);
    expect(stderr).toMatch(/\/proc does not allow new folders \(ENOENT/);
  });

  it("keeps runs in memory with \":memory:\"", async () => {
    const store = new SqliteRunStore({ path: ":memory:" });
    await store.createRun({ runId: "m1", inputs: { a: 1 }, status: "queued", at: 5 });
    expect((await store.getRun("m1"))?.inputs).toEqual({ a: 1 });
    await store.close();
  });

  it("gives up after busyTimeoutMs when another connection holds the write lock", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path, busyTimeoutMs: 300 });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 1000, at: 1 });
    const blocker = new Database(path);
    blocker.exec("BEGIN IMMEDIATE");
    try {
      const started = Date.now();
      const error = await rejectionOf(store.write("r1", { owner: "w", leaseMs: 1000, events: [{ seq: 1, type: "start", at: 2, data: {} }], at: 2 }));
      expect(Date.now() - started).toBeGreaterThanOrEqual(280);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ operation: "write", runId: "r1" });
      expect(error.message).toMatch(/SQLITE_BUSY/);
      expect(error.message).toMatch(/busyTimeoutMs/);
      expect(error.reason).toBe("timeout");
    } finally {
      blocker.exec("ROLLBACK");
      blocker.close();
    }
    await store.write("r1", { owner: "w", leaseMs: 1000, events: [{ seq: 1, type: "start", at: 3, data: {} }], at: 3 });
    expect((await store.getRun("r1"))?.eventCount).toBe(1);
    await store.close();
  });

  it("waits for another connection's write lock without blocking the event loop, then writes", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path, busyTimeoutMs: 5000 });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    const blocker = new Database(path);
    blocker.exec("BEGIN EXCLUSIVE");
    // Timers due while the store waits must fire before its write returns: a store that blocked
    // the thread (SQLite's own busy wait) would run them only afterwards. (The lock itself is let
    // go by a timer of this process, which could not fire either.)
    const fired: number[] = [];
    for (const delay of [10, 30, 60]) setTimeout(() => fired.push(delay), delay);
    try {
      setTimeout(() => blocker.exec("ROLLBACK"), 600);
      const started = performance.now();
      const written = store.write("r1", { owner: "w", leaseMs: 60_000, events: [{ seq: 1, type: "start", at: 2, data: {} }], at: 2 }).then(() => [...fired]);
      const firedBeforeWrite = await written;
      expect(performance.now() - started).toBeGreaterThanOrEqual(550);
      expect(firedBeforeWrite).toEqual([10, 30, 60]);
    } finally {
      blocker.close();
    }
    expect((await store.getRun("r1"))?.eventCount).toBe(1);
    await store.close();
  });

  it("waits for a write lock another process holds, without blocking the event loop", { timeout: 30_000 }, async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    // The other process takes the write lock, says so, and lets go 700 ms later.
    const script = `const db = new (require("better-sqlite3"))(process.argv[1]); db.exec("BEGIN EXCLUSIVE"); process.stdout.write("locked\\n"); setTimeout(() => { db.exec("ROLLBACK"); db.close(); }, 700);`;
    const child = spawn(process.execPath, ["-e", script, path], { cwd: resolve(__dirname, "../../../.."), stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (data: Buffer) => data.toString().includes("locked") && resolve());
      child.on("exit", (code) => reject(new Error(`the locking process exited (${code}) before it locked`)));
    });
    const fired: number[] = [];
    for (const delay of [10, 30, 60]) setTimeout(() => fired.push(delay), delay);
    try {
      const started = performance.now();
      const firedBeforeWrite = await store.write("r1", { owner: "w", leaseMs: 60_000, events: [{ seq: 1, type: "start", at: 2, data: {} }], at: 2 }).then(() => [...fired]);
      expect(performance.now() - started).toBeGreaterThan(300);
      // The timers due while the store waited fired before its write returned: the thread was free.
      expect(firedBeforeWrite).toEqual([10, 30, 60]);
    } finally {
      await exited;
    }
    expect((await store.getRun("r1"))?.eventCount).toBe(1);
    await store.close();
  });

  it("fails with reason \"gone\" once its file is deleted, rather than writing into the unlinked file", async () => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    const error = await rejectionOf(store.write("r1", { owner: "w", leaseMs: 60_000, events: [{ seq: 1, type: "start", at: 2, data: {} }], at: 2 }));
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: "gone", operation: "write", runId: "r1" });
    expect(error.message).toContain(`${path} was deleted`);
    // Every later change fails the same way; the path stays free for a new store.
    expect(await rejectionOf(store.createRun({ runId: "r2", inputs: {}, status: "queued", at: 3 }))).toMatchObject({ reason: "gone" });
    expect(existsSync(path)).toBe(false);
    await store.close();
    const fresh = new SqliteRunStore({ path });
    expect(await fresh.getRun("r1")).toBeUndefined();
    await fresh.close();
  });

  it("fails with reason \"gone\" when its file is replaced by another", async () => {
    const path = freshPath();
    const other = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1 });
    const replacement = new SqliteRunStore({ path: other });
    await replacement.createRun({ runId: "from-other", inputs: {}, status: "queued", at: 1 });
    await replacement.close();
    renameSync(other, path);
    const error = await rejectionOf(store.claimRun("r1", { owner: "w", leaseMs: 1000, at: 2 }));
    expect(error).toMatchObject({ reason: "gone", operation: "claimRun" });
    expect(error.message).toMatch(/replaced by another file/);
    await store.close();
  });

  it("validates its options", () => {
    for (const [options, argument] of [
      [{ path: "" }, "path"],
      [{ busyTimeoutMs: -1 }, "busyTimeoutMs"],
      [{ busyTimeoutMs: 1.5 }, "busyTimeoutMs"],
    ] as const) {
      let caught: unknown;
      try {
        new SqliteRunStore(options);
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught)).toBe(true);
      expect(caught).toMatchObject({ argument });
    }
  });
});

describe("SqliteRunStore: a damaged number in a run's row", () => {
  it.each([
    ["created_at", "'yesterday'"],
    ["updated_at", "'soon'"],
    ["event_count", "2.5"],
    ["lease_expires_at", "'later'"],
    ["epoch", "'one'"],
    ["fork_of_iteration", "-1"],
    ["cost_usd", "'free'"],
  ])("%s = %s: listed with `error` and numbers in its times, refused by getRun with reason \"corrupt\"", async (column, value) => {
    const path = freshPath();
    const store = new SqliteRunStore({ path });
    await store.createRun({ runId: "healthy", inputs: {}, status: "queued", at: 5 });
    await store.createRun({ runId: "damaged", inputs: { input: "hi" }, status: "running", owner: "w", leaseMs: 60_000, forkOf: { runId: "healthy", iteration: 0 }, at: 7 });
    await store.close();
    const db = new Database(path);
    db.prepare(`UPDATE agentrx_runs SET ${column} = ${value} WHERE run_id = 'damaged'`).run();
    db.close();
    const reopened = new SqliteRunStore({ path });
    try {
      const error = await rejectionOf(reopened.getRun("damaged"));
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ reason: "corrupt", operation: "getRun", runId: "damaged" });
      expect(error.message).toContain(`its ${column}`);
      const listed = await reopened.listRuns();
      const damaged = listed.find((run) => run.runId === "damaged");
      expect(damaged?.error).toMatch(new RegExp(`^Corrupt record: its ${column}`));
      for (const key of ["createdAt", "updatedAt", "eventCount"] as const) expect(Number.isSafeInteger(damaged?.[key]), key).toBe(true);
      if (damaged?.leaseExpiresAt !== undefined) expect(Number.isSafeInteger(damaged.leaseExpiresAt)).toBe(true);
      if (damaged?.epoch !== undefined) expect(Number.isSafeInteger(damaged.epoch)).toBe(true);
      expect(listed.find((run) => run.runId === "healthy")?.error).toBeUndefined();
    } finally {
      await reopened.close();
    }
  });
});
