// A crash loop at random moments: twelve runs of three turns of two tools share one process, which
// is SIGKILLed after a random delay (during a write, a model call, a tool, between them: wherever
// each run happens to be), again and again, then brought to its end. The record must hold every
// started call's action at the moment of each kill; nothing recorded runs again; the agent is never
// asked again for a turn whose actions were recorded; a call run again (it was in doubt) keeps its
// idempotency key; no run is lost.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunStore } from "@agentrx/executors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { type ChildStoreTarget } from "./child-store";
import { type PostgresTestDatabase, postgresTestDatabase } from "../testing/postgres-test-database";
import { childScript } from "../../../../test/support/child-script";

const CHILD = await childScript(fileURLToPath(new URL("./kill-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url)); // its tsconfig maps @agentrx/* to sources
const RUNS = 12;
const KILLS = 5;
const JOBS = ["t0-0", "t0-1", "t1-0", "t1-1", "t2-0", "t2-1"];

function lines(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

/** A small seeded generator, so that a failing sequence of kill delays can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const childArgs = (ids: string[], effects: string, store: ChildStoreTarget) => [CHILD, JSON.stringify({ mode: "many", runId: "", ids, effects, store })];

/** One segment: every run of `ids` brought toward its end, SIGKILLed `delayMs` after the child is ready. Resolves whether it was killed. */
function killAfter(ids: string[], effects: string, target: ChildStoreTarget, delayMs: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, childArgs(ids, effects, target), { cwd: ROOT, stdio: ["ignore", "ignore", "pipe", "ipc"] });
    let killed = false;
    let stderr = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.stderr?.on("data", (chunk) => (stderr += String(chunk)));
    child.on("message", (message: { ready?: boolean }) => {
      if (message.ready !== true) return;
      timer = setTimeout(() => {
        killed = true;
        child.kill("SIGKILL");
      }, delayMs);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (killed || code === 0) resolve(killed);
      else reject(new Error(`the child exited with ${code}: ${stderr}`));
    });
  });
}

function toEnd(ids: string[], effects: string, target: ChildStoreTarget): Promise<unknown[]> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, childArgs(ids, effects, target), { cwd: ROOT, timeout: 90_000 }, (error, out, err) =>
      error ? reject(new Error(`${error.message}\n${err}`)) : resolve(JSON.parse(out) as unknown[]),
    ),
  );
}

/** What the record says of each run: the jobs whose actions and results are in it, the turns whose actions are. */
async function recorded(store: RunStore, ids: string[]) {
  const actions = new Set<string>();
  const results = new Set<string>();
  const turns = new Set<string>();
  for (const runId of ids) {
    for (const event of await store.readEvents(runId)) {
      const data = event.data;
      if (data["type"] === "action") {
        const job = String((data["action"] as { toolInput: { job: string } }).toolInput.job);
        actions.add(job);
        turns.add(`${data["iteration"]} ${runId}`);
      }
      if (data["type"] === "step" && typeof data["index"] === "number") results.add(`${runId}/t${data["iteration"]}-${data["index"]}`);
    }
  }
  return { actions, results, turns };
}

async function randomCrashLoop(store: RunStore, target: ChildStoreTarget, dir: string, seed: number): Promise<void> {
  const ids = Array.from({ length: RUNS }, (_, index) => `rnd${seed}-${index}`);
  const effects = join(dir, `rnd${seed}.log`);
  const next = random(seed);
  const forbiddenStarts = new Set<string>();
  const forbiddenTurns = new Set<string>();
  const delays: number[] = [];
  /** Checks the effects a segment added against what was recorded before it. */
  const checkSegment = (from: number) => {
    for (const line of lines(effects).slice(from)) {
      const [kind, what, who] = line.split(" ");
      if (kind === "start") expect(forbiddenStarts.has(what as string), `${what} started again after its result was recorded (delays ${delays.join(", ")})`).toBe(false);
      if (kind === "agent") expect(forbiddenTurns.has(`${what} ${who}`), `the agent was asked again for recorded turn ${what} of ${who} (delays ${delays.join(", ")})`).toBe(false);
    }
  };
  for (let kill = 0; kill < KILLS; kill++) {
    const from = lines(effects).length;
    const delayMs = Math.floor(next() * 400);
    delays.push(delayMs);
    if (!(await killAfter(ids, effects, target, delayMs))) break; // every run ended first
    checkSegment(from);
    const { actions, results, turns } = await recorded(store, ids);
    // Write-ahead, whatever the moment of the kill: every call that started has its action in the store.
    for (const line of lines(effects).slice(from)) {
      const [kind, job] = line.split(" ");
      if (kind === "start") expect(actions.has(job as string), `the action of ${job} is in the store (delays ${delays.join(", ")})`).toBe(true);
    }
    for (const job of results) forbiddenStarts.add(job);
    for (const turn of turns) forbiddenTurns.add(turn);
  }
  const from = lines(effects).length;
  const outputs = await toEnd(ids, effects, target);
  checkSegment(from);
  // No run lost: each ends with all six results, and is recorded as finished.
  for (const [index, runId] of ids.entries()) {
    expect(outputs[index], `${runId}'s output`).toBe(JOBS.map((job) => `${runId}/${job} ok`).join(", "));
    expect((await store.getRun(runId))?.status).toBe("finished");
  }
  // A call that ran more than once (it was in doubt) kept its idempotency key.
  const keys = new Map<string, Set<string>>();
  for (const line of lines(effects)) {
    const [kind, job, key] = line.split(" ");
    if (kind !== "start") continue;
    keys.set(job as string, (keys.get(job as string) ?? new Set()).add(key as string));
  }
  for (const [job, seen] of keys) expect(seen.size, `${job} has one idempotency key`).toBe(1);
}

describe("killed at random moments, twelve runs in one process (SQLite)", () => {
  let dir: string;
  let store: SqliteRunStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentrx-random-kill-"));
    store = new SqliteRunStore({ path: join(dir, "runs.db") });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const seed of [1]) {
    it(`seed ${seed}: every started call's action recorded at each kill, nothing recorded done again, no run lost`, async () => {
      await randomCrashLoop(store, { kind: "sqlite", path: join(dir, "runs.db") }, dir, seed);
    }, 180_000);
  }
});

const database: PostgresTestDatabase = await postgresTestDatabase("killed at random moments (PostgreSQL)");

describe.skipIf(database.skip)("killed at random moments, twelve runs in one process (PostgreSQL)", () => {
  let store: PostgresRunStore;
  let dir: string;
  beforeAll(() => {
    database.assertReachable();
    dir = mkdtempSync(join(tmpdir(), "agentrx-random-kill-pg-"));
    store = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
  });
  afterAll(async () => {
    await store?.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("seed 2: every started call's action recorded at each kill, nothing recorded done again, no run lost", async () => {
    await randomCrashLoop(store, { kind: "postgres", connectionString: database.connectionString, schema: database.schema }, dir, 2);
  }, 180_000);
});
