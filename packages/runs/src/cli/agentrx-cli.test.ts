// The `agentrx` command line against recorded runs in a temporary SQLite file and in a PostgreSQL
// schema of its own: run as a process (from its sources, through tsx) for the main paths, and
// in-process (`runCli`, the same code without the process start) for the many variants.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RunInfo, RunStore, StoredRunEvent } from "@agentrx/executors";
import Database from "better-sqlite3";
import { lastValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/index";
import { PostgresRunStore } from "../postgres/index";
import { replayRun } from "../replay/index";
import { SqliteRunStore } from "../sqlite/index";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { recordTripRun, writeDamagedRun, writeSyntheticRun } from "../../../viewer/src/trace/trace-test-fixtures";
import type { CliIo } from "./cli-io";
import { showCommand } from "./show-command";
import { traceCommand } from "./trace-command";
import { childScript } from "../../../../test/support/child-script";
import { agentrxIn, type CliResult } from "./cli-test-helpers";

const root = resolve(__dirname, "../../../..");
// The CLI bundled from its sources, run as `node <bundle> ...` (a tsx boot per call costs seconds).
const CLI = await childScript(join(root, "packages/runs/src/cli/main.ts"));
const dir = mkdtempSync(join(tmpdir(), "agentrx-cli-"));
const db = join(dir, "runs.db");

type Result = CliResult;

function agentrx(args: string[], env: Record<string, string> = {}): Promise<Result> {
  const { DATABASE_URL: _url, AGENTRX_RUNS_DB: _db, FORCE_COLOR: _force, ...rest } = process.env;
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: root, env: { ...rest, NO_COLOR: "1", ...env }, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `agentrx args` in this process. */
function agentrxHere(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return agentrxIn(root, args, { env });
}

/** A failure as it should be: one line on stderr, no stack trace, a non-zero exit. */
function expectOneLineError(result: Result, code: number, pattern: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stderr.endsWith("\n")).toBe(true);
  expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(/^agentrx: /);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr.trimEnd()).toMatch(pattern);
}

