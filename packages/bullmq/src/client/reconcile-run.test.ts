import type { RunInfo } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { type ReconcileRunContext, reconcileRun } from "./reconcile-run";

const NOW = 1_000_000;

function run(overrides: Partial<RunInfo>): RunInfo {
  return { runId: "r1", status: "queued", inputs: {}, createdAt: NOW - 5000, updatedAt: NOW - 5000, eventCount: 0, metadata: { executor: "double" }, ...overrides };
}

/** A context whose latest job is in `state`; it records what reconciling did. */
function context(state: string, failedReason?: string) {
  const calls: string[] = [];
  const fake: ReconcileRunContext = {
    latestJob: async (runId) => (calls.push(`latestJob ${runId}`), { state, ...(failedReason === undefined ? {} : { failedReason }) }),
    queueResume: async (runId, executor) => void calls.push(`queueResume ${runId} ${executor}`),
    giveUp: async (runId, reason) => {
      calls.push(`giveUp ${runId}: ${reason}`);
      throw new Error(reason);
    },
  };
  return { fake, calls };
}

describe("reconcileRun", () => {
  it("leaves alone a run queued under a second ago and a running run whose lease is live, without asking Redis", async () => {
    for (const info of [run({ updatedAt: NOW - 999 }), run({ status: "running", owner: "w", leaseExpiresAt: NOW + 1 })]) {
      const { fake, calls } = context("unknown");
      expect(await reconcileRun(fake, info, NOW)).toBe("waiting");
      expect(calls).toEqual([]);
    }
  });

  it("waits for a job that will still run", async () => {
    for (const state of ["waiting", "delayed", "active", "prioritized", "waiting-children"]) {
      const { fake, calls } = context(state);
      expect(await reconcileRun(fake, run({}), NOW)).toBe("waiting");
      expect(calls).toEqual(["latestJob r1"]);
    }
  });

  it("queues a resume when the job is gone or completed while the run still waits, also for a run whose lease expired", async () => {
    for (const [state, info] of [["unknown", run({})], ["completed", run({})], ["unknown", run({ status: "running", owner: "dead", leaseExpiresAt: NOW - 1 })]] as const) {
      const { fake, calls } = context(state);
      expect(await reconcileRun(fake, info, NOW)).toBe("requeued");
      expect(calls).toEqual(["latestJob r1", "queueResume r1 double"]);
    }
  });

  it("gives up a run whose job failed, or whose record names no executor", async () => {
    const failed = context("failed", "the store was unreachable");
    await expect(reconcileRun(failed.fake, run({}), NOW)).rejects.toThrow("Its job failed before the run could go on: the store was unreachable.");
    const orphan = context("unknown");
    await expect(reconcileRun(orphan.fake, run({ metadata: {} }), NOW)).rejects.toThrow(/names no executor/);
    expect(orphan.calls.some((call) => call.startsWith("queueResume"))).toBe(false);
  });
});
