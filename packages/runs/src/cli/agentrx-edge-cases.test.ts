// The `agentrx` command line at its edges: a stop reason with an escape sequence, an age too far
// back, a URL of another database, a damaged row between pages, an output file that is the store,
// Ctrl-C on `ui` and on a query a lock holds, a server without SSL asked for SSL.
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { writeSyntheticRun } from "../../../viewer/src/trace/trace-test-fixtures";
import { agentrxChild, agentrxIn, type CliResult } from "./cli-test-helpers";

const dir = mkdtempSync(join(tmpdir(), "agentrx-edges-"));
const db = join(dir, "runs.db");
const EVIL = "finish\u001b[2J\u001b]0;owned\u0007";

type Result = CliResult;

function agentrxHere(args: string[], options: { env?: Record<string, string>; signal?: AbortSignal; onStdout?: (text: string) => void } = {}): Promise<Result> {
  return agentrxIn(dir, args, { ...options, env: { NO_COLOR: "1", ...options.env } });
}

function agentrx(args: string[]): Promise<Result> {
  return agentrxChild(dir, args);
}

beforeAll(async () => {
  const store = new SqliteRunStore({ path: db });
  await writeSyntheticRun(store, { runId: "r1", iterations: 1, toolsPerIteration: 1 });
  const at = Date.now();
  for (const runId of ["evil-a", "evil-b"]) {
    await store.createRun({ runId, inputs: { input: "hi" }, status: "running", owner: "o", leaseMs: 60_000, at });
    const start = { type: "start", at, runId, inputs: { input: "hi" }, resumed: false };
    await store.write(runId, { owner: "o", leaseMs: 60_000, at, events: [{ seq: 1, type: "start", at, data: start as never }], update: { status: "finished", stopReason: EVIL, release: true } });
  }
  await store.close();
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentrx given a stop reason with an escape sequence", () => {
  it("prints it escaped in runs, show and diff", async () => {
    const [runs, show, diff] = await Promise.all([agentrxHere(["runs", "--db", db]), agentrxHere(["show", "evil-a", "--db", db]), agentrxHere(["diff", "evil-a", "evil-b", "--db", db])]);
    for (const result of [runs, show, diff]) {
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    }
    expect(runs.stdout).toMatch(/^evil-a +- +finished +finish\\u001b\[2J\\u001b\]0;owned\\u0007 /m);
    expect(show.stdout).toMatch(/^Run evil-a · finished \(finish\\u001b\[2J\\u001b\]0;owned\\u0007\) · /);
    expect(diff.stdout).toMatch(/^a evil-a · finished \(finish\\u001b\[2J\\u001b\]0;owned\\u0007\)\n/);
  });
});

describe("agentrx given values it cannot use", () => {
  it("refuses an age further back than a date can go, as a usage mistake", async () => {
    const [since, before] = await Promise.all([agentrxHere(["runs", "--db", db, "--since", "99999999999999d"]), agentrxHere(["runs", "--db", db, "--before", "2000000000d"])]);
    expect(since).toEqual({ code: 2, stdout: "", stderr: expect.stringMatching(/^agentrx: --since must be a date .*, got "99999999999999d": that is further back than a date can go \(100,000,000 days before 1970\) \(see agentrx --help\)\n$/) });
    expect(before).toEqual({ code: 2, stdout: "", stderr: expect.stringMatching(/^agentrx: --before must be a date .*, got "2000000000d": that is further back/) });
  });

  it("names -o by both its names when it has no value", async () => {
    for (const flag of ["-o", "--output"]) {
      expect(await agentrxHere(["trace", "r1", "--db", db, flag])).toEqual({ code: 2, stdout: "", stderr: "agentrx: -o/--output needs a value (see agentrx --help)\n" });
    }
  });

  it("refuses a URL of another kind of database, naming what --db takes, without its password", async () => {
    const forms = "agentrx reads an SQLite file (give its path) or PostgreSQL (a postgres:// or postgresql:// URL) (see agentrx --help)";
    expect(await agentrxHere(["runs", "--db", "mysql://app:s3cret@db.internal/app"])).toEqual({ code: 2, stdout: "", stderr: `agentrx: --db mysql://app:***@db.internal/app is a mysql: URL; ${forms}\n` });
    expect(await agentrxHere(["runs", "--db", "sqlite:///var/runs.db"])).toEqual({ code: 2, stdout: "", stderr: `agentrx: --db sqlite:///var/runs.db is a sqlite: URL; ${forms}\n` });
    expect(await agentrxHere(["runs"], { env: { AGENTRX_RUNS_DB: "file:runs.db?mode=ro" } })).toEqual({ code: 2, stdout: "", stderr: `agentrx: AGENTRX_RUNS_DB file:runs.db?mode=ro is a file: URL; ${forms}\n` });
  });
});

describe("agentrx writing a page", () => {
  it("refuses to write it over the run store it reads, however the path is spelt", async () => {
    symlinkSync(db, join(dir, "link.db"));
    const cases: [string[], string][] = [
      [["trace", "r1", "--db", db, "-o", db], `agentrx: cannot write runs.db: it is the run store this command reads; pick another file with -o\n`],
      [["trace", "r1", "--db", "runs.db", "-o", "./sub/../runs.db"], `agentrx: cannot write runs.db: it is the run store this command reads; pick another file with -o\n`],
      [["trace", "r1", "--db", db, "-o", "link.db"], `agentrx: cannot write link.db: it is the run store this command reads; pick another file with -o\n`],
      [["trace", "r1", "--db", db, "-o", "runs.db-wal"], `agentrx: cannot write runs.db-wal: it is the run store this command reads; pick another file with -o\n`],
      [["diff", "evil-a", "evil-b", "--db", db, "--html", "runs.db"], `agentrx: cannot write runs.db: it is the run store this command reads; pick another file with --html\n`],
    ];
    for (const [args, stderr] of cases) expect(await agentrxHere(args)).toEqual({ code: 1, stdout: "", stderr });
    expect((await agentrxHere(["runs", "--db", db])).code).toBe(0);
  });
});