beforeAll(async () => {
  const store = new SqliteRunStore({ path: db });
  await recordTripRun(store, { scale: 0.02 });
  await writeSyntheticRun(store, { runId: "synthetic-done", iterations: 2, toolsPerIteration: 2 });
  await writeSyntheticRun(store, { runId: "synthetic-live", iterations: 1, toolsPerIteration: 1, running: true, start: Date.now() + 60_000 });
  await store.close();
  const other = new Database(join(dir, "other.db"));
  other.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)");
  other.close();
  writeFileSync(join(dir, "notes.txt"), "not a database\n".repeat(100));
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentrx on an SQLite file", () => {
  it("lists the runs newest first, as a table and as JSON, filtered by thread, status and limit", async () => {
    const [table, all, thread, running, limited] = await Promise.all([
      agentrx(["runs", "--db", db]),
      agentrxHere(["runs", "--db", db, "--json"]),
      agentrxHere(["runs", "--db", db, "--json", "--thread", "support-42"]),
      agentrxHere(["runs", "--db", db, "--json", "--status", "running,failed"]),
      agentrxHere(["runs", "--db", db, "--json", "--limit", "1"]),
    ]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^RUN\s+THREAD\s+STATUS\s+STOP\s+TURNS\s+TOKENS\s+COST\s+DURATION\s+STARTED\s+INPUT$/);
    expect(lines.slice(1, 4).map((line) => line.split(/\s+/)[0])).toEqual(["synthetic-live", "trip-1", "synthetic-done"]);
    expect(lines[2]).toMatch(/^trip-1\s+support-42\s+finished\s+finish\s+3\s+\d+\s+-\s+\S+ m?s\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+\S.*$/);
    expect(lines[4]).toMatch(/^3 runs in SQLite .*runs\.db\. See one: agentrx show <runId>/);
    const ids = (result: Result) => (JSON.parse(result.stdout) as RunInfo[]).map((run) => run.runId);
    expect(ids(all)).toEqual(["synthetic-live", "trip-1", "synthetic-done"]);
    expect(ids(thread)).toEqual(["trip-1"]);
    expect(ids(running)).toEqual(["synthetic-live"]);
    expect(ids(limited)).toEqual(["synthetic-live"]);
    expect((JSON.parse(all.stdout) as RunInfo[])[1]).toMatchObject({ status: "finished", stopReason: "finish", threadId: "support-42", checkpoint: { iteration: 3 } });
  });

  it("shows a run's trace in the terminal, or its record as JSON", async () => {
    const [text, json, live] = await Promise.all([agentrx(["show", "trip-1", "--db", db]), agentrxHere(["show", "trip-1", "--db", db, "--json"]), agentrxHere(["show", "synthetic-live", "--db", db])]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Run trip-1 · finished \(finish\) · \d+ tokens · .* · 3 turns · thread support-42 · started /);
    expect(text.stdout).toMatch(/^action {2}search_flights \{"from":"Paris","to":"Nice","date":"2026-06-12"\}$/m);
    expect(text.stdout).toMatch(/^step {4}find_hotels \(\d+ ms\) Nice: Hôtel du Port/m);
    expect(text.stdout).toMatch(/^answer {2}The cheapest flight is AF1680 .* \(finish\)$/m);
    const record = JSON.parse(json.stdout) as { run: RunInfo; events: { seq: number; type: string }[] };
    expect(record.run.runId).toBe("trip-1");
    expect(record.events.map((event) => event.seq)).toEqual(Array.from({ length: record.run.eventCount }, (_, index) => index + 1));
    expect(record.events.filter((event) => event.type === "step")).toHaveLength(4);
    expect(live.stdout).toMatch(/\(running; the record ends here for now\)\n$/);
  });

  it("writes a run's trace page, one self-contained HTML file", async () => {
    const out = join(dir, "trip.html");
    const result = await agentrx(["trace", "trip-1", "--db", db, "-o", out]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Wrote .*trip\.html \(\d+ KB\): the trace of run trip-1\. Open it in a browser\.\n$/);
    const html = readFileSync(out, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<script type="application/json" id="agentrx-data">{"run":{"runId":"trip-1"');
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i); // nothing is fetched
    expect(html).toMatch(/connect-src 'none'/);
  });

  it("finds the store through AGENTRX_RUNS_DB, and ignores a DATABASE_URL that is not postgres://", async () => {
    const result = await agentrxHere(["runs", "--json", "--limit", "1"], { AGENTRX_RUNS_DB: db, DATABASE_URL: "file:./dev.db" });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(1);
  });

  it("answers bad input with one line and a non-zero exit, never a stack trace", async () => {
    const cases: [string[], number, RegExp][] = [
      [["show", "no-such-run", "--db", db], 1, /^agentrx: no run "no-such-run" in SQLite .*runs\.db; list the runs with: agentrx runs$/],
      [["trace", "no-such-run", "--db", db], 1, /no run "no-such-run"/],
      [["runs", "--db", join(dir, "missing.db")], 1, /^agentrx: no run store at .*missing\.db: record a run first \(an executor with `store: new SqliteRunStore\(\)`/],
      [["runs", "--db", join(dir, "notes.txt")], 1, /notes\.txt is not an SQLite database, so not an AgentRx run store/],
      [["runs", "--db", join(dir, "other.db")], 1, /other\.db is an SQLite database without AgentRx runs \(no agentrx_runs table\)/],
      [["runs", "--db", dir], 1, /is a directory, not an SQLite run store/],
      [["runs", "--db", "postgres://agentrx:secret@127.0.0.1:1/nowhere"], 1, /^agentrx: cannot reach the database at 127\.0\.0\.1:1\/nowhere \(ECONNREFUSED\)\.$/],
      [["runs", "--db", "postgres://127.0.0.1/app?schema=a", "--schema", "b"], 2, /--schema b and the URL's \?schema=a differ/],
      [["runs", "--db", db, "--schema", "agentrx"], 2, /--schema is for a PostgreSQL store/],
      [["frobnicate"], 2, /^agentrx: unknown command "frobnicate": use runs, show, diff, trace or ui \(see agentrx --help\)$/],
      [["runs", "--frob"], 2, /^agentrx: unknown option --frob \(see agentrx --help\)$/],
      [["show", "-x9f", "--db", db], 2, /^agentrx: unknown option -x \(a run id that starts with "-" goes after --, e\.g\. agentrx show -- -x9f\) \(see agentrx --help\)$/],
      [["runs", "--db"], 2, /^agentrx: --db needs a value/],
      [["show", "trip-1", "--port", "80", "--db", db], 2, /agentrx show does not take --port/],
      [["show", "trip-1", "extra", "--db", db], 2, /unexpected argument "extra" for agentrx show/],
      [["runs", "--status", "done"], 2, /--status "done" is not a run status/],
      [["runs", "--limit", "0"], 2, /--limit must be a whole number from 1 to 10000, got "0"/],
      [["ui", "--port", "http"], 2, /--port must be a whole number from 0 to 65535/],
      [["show"], 2, /agentrx show needs a run id/],
      // Named as the flag the user typed, and a usage mistake is found before the store is opened.
      [["runs", "--db", db, "--thread", ""], 2, /^agentrx: --thread needs a thread id \(see agentrx --help\)$/],
      [["runs", "--db", join(dir, "missing.db"), "--sort", "size"], 2, /^agentrx: --sort "size" is not a sort; use created, updated or cost/],
      [["runs", "--db", ""], 2, /^agentrx: --db needs a file path or a postgres:\/\/ URL \(see agentrx --help\)$/],
      [["runs", "--db", db, "--cursor", "zzz"], 2, /^agentrx: --cursor "zzz" is not a cursor agentrx runs printed for this --sort and --order/],
      [["runs", "--db", db, "--since", "2026-11-25", "--before", "2026-11-24"], 2, /^agentrx: --since 2026-11-25 is not before --before 2026-11-24: no run can match/],
      [["runs", "--db", db, "--min-cost", "0.5", "--max-cost", "0.1"], 2, /^agentrx: --min-cost 0\.5 is above --max-cost 0\.1: no run can match/],
    ];
    // Three as processes (what a user sees, stack traces included), the rest in this process.
    const spawned = new Set([0, 3, 10]);
    const results = await Promise.all(cases.map(([args], index) => (spawned.has(index) ? agentrx(args) : agentrxHere(args))));
    results.forEach((result, index) => {
      const [, code, pattern] = cases[index] as [string[], number, RegExp];
      expectOneLineError(result, code, pattern);
    });
    expect(results[6]?.stderr).not.toContain("secret");
  });

  it("prints its usage with --help", async () => {
    const result = await agentrxHere(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("agentrx runs [filters] [--sort S] [--limit N] [--json]");
    expect(result.stdout).toContain("agentrx diff <runA> <runB> [--json | --html diff.html]");
    expect(result.stdout).toContain("--db <file | postgres://...>");
    expect(result.stdout).toContain("migrates an older store to this release's schema");
  });
});

/** The data of a page's embedded events. */
function pageEvents(html: string): { seq: number; type: string; name?: string; error?: string }[] {
  const json = /<script type="application\/json" id="agentrx-data">(.*?)<\/script>/s.exec(html)?.[1] ?? "{}";
  return (JSON.parse(json) as { events: { seq: number; type: string; name?: string; error?: string }[] }).events;
}

// A synthetic run (2 turns of 2 tool calls): 1 start, 2 usage, 3 model_call, 4-5 actions, 6-7 steps,
// 8 usage, 9 model_call, 10-11 actions, 12-13 steps, 14 usage, 15 model_call, 16 output. Damaging
// action 4 also leaves step 6 (its result) without an action to decode against.
describe("agentrx on a damaged record", () => {
  it("shows and traces a run whose SQLite row of event 4 is not JSON: the rest, each unreadable event named, exit 0", async () => {
    const damaged = join(dir, "damaged.db");
    const store = new SqliteRunStore({ path: damaged });
    await writeSyntheticRun(store, { runId: "damaged", iterations: 2, toolsPerIteration: 2 });
    await store.close();
    const raw = new Database(damaged);
    raw.prepare("UPDATE agentrx_run_events SET data = '{\"type\":\"action\",' WHERE run_id = 'damaged' AND seq = 4").run();
    raw.close();

    const out = join(dir, "damaged.html");
    const [show, json, trace] = await Promise.all([
      agentrx(["show", "damaged", "--db", damaged]),
      agentrxHere(["show", "damaged", "--db", damaged, "--json"]),
      agentrxHere(["trace", "damaged", "--db", damaged, "-o", out]),
    ]);
    expect(show.code).toBe(0);
    const lines = show.stdout.split("\n");
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    expect(lines[at(/^unreadable event 4: /)]).toMatch(/^unreadable event 4: its data is not valid JSON \(.+\)$/);
    expect(lines[at(/^unreadable event 6: /)]).toBe("unreadable event 6: it cannot be decoded (step 6 refers to action 0 of iteration 0, which is not recorded)");
    // Around them, the run as recorded: action 5 and its step 7, the second turn, the answer.
    expect(at(/^action {2}lookup \{"q":"item 0\.1"\}$/)).toBeGreaterThan(at(/^unreadable event 4: /));
    expect(at(/^step {4}lookup \(60 ms\) result 0\.1 x+$/)).toBeGreaterThan(at(/^unreadable event 6: /));
    expect(lines.filter((line) => /^step {4}lookup /.test(line))).toHaveLength(3);
    expect(show.stdout).toMatch(/^answer {2}done \(finish\)$/m);
    expect(show.stderr).toBe('agentrx: warning: 2 events of run "damaged" could not be read (4, 6); the rest is shown, each marked "unreadable event" in its place\n');

    expect(json.code).toBe(0);
    const record = JSON.parse(json.stdout) as { events: StoredRunEvent[]; unreadable: { seq: number; error: string }[] };
    expect(record.events.map((event) => event.seq)).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    // Step 6 was read, but refers to the unreadable action: listed too (its data stays in `events`), as the text marks it.
    expect(record.unreadable).toEqual([
      { seq: 4, error: expect.stringMatching(/^its data is not valid JSON/) },
      { seq: 6, error: "it cannot be decoded (step 6 refers to action 0 of iteration 0, which is not recorded)" },
    ]);
    expect(json.stderr).toMatch(/^agentrx: warning: 2 events of run "damaged" could not be read \(4, 6\); the rest is shown, the others are listed under "unreadable"\n$/);

    expect(trace.code).toBe(0);
    expect(trace.stdout).toMatch(/^Wrote .*damaged\.html/);
    expect(trace.stderr).toBe('agentrx: warning: 2 events of run "damaged" could not be read (4, 6); the rest is shown, each marked unreadable on the page\n');
    const events = pageEvents(readFileSync(out, "utf8"));
    expect(events).toHaveLength(16);
    expect(events[3]).toMatchObject({ seq: 4, type: "other", name: "event 4", error: expect.stringMatching(/^its data is not valid JSON/) });
    expect(events[5]).toMatchObject({ seq: 6, type: "other", name: "step", error: "step 6 refers to action 0 of iteration 0, which is not recorded" });
    expect(events.filter((event) => event.type === "step").map((event) => event.seq)).toEqual([7, 12, 13]);

    // Replay (and so resume) still refuses the damaged record.
    const strict = new SqliteRunStore({ path: damaged });
    await expect(lastValueFrom(replayRun(strict, "damaged"))).rejects.toThrow(/event 4 of run "damaged" is corrupt/);
    await strict.close();
  });

  it("shows and traces a run in a MemoryRunStore whose event 4 cannot be decoded", async () => {
    const store = new MemoryRunStore();
    await writeDamagedRun(store, "damaged");

    const run = async (command: (store: RunStore, io: CliIo) => Promise<void>) => {
      let stdout = "";
      let stderr = "";
      await command(store, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: { NO_COLOR: "1" }, cwd: dir });
      return { stdout, stderr };
    };
    const show = await run((at, io) => showCommand(at, "damaged", { json: false, label: "MemoryRunStore" }, io));
    expect(show.stdout).toMatch(/^unreadable event 4: it cannot be decoded \(expected an encoded action\)$/m);
    expect(show.stdout).toMatch(/^unreadable event 6: it cannot be decoded \(step 6 refers to action 0 of iteration 0, which is not recorded\)$/m);
    expect(show.stdout).toMatch(/^step {4}lookup \(60 ms\) result 0\.1 x+$/m);
    expect(show.stdout).toMatch(/^answer {2}done \(finish\)$/m);
    expect(show.stderr).toMatch(/^agentrx: warning: 2 events of run "damaged" could not be read \(4, 6\)/);

    const trace = await run((at, io) => traceCommand(at, "damaged", { output: "-", label: "MemoryRunStore" }, io));
    const page = pageEvents(trace.stdout);
    expect(page.filter((event) => event.error !== undefined).map((event) => [event.seq, event.name, event.error])).toEqual([
      [4, "action", "expected an encoded action"],
      [6, "step", "step 6 refers to action 0 of iteration 0, which is not recorded"],
    ]);
    expect(page.find((event) => event.seq === 16)).toMatchObject({ type: "output" });
    expect(trace.stderr).toMatch(/^agentrx: warning: 2 events of run "damaged" could not be read \(4, 6\); the rest is shown, each marked unreadable on the page\n$/);
    await expect(lastValueFrom(replayRun(store, "damaged"))).rejects.toThrow(/event 4 of run "damaged" is corrupt: it cannot be read/);
  });
});

const database = await postgresTestDatabase("agentrx CLI on PostgreSQL");

describe.skipIf(database.skip)("agentrx on PostgreSQL", () => {
  let store: PostgresRunStore | undefined;
  beforeAll(async () => {
    database.assertReachable();
    store = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
    await recordTripRun(store, { scale: 0.02 });
    await writeSyntheticRun(store, { runId: "synthetic-done", iterations: 1, toolsPerIteration: 2 });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await database.drop();
  });

  it("picks the schema with --schema or ?schema=, and DATABASE_URL is the default store", async () => {
    const url = database.connectionString;
    const withQuery = `${url}${url.includes("?") ? "&" : "?"}schema=${database.schema}`;
    const [flag, query, env, show, wrong] = await Promise.all([
      agentrxHere(["runs", "--db", url, "--schema", database.schema, "--json"]),
      agentrx(["runs", "--db", withQuery]),
      agentrxHere(["runs", "--schema", database.schema, "--json"], { DATABASE_URL: url }),
      agentrxHere(["show", "trip-1", "--db", withQuery]),
      agentrxHere(["runs", "--db", url, "--schema", "agentrx_no_such_schema"]),
    ]);
    expect((JSON.parse(flag.stdout) as RunInfo[]).map((run) => run.runId)).toEqual(["trip-1", "synthetic-done"]);
    expect(query.stdout).toMatch(/^trip-1\s+support-42\s+finished\s+finish\s+3\s/m);
    expect(query.stdout).toContain(`2 runs in PostgreSQL ${new URL(url).hostname}`);
    expect((JSON.parse(env.stdout) as RunInfo[]).map((run) => run.runId)).toEqual(["trip-1", "synthetic-done"]);
    expect(show.stdout).toMatch(/^answer {2}The cheapest flight is AF1680/m);
    expectOneLineError(wrong, 1, /has no AgentRx runs \(no agentrx_no_such_schema\.agentrx_runs table\); pick the schema with --schema or \?schema=/);
  });

  it("takes a URL without a host, as pg does: the host in ?host= (a Unix socket's directory, or a host name)", async () => {
    const url = new URL(database.connectionString);
    const login = `${url.username}${url.password === "" ? "" : `:${url.password}`}`;
    const hostless = `postgres://${login}@${url.pathname}?host=${url.hostname}&port=${url.port || "5432"}&schema=${database.schema}`;
    const result = await agentrxHere(["runs", "--db", hostless]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`2 runs in PostgreSQL ${url.hostname}:${url.port || "5432"}${url.pathname}, schema ${database.schema}`);
  });
});
