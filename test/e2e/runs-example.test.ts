// examples/runs.ts and examples/quickstart.ts as a person runs them: Ctrl-C cancels the run (it is
// recorded as cancelled, with the reason, and resumes at once; the process exits with 130), the
// store comes from AGENTRX_RUNS_DB (empty is unset; PostgreSQL too; another URL is one line), and
// runs.ts lists, shows and refuses as a command does. (test/e2e/examples.test.ts runs the main path.)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../../packages/runs/src/postgres/index";
import { SqliteRunStore } from "../../packages/runs/src/sqlite/index";
import { postgresTestDatabase } from "../../packages/runs/src/testing/postgres-test-database";
import { childScript } from "../support/child-script";

const dir = mkdtempSync(join(tmpdir(), "agentrx-runs-example-"));
const db = join(dir, "runs.db");
const [runs, quickstart] = await Promise.all([childScript(join(__dirname, "../../examples/runs.ts")), childScript(join(__dirname, "../../examples/quickstart.ts"))]);
const pg = await postgresTestDatabase("examples on PostgreSQL");
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pg.drop();
});

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs an example (bundled) in `cwd`, recording into `db` (AGENTRX_RUNS_DB; `env` may change it),
 * offline. With `interruptAt`, one SIGINT (Ctrl-C) is sent once stdout matches it.
 */
