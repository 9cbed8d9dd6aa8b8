import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunStore } from "@agentrx/executors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../sqlite/index";
import { childScript } from "../../../../test/support/child-script";
import { type KillCases, describeKillTests } from "./durable-kill-harness";

const CHILD = await childScript(fileURLToPath(new URL("./kill-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url)); // its tsconfig maps @agentrx/* to sources
const JOBS = ["t0-0", "t0-1", "t1-0", "t1-1", "t2-0", "t2-1"];

type Target = { kind: "sqlite"; path: string } | { kind: "postgres"; connectionString: string; schema: string };

const childArgs = (mode: "run" | "resume", runId: string, effects: string, store: Target) => [CHILD, JSON.stringify({ mode, runId, effects, store })];

function lines(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

/** Runs one segment and SIGKILLs it at the `killAt`-th tool start: resolves with the job it was killed at. */
function killAtToolStart(mode: "run" | "resume", runId: string, effects: string, target: Target, killAt: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, childArgs(mode, runId, effects, target), { cwd: ROOT, stdio: ["ignore", "ignore", "pipe", "ipc"] });
    let starts = 0;
    let killedAt: string | undefined;
    let stderr = "";
    child.stderr?.on("data", (chunk) => (stderr += String(chunk)));
    child.on("message", (message: { started?: string }) => {
      if (message.started === undefined || killedAt !== undefined) return;
      if (++starts === killAt) {
        killedAt = message.started;
        child.kill("SIGKILL"); // the tool's first line ran: the worst moment
      }
    });
    child.once("exit", (code) => (killedAt !== undefined || code === 0 ? resolve(killedAt) : reject(new Error(`the ${mode} child exited with ${code}: ${stderr}`))));
  });
}

function resumeToEnd(runId: string, effects: string, target: Target): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, childArgs("resume", runId, effects, target), { cwd: ROOT, timeout: 60_000 }, (error, out, err) =>
      error ? reject(new Error(`${error.message}\n${err}`)) : resolve(JSON.parse(out).output),
    ),
  );
}

/**
 * A crash loop: a run of three turns of two tools is killed at a tool's first line, again and
 * again (at a different start each time), then resumed to its end. Each kill must find the killed
 * call's action in the store; no call whose result was recorded runs again; the agent is never
 * asked again for a turn whose actions were recorded; a call run again keeps its idempotency key.
 */
async function crashLoop(store: RunStore, target: Target, dir: string, killPlan: number[]): Promise<void> {
  const runId = `kill-${Math.random().toString(36).slice(2, 8)}`;
  const effects = join(dir, `${runId}.log`);
  const forbiddenStarts = new Set<string>();
  const forbiddenAgentTurns = new Set<number>();
  let mode: "run" | "resume" = "run";
  for (const killAt of killPlan) {
    const seenLines = lines(effects).length;
    const killedAt = await killAtToolStart(mode, runId, effects, target, killAt);
    if (killedAt === undefined) break; // the run ended before that many starts
    const events = await store.readEvents(runId);
    const actions = events.filter((event) => event.data["type"] === "action").map((event) => JSON.stringify(event.data["action"]));
    expect(actions.some((action) => action.includes(`"${killedAt}"`)), `the action of ${killedAt} is in the store when its tool starts`).toBe(true);
    // This segment did nothing that was recorded before it started.
    for (const line of lines(effects).slice(seenLines)) {
      const [kind, what] = line.split(" ");
      if (kind === "start") expect(forbiddenStarts.has(what as string), `${what} started again after its result was recorded`).toBe(false);
      if (kind === "agent") expect(forbiddenAgentTurns.has(Number(what)), `the agent was asked again for recorded turn ${what}`).toBe(false);
    }
    // What is recorded now must never be done again.
    for (const event of events) {
      if (event.data["type"] === "step" && typeof event.data["index"] === "number") forbiddenStarts.add(`t${event.data["iteration"]}-${event.data["index"]}`);
      if (event.data["type"] === "action") forbiddenAgentTurns.add(Number(event.data["iteration"]));
    }
    mode = "resume";
  }
  const before = lines(effects).length;
  expect(await resumeToEnd(runId, effects, target)).toBe(JOBS.map((job) => `${job} ok`).join(", "));
  const after = lines(effects).slice(before);
  for (const line of after) {
    const [kind, what] = line.split(" ");
    if (kind === "start") expect(forbiddenStarts.has(what as string), `${what} started again after its result was recorded`).toBe(false);
    if (kind === "agent") expect(forbiddenAgentTurns.has(Number(what)), `the agent was asked again for recorded turn ${what}`).toBe(false);
  }
  // A call that ran more than once (it was in doubt) kept its idempotency key.
  const all = lines(effects);
  for (const job of JOBS) {
    const keys = new Set(all.filter((line) => line.startsWith(`start ${job} `)).map((line) => line.split(" ")[2]));
    expect(keys.size, `${job} has one idempotency key`).toBe(1);
  }
  expect((await store.getRun(runId))?.status).toBe("finished");
}

