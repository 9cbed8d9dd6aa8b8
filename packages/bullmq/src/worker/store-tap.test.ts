import { RunLeaseLostError, RunStoreError, type RunStore, type RunWrite } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { describe, expect, it } from "vitest";
import { tapStore } from "./store-tap";

/** A store whose writes fail with `error`. */
function failingStore(error: Error): RunStore {
  const store = new MemoryRunStore();
  return new Proxy(store, {
    get: (target, name, receiver) => (name === "write" ? async () => Promise.reject(error) : Reflect.get(target, name, receiver)),
  });
}

const write = (release: boolean): RunWrite => ({ owner: "w1", leaseMs: 1000, events: [], at: Date.now(), ...(release ? { update: { release: true } } : {}) });

async function isSettled(promise: Promise<void>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe("tapStore", () => {
  it("reports released when a write that gives up the lease was attempted, even when it failed", async () => {
    const tap = tapStore(failingStore(new RunStoreError({ name: "RunStoreError", operation: "write", runId: "r1", message: "down" })), { written: () => undefined });
    await expect(tap.store.write("r1", write(false))).rejects.toThrow(/down/);
    expect(await isSettled(tap.released)).toBe(false); // an ordinary failure: the run may still release
    await expect(tap.store.write("r1", write(true))).rejects.toThrow(/down/);
    expect(await isSettled(tap.released)).toBe(true);
  });

  it("reports released when a write is refused because the lease is gone: the run writes nothing more", async () => {
    const tap = tapStore(failingStore(new RunLeaseLostError({ runId: "r1", owner: "w1", epoch: 1, message: "The run was cancelled." })), { written: () => undefined });
    await expect(tap.store.write("r1", write(false))).rejects.toThrow(/cancelled/);
    expect(await isSettled(tap.released)).toBe(true);
  });

  it("answers the first getRun of the run the worker has just read with that read, once; every other read goes to the store", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1 });
    await store.createRun({ runId: "r2", inputs: {}, status: "queued", at: 1 });
    const known = await store.getRun("r1");
    let reads = 0;
    const counting = new Proxy(store, {
      get: (target, name, receiver) => (name === "getRun" ? (runId: string) => (reads++, target.getRun(runId)) : Reflect.get(target, name, receiver)),
    });
    const tap = tapStore(counting, { written: () => undefined, ...(known ? { known } : {}) });
    expect(await tap.store.getRun("r2")).toMatchObject({ runId: "r2" }); // another run: read
    expect(reads).toBe(1);
    expect(await tap.store.getRun("r1")).toEqual(known);
    expect(reads).toBe(1);
    await store.cancelRun("r1", { reason: "stop", at: 2 });
    expect(await tap.store.getRun("r1")).toMatchObject({ runId: "r1", status: "cancelled" }); // the next read is the store's
    expect(reads).toBe(2);
  });
});
