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
});
