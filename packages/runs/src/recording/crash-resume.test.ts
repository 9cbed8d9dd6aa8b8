import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunStore } from "@agentrx/executors";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { type PostgresTestDatabase, postgresTestDatabase } from "../testing/postgres-test-database";
import { childScript } from "../../../../test/support/child-script";

const CHILD = await childScript(fileURLToPath(new URL("./crash-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url)); // its tsconfig maps @agentrx/* to sources

type Target = { kind: "sqlite"; path: string } | { kind: "postgres"; connectionString: string; schema: string };

function childArgs(mode: "run" | "resume", runId: string, effects: string, store: Target): string[] {
  return [CHILD, JSON.stringify({ mode, runId, effects, store })];
}

function lines(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Kills a run mid-turn in one process, resumes it in another, and checks what happened once. */
async function crashAndResume(store: RunStore, target: Target, dir: string): Promise<void> {
  const runId = `crash-${Math.random().toString(36).slice(2, 8)}`;
  const effects = join(dir, `${runId}.log`);
  const child: ChildProcess = spawn(process.execPath, childArgs("run", runId, effects, target), { cwd: ROOT, stdio: "ignore" });
  try {
    // a and b finished and their steps are in the record; c is in flight.
    await until(async () => {
      const steps = (await store.readEvents(runId)).filter((event) => event.type === "step");
      return steps.length === 2 && lines(effects).includes("start c");
    }, "two recorded steps and the slow tool in flight");
  } finally {
    child.kill("SIGKILL");
  }
  await new Promise((resolve) => child.once("exit", resolve));
  expect((await store.getRun(runId))?.status).toBe("running"); // a dead process leaves its lease behind

  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, childArgs("resume", runId, effects, target), { cwd: ROOT, timeout: 60_000 }, (error, out, err) =>
      error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
    ),
  );
  const output = JSON.parse(stdout) as { type: string; output: string; stopReason: string };
  expect(output).toMatchObject({ type: "output", output: "a ok, b ok, c ok", stopReason: "finish" });

  const log = lines(effects);
  // The agent ran once per turn over both processes.
  expect(log.filter((line) => line.startsWith("agent"))).toEqual(["agent 0", "agent 3"]);
  // Every tool side effect happened once, but the call in flight at the kill, which started twice.
  expect(log.filter((line) => line.endsWith(" a"))).toEqual(["start a", "done a"]);
  expect(log.filter((line) => line.endsWith(" b"))).toEqual(["start b", "done b"]);
  expect(log.filter((line) => line.endsWith(" c"))).toEqual(["start c", "start c", "done c"]);
  expect(await store.getRun(runId)).toMatchObject({ status: "finished", stopReason: "finish" });
  const starts = (await store.readEvents(runId)).filter((event) => event.type === "start").map((event) => event.data["resumed"]);
  expect(starts).toEqual([false, true]);
}

describe("a run killed with SIGKILL mid-turn resumes in a fresh process (SQLite)", () => {
  let dir: string;
  let store: SqliteRunStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentrx-crash-"));
    store = new SqliteRunStore({ path: join(dir, "runs.db") });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("repeats no finished tool call and asks the agent once per turn", async () => {
    await crashAndResume(store, { kind: "sqlite", path: join(dir, "runs.db") }, dir);
  }, 90_000);
});

const database: PostgresTestDatabase = await postgresTestDatabase("crash-resume (PostgreSQL)");

describe.skipIf(database.skip)("a run killed with SIGKILL mid-turn resumes in a fresh process (PostgreSQL)", () => {
  let dir: string;
  let store: PostgresRunStore;
  beforeAll(() => {
    database.assertReachable();
    dir = mkdtempSync(join(tmpdir(), "agentrx-crash-pg-"));
    store = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
  });
  afterAll(async () => {
    await store?.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("repeats no finished tool call and asks the agent once per turn", async () => {
    await crashAndResume(store, { kind: "postgres", connectionString: database.connectionString, schema: database.schema }, dir);
  }, 90_000);
});