function example(script: string, args: string[], { env = {}, cwd = dir, interruptAt }: { env?: Record<string, string>; cwd?: string; interruptAt?: RegExp } = {}): Promise<Ran> {
  const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, OPENAI_MODEL: _model, DATABASE_URL: _database, ...inherited } = process.env;
  const child = spawn(process.execPath, [script, ...args], { cwd, env: { ...inherited, AGENTRX_RUNS_DB: db, NO_COLOR: "1", ...env } });
  let stdout = "";
  let stderr = "";
  let interrupted = false;
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (interruptAt !== undefined && !interrupted && interruptAt.test(stdout)) {
      interrupted = true;
      child.kill("SIGINT");
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** A failure told as a command tells it: one line on stderr, no stack trace. */
function expectOneLine(ran: Ran, code: number, pattern: RegExp): void {
  expect(ran.code).toBe(code);
  expect(ran.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(ran.stderr).not.toMatch(/^\s+at /m);
  expect(ran.stderr.trimEnd()).toMatch(pattern);
}

let finished = "";

beforeAll(async () => {
  const ran = await example(quickstart, []);
  expect(ran.code).toBe(0);
  finished = /Recorded as run (\S+) in /.exec(ran.stdout)?.[1] as string;
  expect(finished).toBeDefined();
}, 60_000);

describe("Ctrl-C in the examples", { timeout: 60_000 }, () => {
  let cancelled = "";

  it("quickstart.ts records the run as cancelled with Ctrl-C as the reason, and exits with 130", async () => {
    const ran = await example(quickstart, [], { interruptAt: /action\s+get_weather/ });
    expect(ran.stdout).toContain("Cancelled. Finish it with: npx tsx examples/runs.ts resume ");
    expect(ran.code).toBe(130);
    cancelled = /resume (\S+)/.exec(ran.stdout)?.[1] as string;
    const store = new SqliteRunStore({ path: db });
    const run = await store.getRun(cancelled);
    await store.close();
    expect(run?.status).toBe("cancelled");
    expect(run?.error).toMatch(/Ctrl-C/);
    expect(run?.error).not.toMatch(/subscriber unsubscribed/);
  });

  it("runs.ts show prints a cancelled run's record and its status, and exits 0", async () => {
    const ran = await example(runs, ["show", cancelled]);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/action\s+get_weather \{"city":"Paris"\}/);
    expect(ran.stdout).toMatch(/^\(cancelled: .*Ctrl-C.*; the record ends here\)$/m);
    expect(ran.stdout).toContain(`npx tsx examples/runs.ts resume ${cancelled}`);
    expect(ran.stdout).not.toContain("printTrace");
  });

  it("runs.ts resume cancels the run on Ctrl-C, so that it resumes again at once", async () => {
    const ran = await example(runs, ["resume", cancelled], { interruptAt: /^(step|model)\s/m });
    expect(ran.code).toBe(130);
    expect(ran.stdout).toContain(`Cancelled. Finish it with: npx tsx examples/runs.ts resume ${cancelled}`);
    const again = await example(runs, ["resume", cancelled]);
    expect(again.stderr).toBe("");
    expect(again.stdout).toMatch(/answer\s+Paris is sunny/);
    // The model answers from the conversation: the resumed run asks for nothing again, and each
    // unfinished call runs once (the scripted model used to replay its script and ask for both again).
    expect(again.stdout).not.toMatch(/action\s+get_weather/);
    expect(again.stdout.match(/step\s+get_weather/g)?.length ?? 0).toBeLessThanOrEqual(2);
    expect(again.stdout).toContain("stopReason=finish");
    expect(again.code).toBe(0);
  });

  it("runs.ts fork cancels the new run on Ctrl-C, so that it resumes at once", async () => {
    const ran = await example(runs, ["fork", finished, "1", "stormy, 9°C"], { interruptAt: /^model\s/m });
    expect(ran.code).toBe(130);
    const forkId = /resume (\S+)/.exec(ran.stdout)?.[1] as string;
    expect(forkId).toBeDefined();
    expect(forkId).not.toBe(finished);
    const again = await example(runs, ["resume", forkId]);
    expect(again.stderr).toBe("");
    expect(again.stdout).toMatch(/Rome is stormy/);
    expect(again.code).toBe(0);
  });
});

describe("examples/runs.ts", { timeout: 60_000 }, () => {
  it("says a full list shows the latest runs, and how to see more", async () => {
    const many = join(dir, "many.db");
    const store = new SqliteRunStore({ path: many });
    for (let index = 0; index < 25; index++) await store.createRun({ runId: `run-${index}`, inputs: { input: `q${index}` }, status: "queued", at: 1_700_000_000_000 + index });
    await store.close();
    const ran = await example(runs, [], { env: { AGENTRX_RUNS_DB: many } });
    expect(ran.code).toBe(0);
    expect(ran.stdout).not.toMatch(/^20 run\(s\)/m);
    expect(ran.stdout).toMatch(/^The latest 20 runs in .*many\.db \(there are more: npx agentrx runs lists them all, a page at a time\):$/m);
    expect(ran.stdout.match(/^run-\d+ /gm)).toHaveLength(20);
    expect(ran.stdout).toMatch(/^run-24 /m);
  });

  it.each([[["list", "extra"]], [["show", "a", "b"]], [["resume", "a", "b"]], [["fork", "a", "1", "rain", "extra"]], [["show"]], [["frobnicate"]]])("refuses %j with its usage line and exit code 2", async (args) => {
    expectOneLine(await example(runs, args), 2, /^usage: npx tsx examples\/runs\.ts \[list \| show <runId> \| resume <runId> \| fork <runId> <turn> \["new observation"\]\]$/);
  });

  it("says an error once", async () => {
    for (const command of ["show", "resume"]) {
      const ran = await example(runs, [command, "no-such-run"]);
      expect(ran.code).toBe(1);
      expect(`${ran.stdout}${ran.stderr}`.match(/Run "no-such-run" is not recorded/g)).toHaveLength(1);
      expect(ran.stderr).toMatch(/RunNotFoundError: Run "no-such-run" is not recorded/);
    }
  });
});

describe("AGENTRX_RUNS_DB in the examples", { timeout: 60_000 }, () => {
  it("takes an empty value as unset: .agentrx/runs.db", async () => {
    const cwd = mkdtempSync(join(dir, "empty-"));
    const ran = await example(runs, [], { cwd, env: { AGENTRX_RUNS_DB: "" } });
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^0 run\(s\) in \.agentrx\/runs\.db\. Record one with: npm run demo$/m);
  });

  it("says in one line that a URL of another database cannot be used, without its password", async () => {
    for (const script of [runs, quickstart]) {
      const ran = await example(script, [], { env: { AGENTRX_RUNS_DB: "mysql://app:s3cret@127.0.0.1/runs" } });
      expectOneLine(ran, 2, /^AGENTRX_RUNS_DB .*: the examples record into an SQLite file \(its path\) or PostgreSQL \(a postgres:\/\/ URL\)/);
      expect(ran.stderr).not.toContain("s3cret");
    }
  });

  it.skipIf(pg.skip)("records into PostgreSQL given a postgres:// URL, as the agentrx command reads it", async () => {
    pg.assertReachable();
    const url = new URL(pg.connectionString);
    url.searchParams.set("schema", pg.schema);
    const env = { AGENTRX_RUNS_DB: url.toString() };
    const recorded = await example(quickstart, [], { env });
    expect(recorded.stderr).toBe("");
    expect(recorded.code).toBe(0);
    const runId = /Recorded as run (\S+) in /.exec(recorded.stdout)?.[1] as string;
    const listed = await example(runs, [], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${runId}\\s+\\S+\\s+finished\\s+finish`, "m"));
    const store = new PostgresRunStore({ connectionString: pg.connectionString, schema: pg.schema });
    expect((await store.getRun(runId))?.status).toBe("finished");
    await store.close();
  });
});
