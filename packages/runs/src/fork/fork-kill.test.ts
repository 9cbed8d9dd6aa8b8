// AgentExecutor.fork under SIGKILL: a fork whose process dies while it is made either does not
// exist or resumes from its copied prefix (never re-copied, never asked of the model again); a
// fork's call in doubt pauses or takes a person's result; the source run is never changed, and a
// run still going on in another process can be forked from its recorded turns.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor, RunStoreError, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/index";
import { SqliteRunStore } from "../sqlite/index";
import type { ChildStoreTarget } from "../recording/child-store";
import { type ChildArgs, effects, modelCalls, run, start } from "../recording/durable-kill-harness";

const id = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

/** The jobs whose tool call the child labelled `label` started. */
const started = (dir: string, label: string) => effects(dir, label).filter((line) => line.startsWith("start ")).map((line) => line.split(" ")[1]);

/** A record's events without what differs between a source and its copy (seq, run ids). */
function comparable(events: readonly StoredRunEvent[]): unknown[] {
  return events.map(({ type, data }) => {
    const { runId: _runId, inputs: _inputs, forkOf: _forkOf, resumed: _resumed, ...rest } = data;
    return { type, ...rest };
  });
}

/** The source's events a fork at `at` copies: its turns before `at`, none of its segment or end events. */
function prefixOf(source: readonly StoredRunEvent[], at: number): StoredRunEvent[] {
  return source.filter(({ data, seq }) => (data["type"] === "start" ? seq === 1 : typeof data["iteration"] === "number" && data["iteration"] < at && data["type"] !== "output"));
}

/**
 * The fork's record: its copy of the source's prefix once, then its own segment's `start` (with
 * `forkOf`, `resumed: true`), then only what it did live (a resumed segment's `start` has no
 * `forkOf`), numbered without a gap.
 */
async function copiedOnce(store: RunStore, forkId: string, source: readonly StoredRunEvent[], at: number): Promise<StoredRunEvent[]> {
  const events = await store.readEvents(forkId);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
  const prefix = prefixOf(source, at);
  expect(comparable(events.slice(0, prefix.length))).toEqual(comparable(prefix));
  expect(events[0]?.data["forkOf"]).toEqual({ runId: source[0]?.data["runId"], iteration: at });
  expect(events[prefix.length]?.data).toMatchObject({ type: "start", resumed: true, forkOf: { runId: source[0]?.data["runId"], iteration: at } });
  // Nothing of the prefix again: no other start with `forkOf`, no event of a copied iteration after the copy.
  const live = events.slice(prefix.length + 1);
  expect(live.filter((event) => event.data["forkOf"] !== undefined)).toEqual([]);
  expect(live.filter((event) => typeof event.data["iteration"] === "number" && (event.data["iteration"] as number) < at && event.type !== "message")).toEqual([]);
  return events;
}

