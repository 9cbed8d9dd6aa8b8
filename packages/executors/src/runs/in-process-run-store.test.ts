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

