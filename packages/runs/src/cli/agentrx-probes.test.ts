// The `agentrx` command line as a new user tries it: wrong values, unknown and huge run ids, an
// output directory that does not exist, a PostgreSQL server that never answers, Ctrl-C, a pipe
// closed early.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RunInfo } from "@agentrx/executors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../sqlite/index";
import { writeSyntheticRun } from "../../../viewer/src/trace/trace-test-fixtures";
import { childScript } from "../../../../test/support/child-script";
import { CliError } from "./cli-error";
import { openRunStore } from "./open-run-store";
import { agentrxChild, agentrxIn, type CliResult } from "./cli-test-helpers";

const root = resolve(__dirname, "../../../..");
const dir = mkdtempSync(join(tmpdir(), "agentrx-probes-"));
const db = join(dir, "runs.db");
const LONG_ID = `run-${"x".repeat(296)}`;

type Result = CliResult;

function agentrxHere(args: string[], signal?: AbortSignal): Promise<Result> {
  return agentrxIn(dir, args, signal ? { signal } : {});
}

function childEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const { DATABASE_URL: _url, AGENTRX_RUNS_DB: _db, FORCE_COLOR: _force, ...env } = process.env;
  return { ...env, NO_COLOR: "1", ...extra };
}

function agentrx(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return agentrxChild(dir, args, env);
}