describe("agentrx paging past a damaged row", () => {
  it("follows the next-page hints through a row whose created_at is not a time, listing every run once", async () => {
    const path = join(dir, "damaged.db");
    const store = new SqliteRunStore({ path });
    const at = Date.now();
    for (const [index, runId] of ["d1", "d2", "d3"].entries()) await store.createRun({ runId, inputs: { input: runId }, status: "queued", at: at + index });
    await store.close();
    const sqlite = new Database(path);
    sqlite.prepare("UPDATE agentrx_runs SET created_at = 'abc' WHERE run_id = 'd2'").run();
    sqlite.close();
    for (const order of ["desc", "asc"]) {
      const listed: string[] = [];
      let args = ["runs", "--db", path, "--limit", "1", "--order", order];
      for (let page = 0; page < 5; page++) {
        const result = await agentrxHere(args);
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        const row = /^(d\d) .*$/m.exec(result.stdout);
        if (row === null) break;
        listed.push(row[1] as string);
        if (row[1] === "d2") expect(row[0]).toMatch(/^d2 +- +queued +unreadable /);
        const next = /^Next page: agentrx runs (.*)$/m.exec(result.stdout)?.[1];
        if (next === undefined) break;
        args = ["runs", ...next.split(" ").map((word) => word.replace(/^'(.*)'$/, "$1"))];
      }
      // SQLite sorts a text after every number: the damaged row comes first newest-first, last oldest-first.
      expect(listed).toEqual(order === "desc" ? ["d2", "d3", "d1"] : ["d1", "d3", "d2"]);
    }
  });
});

describe("agentrx ui on Ctrl-C", () => {
  it("closes its server and exits with 130, as every command does", async () => {
    const controller = new AbortController();
    const result = await agentrxHere(["ui", "--db", db, "--port", "0"], { signal: controller.signal, onStdout: (text) => text.includes("Ctrl-C to stop") && controller.abort() });
    expect(result.stdout).toMatch(/^AgentRx runs \(SQLite runs\.db\) at http:\/\/127\.0\.0\.1:\d+ {2}· Ctrl-C to stop\n$/);
    expect([result.code, result.stderr]).toEqual([130, "agentrx: interrupted\n"]);
  });
});

describe("agentrx asked for SSL by a server without it", () => {
  it("says so in one line naming the server, without pg's warning about sslmode", async () => {
    // What a PostgreSQL server without SSL answers to the client's SSLRequest: "N".
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.once("data", () => socket.write("N"));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as { port: number };
    try {
      const result = await agentrx(["runs", "--db", `postgres://app:s3cret@127.0.0.1:${port}/app?sslmode=require`]);
      expect(result).toEqual({
        code: 1,
        stdout: "",
        stderr: `agentrx: the database at 127.0.0.1:${port}/app does not support SSL connections, which the connection asks for (sslmode in the connection string, or the ssl option); connect without SSL, or enable SSL on the server.\n`,
      });
    } finally {
      server.close();
      for (const socket of sockets) socket.destroy();
    }
  });
});

const database = await postgresTestDatabase("agentrx interrupted on PostgreSQL");

describe.skipIf(database.skip)("agentrx on Ctrl-C while PostgreSQL holds its query", () => {
  beforeAll(async () => {
    database.assertReachable();
    const store = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
    await store.createRun({ runId: "pg-1", inputs: { input: "hi" }, status: "queued", at: Date.now() });
    await store.close();
  }, 60_000);
  afterAll(() => database.drop());

  it("stops at once with exit code 130 and says so, not waiting for the store to close", async () => {
    const locker = new pg.Client({ connectionString: database.connectionString });
    await locker.connect();
    await locker.query("BEGIN");
    await locker.query(`LOCK TABLE "${database.schema}".agentrx_runs IN ACCESS EXCLUSIVE MODE`);
    // Released in any case: before the fix, the command waited for it.
    const release = setTimeout(() => void locker.query("ROLLBACK"), 5_000);
    try {
      const controller = new AbortController();
      let abortedAt = 0;
      const waiting = (async () => {
        for (;;) {
          const { rows } = await database.pool().query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [`%${database.schema}%agentrx_runs%`]);
          if ((rows[0] as { n: number }).n > 0) break;
          await new Promise((done) => setTimeout(done, 20));
        }
        abortedAt = Date.now();
        controller.abort();
      })();
      const result = await agentrxHere(["runs", "--db", database.connectionString, "--schema", database.schema], { signal: controller.signal });
      const took = Date.now() - abortedAt;
      await waiting;
      expect(result).toEqual({ code: 130, stdout: "", stderr: "agentrx: interrupted\n" });
      expect(took).toBeLessThan(1_000);
    } finally {
      clearTimeout(release);
      await locker.query("ROLLBACK").catch(() => undefined);
      await locker.end();
    }
  }, 30_000);
});