/** Kill plans: which tool start of each segment to kill at (the loop walks through them). */
const PLANS = [[1], [2, 1], [3, 2, 1], [1, 1, 1, 1], [5, 2]];

/** One test per kill plan: the crash loop over the setup's store. */
const killPlans = (plans: number[][]): KillCases =>
  plans.map((plan) => (setup) => {
    it(`kills at starts ${plan.join(", ")}: the action is always recorded, nothing recorded runs again`, async () => {
      const { store, target, dir } = setup();
      await crashLoop(store, target, dir, plan);
    }, 120_000);
  });

await describeKillTests("killed at a tool's first line", { sqlite: killPlans(PLANS), postgres: killPlans(PLANS.slice(0, 3)) });

/**
 * Many runs in one process, started at once: their writes share SQLite commits (the first of a
 * turn of the event loop at once, the others together at its end). Killed at its `killAt`-th tool
 * start, the process must have the killed call's action in the store, whichever run it was.
 */
function killOneOfMany(target: Target, runId: string, effects: string, runs: number, killAt: number): Promise<{ job: string; key: string } | undefined> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, JSON.stringify({ mode: "run", runId, effects, store: target, runs })], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe", "ipc"] });
    let starts = 0;
    let killed: { job: string; key: string } | undefined;
    let stderr = "";
    child.stderr?.on("data", (chunk) => (stderr += String(chunk)));
    child.on("message", (message: { started?: string; key?: string }) => {
      if (message.started === undefined || killed !== undefined || ++starts !== killAt) return;
      killed = { job: message.started, key: String(message.key) };
      child.kill("SIGKILL");
    });
    child.once("exit", (code) => (killed !== undefined || code === 0 ? resolve(killed) : reject(new Error(`the child exited with ${code}: ${stderr}`))));
  });
}

describe("killed at a tool's first line, one of many runs sharing SQLite commits", () => {
  let dir: string;
  let store: SqliteRunStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentrx-kill-many-"));
    store = new SqliteRunStore({ path: join(dir, "runs.db") });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds the killed call's action in the store, at starts in the first, second and third turns of 20 runs", async () => {
    const target: Target = { kind: "sqlite", path: join(dir, "runs.db") };
    for (const killAt of [1, 13, 58, 101]) {
      const prefix = `many-${killAt}`;
      const killed = await killOneOfMany(target, prefix, join(dir, `${prefix}.log`), 20, killAt);
      expect(killed, `the process reached tool start ${killAt}`).toBeDefined();
      // A job is named `<runId>/t<turn>-<i>`: which of the runs the killed call belongs to.
      const runId = killed!.job.slice(0, killed!.job.indexOf("/"));
      expect(runId.startsWith(`${prefix}-`)).toBe(true);
      const actions = (await store.readEvents(runId)).filter((event) => event.data["type"] === "action").map((event) => JSON.stringify(event.data["action"]));
      expect(actions.some((action) => action.includes(`"${killed!.job}"`)), `the action of ${killed!.job} of ${runId} is in the store when its tool starts`).toBe(true);
    }
  }, 120_000);
});