describe("fork killed at the worst moments (SQLite)", () => {
  let dir: string;
  let store: SqliteRunStore;
  let target: ChildStoreTarget;
  const sourceId = id("source");
  let source: StoredRunEvent[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentrx-fork-kill-"));
    store = new SqliteRunStore({ path: join(dir, "runs.db") });
    target = { kind: "sqlite", path: join(dir, "runs.db") };
    expect(await run({ store: target, runId: sourceId, dir, mode: "run", label: "source" })).toMatchObject({ output: "j0 ok, j1 ok; told: nothing" });
    source = await store.readEvents(sourceId);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const fork = (forkId: string, label: string, rest: Partial<ChildArgs> = {}): ChildArgs => ({ store: target, runId: forkId, dir, mode: "fork", label, fork: { sourceId, at: 1 }, ...rest });

  it("killed after the fork's run was created, before its copy was written: resume deletes it and says so, running nothing; forked again, it goes on from the copy", async () => {
    const forkId = id("fork-unmade");
    const making = start(fork(forkId, `${forkId}-a`, { blocks: ["fork-copy"] }));
    try {
      expect(await making.reached("fork-copy")).toMatchObject({ forkCopy: forkId, created: true });
      expect(await store.getRun(forkId)).toMatchObject({ status: "running", eventCount: 0, forkOf: { runId: sourceId, iteration: 1 } });
    } finally {
      await making.kill();
    }

    const resumed = await run({ store: target, runId: forkId, dir, mode: "resume", label: `${forkId}-b` });
    expect(resumed).toMatchObject({ error: "RunStoreError" });
    expect(resumed["message"]).toContain(`run "${forkId}" is a fork of run "${sourceId}" (at iteration 1) whose copy of the source's record was never written`);
    expect(resumed["message"]).toContain(`it has been deleted: fork run "${sourceId}" again`);
    expect(modelCalls(dir, `${forkId}-b`)).toEqual([]);
    expect(started(dir, `${forkId}-b`)).toEqual([]);
    expect(await store.getRun(forkId)).toBeUndefined();

    expect(await run(fork(forkId, `${forkId}-c`))).toMatchObject({ output: "j0 ok, j1 ok; told: nothing", stopReason: "finish" });
    expect(modelCalls(dir, `${forkId}-c`)).toEqual([
      { results: ["j0 ok"], told: [] },
      { results: ["j0 ok", "j1 ok"], told: [] },
    ]);
    expect(started(dir, `${forkId}-c`)).toEqual(["j1"]);
    await copiedOnce(store, forkId, source, 1);
  }, 60_000);

  it("killed after its copy was written, at its first live model call: resumed, it goes on from the copy, which is neither copied again nor asked of the model", async () => {
    const forkId = id("fork-copied");
    const making = start(fork(forkId, `${forkId}-a`, { blocks: ["model:0"] }));
    try {
      expect(await making.reached("model:0")).toEqual({ model: 0, results: ["j0 ok"], told: [] });
      // The copy, and the start of the fork's own segment: nothing else was written before the model call.
      const copy = await store.readEvents(forkId);
      expect(comparable(copy.slice(0, -1))).toEqual(comparable(prefixOf(source, 1)));
      expect(copy.at(-1)?.data).toMatchObject({ type: "start", resumed: true });
    } finally {
      await making.kill();
    }

    const b = `${forkId}-b`;
    expect(await run({ store: target, runId: forkId, dir, mode: "resume", label: b })).toMatchObject({ output: "j0 ok, j1 ok; told: nothing", stopReason: "finish" });
    expect(modelCalls(dir, b)).toEqual([
      { results: ["j0 ok"], told: [] },
      { results: ["j0 ok", "j1 ok"], told: [] },
    ]);
    expect([started(dir, `${forkId}-a`), started(dir, b)]).toEqual([[], ["j1"]]);
    const events = await copiedOnce(store, forkId, source, 1);
    expect(events.filter((event) => event.type === "start").map((event) => [event.data["resumed"], event.data["forkOf"] !== undefined])).toEqual([
      [false, true],
      [true, true],
      [true, false],
    ]);
  }, 60_000);

  it('killed during a tool of the fork: inDoubt "interrupt" pauses it (in_doubt); a supplied result lets it go on, the call never run again', async () => {
    const forkId = id("fork-doubt");
    const making = start(fork(forkId, `${forkId}-a`, { blocks: ["tool:j1"] }));
    try {
      await making.reached("tool:j1");
    } finally {
      await making.kill();
    }

    const paused = await run({ store: target, runId: forkId, dir, mode: "resume", label: `${forkId}-b`, inDoubt: "interrupt" });
    expect(paused).toMatchObject({ stopReason: "interrupted", interrupts: [{ reason: "in_doubt", tool: "work", toolInput: { job: "j1" } }] });
    const interruptId = (paused["interrupts"] as { id: string }[])[0]?.id as string;
    const done = await run({ store: target, runId: forkId, dir, mode: "resume", label: `${forkId}-c`, decisions: { [interruptId]: { type: "result", observation: "j1 checked by hand" } } });
    expect(done).toMatchObject({ output: "j0 ok, j1 checked by hand; told: nothing", stopReason: "finish" });
    expect([`${forkId}-a`, `${forkId}-b`, `${forkId}-c`].map((label) => started(dir, label))).toEqual([["j1"], [], []]);
    expect([`${forkId}-b`, `${forkId}-c`].map((label) => modelCalls(dir, label))).toEqual([[], [{ results: ["j0 ok", "j1 checked by hand"], told: [] }]]);
    await copiedOnce(store, forkId, source, 1);
  }, 60_000);

  it("forks a run that another process is running: from its recorded turns (a later cut is refused); the running source is not changed and finishes", async () => {
    const runningId = id("running");
    const a = `${runningId}-a`;
    const running = start({ store: target, runId: runningId, dir, mode: "run", label: a, blocks: ["tool-wait:j1"] });
    try {
      await running.reached("tool-wait:j1"); // turn 0 recorded; turn 1's action recorded, its tool in flight
      const before = await store.readEvents(runningId);
      const refused = await new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "" }, log: "" })), tools: [], store })
        .fork(runningId, { at: 2 })
        .catch((error: unknown) => error);
      expect(InvalidArgumentError.isInstance(refused)).toBe(true);
      expect((refused as Error).message).toContain("has no complete turn boundary at iteration 2");

      const forkId = id("fork-of-running");
      const f = `${forkId}-f`;
      expect(await run({ store: target, runId: forkId, dir, mode: "fork", label: f, fork: { sourceId: runningId } })).toMatchObject({ output: "j0 ok, j1 ok; told: nothing", stopReason: "finish" });
      expect(modelCalls(dir, f)).toEqual([
        { results: ["j0 ok"], told: [] },
        { results: ["j0 ok", "j1 ok"], told: [] },
      ]);
      expect(started(dir, f)).toEqual(["j1"]);
      await copiedOnce(store, forkId, before, 1);
      expect(await store.readEvents(runningId)).toEqual(before);
      expect(await store.getRun(runningId)).toMatchObject({ status: "running" });

      running.release();
      expect(await running.result()).toMatchObject({ output: "j0 ok, j1 ok; told: nothing", stopReason: "finish" });
      expect(started(dir, a)).toEqual(["j0", "j1"]);
    } finally {
      await running.kill();
    }
  }, 60_000);

  it("never changed the source: whatever was forked from it, and however the forks died, it is as it was recorded", async () => {
    expect(await store.readEvents(sourceId)).toEqual(source);
    expect((await store.getRun(sourceId))?.status).toBe("finished");
  });
});