/** A TCP server that accepts connections and never says a word: a PostgreSQL URL with the wrong port, say. */
async function silentServer(): Promise<{ server: Server; url: string; connected: Promise<void> }> {
  const sockets: Socket[] = [];
  let onConnection = () => undefined as void;
  const connected = new Promise<void>((done) => (onConnection = done));
  const server = createServer((socket) => {
    sockets.push(socket);
    onConnection();
  });
  server.on("close", () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  return { server, url: `postgres://app:secret@127.0.0.1:${port}/app`, connected };
}

function closeServer(server: Server): Promise<void> {
  server.close();
  return new Promise((done) => setImmediate(done));
}

// Nov 24, 21:00 and Nov 25, 01:00 in New York.
const LATE_ON_THE_24TH = Date.UTC(2026, 10, 25, 2);
const EARLY_ON_THE_25TH = Date.UTC(2026, 10, 25, 6);

beforeAll(async () => {
  const store = new SqliteRunStore({ path: db });
  await writeSyntheticRun(store, { runId: "r1", iterations: 1, toolsPerIteration: 1 });
  await writeSyntheticRun(store, { runId: LONG_ID, iterations: 1, toolsPerIteration: 1 });
  await writeSyntheticRun(store, { runId: "long-run", iterations: 300, toolsPerIteration: 2 });
  await store.createRun({ runId: "late-on-the-24th", inputs: {}, status: "queued", at: LATE_ON_THE_24TH });
  await store.createRun({ runId: "early-on-the-25th", inputs: {}, status: "queued", at: EARLY_ON_THE_25TH });
  await store.close();
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentrx given wrong values", () => {
  it("names the option and the value at fault, before opening the store", async () => {
    const cases: [string[], RegExp][] = [
      // A negative number is the option's value, not an option: its own message, not "needs a value".
      [["runs", "--limit", "-1"], /^agentrx: --limit must be a whole number from 1 to 10000, got "-1" \(see agentrx --help\)$/],
      [["runs", "--min-cost", "-0.5"], /^agentrx: --min-cost must be an amount of US dollars such as 0\.05, got "-0\.5"/],
      // `Date.parse` reads "12" as December 2001 and "2026-02-30" as March 2.
      [["runs", "--since", "12"], /^agentrx: --since must be a date .*, got "12": a number is epoch milliseconds \(13 digits\); an age needs its unit \(12h, 12d\)/],
      // Read as milliseconds, epoch seconds would be January 1970 (every run), microseconds the year 56,000 (none).
      [["runs", "--since", "1795900000"], /^agentrx: --since must be a date .*, got "1795900000": that reads as epoch seconds; epoch milliseconds have 13 digits \(1795900000000\)/],
      [["runs", "--before", "1795900000123456"], /^agentrx: --before must be a date .*, got "1795900000123456": that reads as epoch microseconds; epoch milliseconds have 13 digits \(1795900000123\)/],
      [["runs", "--since", "99999999999999999"], /^agentrx: --since must be a date .*, got "99999999999999999"; epoch milliseconds have 13 digits \(see agentrx --help\)$/],
      [["runs", "--before", "2026-02-30"], /^agentrx: --before must be a date .*, got "2026-02-30": there is no such day or time/],
      [["runs", "--since", "yesterday"], /^agentrx: --since must be a date \(2026-11-25 or 2026-11-25T10:00\), epoch milliseconds or an age such as 2h or 7d, got "yesterday"/],
      // A search with no word would list every run.
      [["runs", "--search", "!!!"], /^agentrx: --search "!!!" has no word to search for; give words/],
      // A flag given a value is not a flag missing one.
      [["runs", "--json=false"], /^agentrx: --json takes no value, got "--json=false"; write --json alone \(see agentrx --help\)$/],
      [["runs", "--errors=yes"], /^agentrx: --errors takes no value, got "--errors=yes"; write --errors alone/],
      // A value that starts with a dash is given, not missing; a forgotten value is missing.
      [["runs", "--search", "-refund"], /^agentrx: --search "-refund": a value that starts with "-" is written --search=-refund \(see agentrx --help\)$/],
      [["trace", "r1", "-o", "-out.html"], /^agentrx: -o "-out.html": a value that starts with "-" is written --output=-out\.html/],
      [["runs", "--thread", "--json"], /^agentrx: --thread needs a value \(see agentrx --help\)$/],
    ];
    const results = await Promise.all(cases.map(([args]) => agentrxHere([...args, "--db", join(dir, "missing.db")])));
    results.forEach((result, index) => {
      expect(result.code).toBe(2);
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(result.stderr.trimEnd()).toMatch((cases[index] as [string[], RegExp])[1]);
    });
  });

  it("reads a date without a time as local midnight, as the listing prints local times", async () => {
    const ids = (result: Result) => (JSON.parse(result.stdout) as RunInfo[]).map((run) => run.runId).filter((id) => id.includes("-the-"));
    const [local, utc] = await Promise.all([
      agentrx(["runs", "--db", db, "--json", "--since", "2026-11-25"], { TZ: "America/New_York" }),
      agentrx(["runs", "--db", db, "--json", "--since", "2026-11-25T00:00Z"], { TZ: "America/New_York" }),
    ]);
    expect(ids(local)).toEqual(["early-on-the-25th"]);
    expect(ids(utc)).toEqual(["early-on-the-25th", "late-on-the-24th"]);
  });

  it("reads 13 digits as epoch milliseconds", async () => {
    const ids = (result: Result) => (JSON.parse(result.stdout) as RunInfo[]).map((run) => run.runId).filter((id) => id.includes("-the-"));
    const [since, before] = await Promise.all([
      agentrx(["runs", "--db", db, "--json", "--since", String(EARLY_ON_THE_25TH)]),
      agentrx(["runs", "--db", db, "--json", "--before", String(EARLY_ON_THE_25TH)]),
    ]);
    expect(ids(since)).toEqual(["early-on-the-25th"]);
    expect(ids(before)).toEqual(["late-on-the-24th"]);
  });

  it("refuses a diff page path that names a directory (a trailing slash), existing or not, writing nothing", async () => {
    for (const output of ["pages/", join(dir, "no-such-dir") + "/"]) {
      const result = await agentrxHere(["diff", "r1", LONG_ID, "--db", db, "--html", output]);
      expect([result.code, result.stderr]).toEqual([1, `agentrx: cannot write ${output}: it names a directory; give --html a file name (pages/diff.html)\n`]);
      expect(existsSync(resolve(dir, output))).toBe(false);
    }
  });

  it("cuts a huge run id in its messages, and says a run id that long cannot be", async () => {
    const huge = "a".repeat(100_000);
    const [show, diff] = await Promise.all([agentrxHere(["show", huge, "--db", db]), agentrxHere(["diff", "r1", huge, "--db", db])]);
    for (const result of [show, diff]) {
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`agentrx: InvalidArgumentError: RunStore.getRun: runId must be a non-empty string of at most 1024 bytes (UTF-8) without NUL characters or lone surrogates, got "${"a".repeat(80)}...".\n`);
    }
    const unicode = await agentrxHere(["show", "ünï😀", "--db", db]);
    expect(unicode.stderr).toBe('agentrx: no run "ünï😀" in SQLite runs.db; list the runs with: agentrx runs\n');
  });
});

