import { MemoryRunStore } from "@agentrx/runs";
import { describe, expect, it } from "vitest";
import { cancelReason, settleRun } from "./settle-run";

describe("cancelReason", () => {
  it("says how the run stood when it was cancelled: it may have run before", () => {
    expect(cancelReason({ status: "queued", eventCount: 0 })).toBe("The run was cancelled (RunClient.cancel) before a worker started it.");
    expect(cancelReason(undefined)).toBe("The run was cancelled (RunClient.cancel) before a worker started it.");
    // A queued resume (after a pause, a cancel or a failure) has run before.
    expect(cancelReason({ status: "queued", eventCount: 12 })).toBe("The run was cancelled (RunClient.cancel) before a worker resumed it.");
    expect(cancelReason({ status: "interrupted", eventCount: 9 })).toMatch(/while it was paused for approval\.$/);
    expect(cancelReason({ status: "running", eventCount: 4 })).toMatch(/after the worker running it stopped \(its lease had expired\)\.$/);
    // Its worker gone from Redis while its lease still ran (the store fenced the lease holder out).
    expect(cancelReason({ status: "running", eventCount: 4 }, { workerGone: true })).toMatch(/after the worker running it stopped \(it left Redis before its lease expired\)\.$/);
  });
});

describe("settleRun", () => {
  it("gives back a run another process ended between its read and its claim with that process's status and error", async () => {
    const inner = new MemoryRunStore();
    const at = Date.now() - 60_000;
    await inner.createRun({ runId: "r", inputs: {}, status: "running", owner: "dead-worker", leaseMs: 10, at });
    // Another process cancels the run right after settleRun read it (still running).
    let read = false;
    const store = new Proxy(inner, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name === "getRun") {
          return async (runId: string) => {
            const info = await target.getRun(runId);
            if (!read) {
              read = true;
              await target.cancelRun!(runId, { reason: "Cancelled by the client.", at: Date.now() });
            }
            return info;
          };
        }
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    expect(await settleRun(store, "r", "worker-2", "cancelled", "The worker found a cancel.")).toBe(false);
    const after = await inner.getRun("r");
    expect(after).toMatchObject({ status: "cancelled", error: "Cancelled by the client." });
    expect(after?.owner).toBeUndefined();
  });

  it("cancels through the store's cancelRun (which cancels the run's paused sub-runs too), and with a write in a store without one", async () => {
    const cancels: string[] = [];
    const withCancel = new MemoryRunStore();
    const spied = new Proxy(withCancel, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name === "cancelRun") return async (runId: string, cancel: { reason: string; at: number }) => (cancels.push(runId), target.cancelRun(runId, cancel));
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    await withCancel.createRun({ runId: "first", inputs: {}, status: "queued", at: Date.now() });
    expect(await settleRun(spied, "first", "client-1", "cancelled", "Cancelled before it ran.")).toBe(true);
    expect(cancels).toEqual(["first"]);
    expect(await withCancel.getRun("first")).toMatchObject({ status: "cancelled", error: "Cancelled before it ran." });
    expect((await withCancel.getRun("first"))?.owner).toBeUndefined();

    const inner = new MemoryRunStore();
    const without = new Proxy(inner, {
      get(target, name, receiver) {
        if (name === "cancelRun") return undefined;
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    await inner.createRun({ runId: "queued", inputs: {}, status: "queued", at: Date.now() });
    expect(await settleRun(without, "queued", "client-1", "cancelled", "Cancelled before it started.")).toBe(true);
    expect(await inner.getRun("queued")).toMatchObject({ status: "cancelled", error: "Cancelled before it started." });
    expect((await inner.getRun("queued"))?.owner).toBeUndefined();
  });
});