describe("resume of a fork whose copy was never written (in one process)", () => {
  const agentCalls: unknown[] = [];
  const executor = (store: RunStore) =>
    new AgentExecutor({ agent: RunnableLambda.from((input: unknown) => (agentCalls.push(input), { returnValues: { output: "ran" }, log: "" })), tools: [], store });
  /** A fork's run as a process that died between creating it and writing its copy left it. */
  async function unmadeFork(store: RunStore): Promise<void> {
    await store.createRun({ runId: "fork-1", inputs: { input: "hi" }, status: "running", owner: "dead", leaseMs: 1, forkOf: { runId: "source-1", iteration: 2 }, at: Date.now() - 1000 });
  }

  it("deletes it and rejects naming the source to fork again; nothing runs", async () => {
    const store = new MemoryRunStore();
    await unmadeFork(store);
    const error = await executor(store).resume("fork-1").catch((caught: unknown) => caught);
    expect(RunStoreError.isInstance(error) && error.reason).toBe("corrupt");
    expect((error as Error).message).toBe(
      'AgentExecutor.resume: run "fork-1" is a fork of run "source-1" (at iteration 2) whose copy of the source\'s record was never written: the process that made it stopped between creating the run and writing the copy. Nothing of it ran; it has been deleted: fork run "source-1" again.',
    );
    expect(await store.getRun("fork-1")).toBeUndefined();
    expect(agentCalls).toEqual([]);
  });

  it("when it cannot be deleted: leaves it cancelled, its error saying why, and names the run to delete", async () => {
    const memory = new MemoryRunStore();
    await unmadeFork(memory);
    const store = new Proxy(memory, {
      get(target, name, receiver) {
        if (name === "deleteRun") return () => Promise.reject(new Error("disk full"));
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...rest: unknown[]) => unknown).bind(target) : value;
      },
    });
    const error = await executor(store).resume("fork-1").catch((caught: unknown) => caught);
    expect(RunStoreError.isInstance(error) && error.reason).toBe("corrupt");
    expect((error as Error).message).toContain('and deleting it failed (Run "fork-1": the store\'s deleteRun failed: disk full): delete it with store.deleteRun("fork-1") and fork run "source-1" again.');
    const run = await memory.getRun("fork-1");
    expect(run).toMatchObject({ status: "cancelled", eventCount: 0 });
    expect(run?.owner).toBeUndefined();
    expect(run?.error).toContain("whose copy of the source's record was never written");
    expect(agentCalls).toEqual([]);
  });
});