describe("agentrx given recorded values with control characters", () => {
  it("prints a run id, thread id and input that hold an escape sequence as escapes, never sending them to the terminal", async () => {
    // Inputs come from a run's users: an escape sequence in them must not clear the screen or retitle the terminal of whoever lists the runs.
    const evil = "evil\u001b[2J\u001b]0;owned\u0007";
    const path = join(dir, "escapes.db");
    const store = new SqliteRunStore({ path });
    const at = Date.now();
    // (U+202E, a bidi override, would show the rest of the row reversed.)
    await store.createRun({ runId: evil, threadId: "t\u001b[31m\u202e", inputs: { input: "hi \u001b[2J there \u009b" }, status: "queued", at });
    await store.createRun({ runId: "fork", inputs: { input: "hi" }, status: "queued", forkOf: { runId: evil, iteration: 0 }, at: at + 1 });
    await store.close();
    const [runs, show, diff] = await Promise.all([agentrxHere(["runs", "--db", path]), agentrxHere(["show", evil, "--db", path]), agentrxHere(["diff", evil, "fork", "--db", path])]);
    for (const result of [runs, show, diff]) {
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    }
    expect(runs.stdout).toMatch(/^evil\\u001b\[2J\\u001b\]0;owned\\u0007 +t\\u001b\[31m\\u202e +queued .* hi \\u001b\[2J there \\u009b$/m);
    expect(runs.stdout).toContain("↳ fork of evil\\u001b[2J\\u001b]0;owned\\u0007@0: nothing copied");
    expect(show.stdout).toMatch(/^Run evil\\u001b\[2J\\u001b\]0;owned\\u0007 · queued · .* · thread t\\u001b\[31m\\u202e · /);
    expect(diff.stdout).toMatch(/^a evil\\u001b\[2J\\u001b\]0;owned\\u0007 · queued\n/);
    // --json: the same JSON, with the C1 characters JSON.stringify leaves as they are escaped too.
    const json = await Promise.all([agentrxHere(["runs", "--db", path, "--json"]), agentrxHere(["show", evil, "--db", path, "--json"]), agentrxHere(["diff", evil, "fork", "--db", path, "--json"])]);
    for (const result of json) {
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    }
    expect(JSON.parse(json[0].stdout).find((run: { runId: string }) => run.runId === evil)?.inputs).toEqual({ input: "hi \u001b[2J there \u009b" });
    expect(JSON.parse(json[1].stdout).run.runId).toBe(evil);
  });
});

describe("agentrx trace -o", () => {
  it("says that the directory to write into does not exist, and creates none", async () => {
    const result = await agentrxHere(["trace", "r1", "--db", db, "-o", "no-such-dir/r1.html"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("agentrx: cannot write no-such-dir/r1.html: the directory no-such-dir does not exist; create it, or pick another file with -o\n");
    expect(existsSync(join(dir, "no-such-dir"))).toBe(false);
  });

  it("writes <runId>.html into a directory it is given, and a short name for a long run id", async () => {
    mkdirSync(join(dir, "pages"));
    const [intoDirectory, longId] = await Promise.all([agentrxHere(["trace", "r1", "--db", db, "-o", "pages"]), agentrxHere(["trace", LONG_ID, "--db", db, "-o", "pages/"])]);
    expect(intoDirectory.code).toBe(0);
    expect(intoDirectory.stdout).toMatch(/^Wrote pages\/r1\.html \(\d+ KB\): the trace of run r1\./);
    expect(longId.code).toBe(0);
    expect(longId.stdout).toMatch(/the trace of run "run-x{76}"… \(300 characters\)\. Open it in a browser\.\n$/);
    expect(readdirSync(join(dir, "pages")).sort()).toEqual(["r1.html", `${LONG_ID.slice(0, 100)}.html`].sort());
  });
});

describe("agentrx on a PostgreSQL server that never answers", () => {
  it("gives up after the connect timeout with a message that says so", async () => {
    const { server, url } = await silentServer();
    try {
      const error = await openRunStore({ db: url, env: {}, cwd: dir, connectTimeoutMs: 300 }).catch((caught: unknown) => caught);
      expect(CliError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(
        `cannot reach the database at 127.0.0.1:${new URL(url).port}/app: no answer within 0.3 s; check the host and port in --db and that PostgreSQL is up there`,
      );
    } finally {
      await closeServer(server);
    }
  });

  it("stops at once on Ctrl-C, with exit code 130", async () => {
    const { server, url, connected } = await silentServer();
    try {
      const controller = new AbortController();
      void connected.then(() => controller.abort());
      const result = await agentrxHere(["runs", "--db", url], controller.signal);
      expect(result).toEqual({ code: 130, stdout: "", stderr: "agentrx: interrupted\n" });
    } finally {
      await closeServer(server);
    }
  });
});

describe("agentrx piped into a command that stops reading", () => {
  it("ends quietly, with exit code 0", async () => {
    const cli = await childScript(join(root, "packages/runs/src/cli/main.ts"));
    // A trace of 1,500 lines, written line by line.
    const child = spawn(process.execPath, [cli, "show", "long-run", "--db", db], { cwd: dir, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Like `| head -3`: the first chunk, then the pipe is closed.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
