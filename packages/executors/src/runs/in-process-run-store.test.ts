import { describe, expect, it } from "vitest";
import { RunLeaseLostError } from "./run-store-errors";
import { InProcessRunStore } from "./in-process-run-store";

describe("InProcessRunStore", () => {
  it("creates runs at epoch 1, raises the epoch at every claim, and refuses a write with a stale one", async () => {
    const store = new InProcessRunStore();
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "a", leaseMs: 10, forkOf: { runId: "r0", iteration: 1 }, at: 1 });
    expect(await store.getRun("r1")).toMatchObject({ epoch: 1, forkOf: { runId: "r0", iteration: 1 } });
    const claimed = await store.claimRun("r1", { owner: "a", leaseMs: 1000, at: 2 });
    expect(claimed.epoch).toBe(2);
    const stale = await store.write("r1", { owner: "a", leaseMs: 1000, epoch: 1, events: [{ seq: 1, type: "start", at: 3, data: {} }], at: 3 }).catch((error: unknown) => error);
    expect(RunLeaseLostError.isInstance(stale) && stale.epoch).toBe(1);
    expect(await store.readEvents("r1")).toEqual([]);
    await store.write("r1", { owner: "a", leaseMs: 1000, epoch: 2, events: [{ seq: 1, type: "start", at: 4, data: {} }], at: 4 });
    expect(await store.getRun("r1")).toMatchObject({ eventCount: 1, epoch: 2 });
    expect((await store.listRuns()).map((run) => run.forkOf)).toEqual([{ runId: "r0", iteration: 1 }]);
  });

  it("lists by threadId, status and limit, and refuses a filter it would otherwise ignore, naming it", async () => {
    const store = new InProcessRunStore();
    await store.createRun({ runId: "a", threadId: "t", inputs: { input: "alpha" }, status: "running", at: 1 });
    await store.createRun({ runId: "b", inputs: { input: "beta" }, status: "queued", at: 2 });
    expect((await store.listRuns({ threadId: "t" })).map((run) => run.runId)).toEqual(["a"]);
    expect((await store.listRuns({ status: ["queued"], limit: 5 })).map((run) => run.runId)).toEqual(["b"]);
    await expect(store.listRuns({ search: "alpha" })).rejects.toThrow(/lists runs by threadId, status and limit only, not by search: give the executor a MemoryRunStore/);
    await expect(store.listRuns({ sort: "cost", cursor: "x" })).rejects.toThrow(/not by sort, cursor/);
    await expect(store.listRuns({ search: undefined })).resolves.toHaveLength(2);
  });
});


describe("InProcessRunStore: ended runs kept", () => {
  /** Creates run `runId` running (owner "w") at `at`; `end` writes it `status` at `at + 1`. */
  const start = async (store: InProcessRunStore, runId: string, at: number) => {
    await store.createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: 1000, at });
    return (status: "finished" | "failed" | "cancelled" | "interrupted") =>
      store.write(runId, { owner: "w", leaseMs: 1000, events: [{ seq: 1, type: "start", at: at + 1, data: {} }], update: { status, release: true }, at: at + 1 });
  };
  const ids = async (store: InProcessRunStore) => (await store.listRuns()).map((run) => run.runId).sort();

  it("keeps the last maxEndedRuns ended runs, dropping the one that ended longest ago; never a paused or running one", async () => {
    const store = new InProcessRunStore({ maxEndedRuns: 2 });
    const endA = await start(store, "a", 1);
    const endPaused = await start(store, "paused", 2);
    const endB = await start(store, "b", 3);
    await start(store, "running", 4);
    await endPaused("interrupted");
    await endB("failed"); // b ends before a, though it started after it
    await endA("finished");
    expect(await ids(store)).toEqual(["a", "b", "paused", "running"]);
    const endC = await start(store, "c", 5);
    await endC("cancelled");
    // b ended longest ago: dropped with its events; the paused and the running run stay.
    expect(await ids(store)).toEqual(["a", "c", "paused", "running"]);
    expect(await store.getRun("b")).toBeUndefined();
    expect(await store.readEvents("b")).toEqual([]);
    expect(await store.getRun("paused")).toMatchObject({ status: "interrupted", eventCount: 1 });
    expect(await store.readEvents("paused")).toHaveLength(1);
  });

  it("counts a run resumed after it ended (claimed again) as ended only when it ends again", async () => {
    const store = new InProcessRunStore({ maxEndedRuns: 2 });
    await (await start(store, "a", 1))("failed");
    await (await start(store, "b", 2))("finished");
    await store.claimRun("a", { owner: "w", leaseMs: 1000, at: 3 });
    await (await start(store, "c", 4))("finished");
    await (await start(store, "d", 5))("finished");
    // a runs again, so it is not among the ended: b, which ended longest ago, went; a stays.
    expect(await ids(store)).toEqual(["a", "c", "d"]);
    expect(await store.getRun("a")).toMatchObject({ status: "running" });
    await store.write("a", { owner: "w", leaseMs: 1000, events: [{ seq: 2, type: "finish", at: 6, data: {} }], update: { status: "finished", release: true }, at: 6 });
    // Ended again, a is the one that ended last: c went.
    expect(await ids(store)).toEqual(["a", "d"]);
  });

  it("keeps 1,000 by default, and every one with Infinity; a count that is not a positive integer is refused, naming it", async () => {
    const store = new InProcessRunStore();
    for (let i = 0; i < 1001; i++) await (await start(store, `r${i}`, i))("finished");
    expect(await store.getRun("r0")).toBeUndefined();
    expect(await store.getRun("r1")).toMatchObject({ status: "finished" });
    expect(await store.listRuns({ limit: 2000 })).toHaveLength(1000);
    const all = new InProcessRunStore({ maxEndedRuns: Infinity });
    for (let i = 0; i < 1001; i++) await (await start(all, `r${i}`, i))("finished");
    expect(await all.listRuns({ limit: 2000 })).toHaveLength(1001);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new InProcessRunStore({ maxEndedRuns: bad })).toThrow(`InProcessRunStore: maxEndedRuns must be a positive integer or Infinity, got ${String(bad)}.`);
    }
    expect(() => new InProcessRunStore({ maxEnded: 3 } as never)).toThrow(/unknown option `maxEnded`/);
  });
});
