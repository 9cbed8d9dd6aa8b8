import type { RunInfo } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { RunStoppedError } from "../errors/run-stopped-error";
import { type ReconcileRunContext, queuedAtEpoch, reconcileRun } from "./reconcile-run";

const NOW = 1_000_000;

function run(overrides: Partial<RunInfo>): RunInfo {
  return { runId: "r1", status: "queued", inputs: {}, createdAt: NOW - 5000, updatedAt: NOW - 5000, eventCount: 0, metadata: { executor: "double" }, ...overrides };
}

/** A context whose latest job is in `state`; it records what reconciling did. */
function context(state: string, failedReason?: string, epoch?: number, cancel?: { settled: boolean }) {
  const calls: string[] = [];
  const fake: ReconcileRunContext = {
    latestJob: async (runId) => (calls.push(`latestJob ${runId}`), { state, ...(failedReason === undefined ? {} : { failedReason }), ...(epoch === undefined ? {} : { epoch }) }),
    cancelPending: async (runId) => (calls.push(`cancelPending ${runId}`), cancel !== undefined),
    settleCancel: async (info) => (calls.push(`settleCancel ${info.runId}`), cancel?.settled ?? false),
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
      expect(calls).toEqual(["cancelPending r1", "latestJob r1"]);
    }
  });

  it("queues a resume when the job is gone or completed while the run still waits, also for a run whose lease expired", async () => {
    for (const [state, info] of [["unknown", run({})], ["completed", run({})], ["unknown", run({ status: "running", owner: "dead", leaseExpiresAt: NOW - 1 })]] as const) {
      const { fake, calls } = context(state);
      expect(await reconcileRun(fake, info, NOW)).toBe("requeued");
      expect(calls).toEqual(["cancelPending r1", "latestJob r1", "queueResume r1 double"]);
    }
  });

  it("gives up a run whose job failed, or whose record names no executor", async () => {
    const failed = context("failed", "the store was unreachable");
    await expect(reconcileRun(failed.fake, run({}), NOW)).rejects.toThrow("Its job failed before the run could go on: the store was unreachable.");
    const orphan = context("unknown");
    await expect(reconcileRun(orphan.fake, run({ metadata: {} }), NOW)).rejects.toThrow(/names no executor/);
    expect(orphan.calls.some((call) => call.startsWith("queueResume"))).toBe(false);
  });

  it("says the run went on before its job failed when a worker took it after the job was queued (its epoch moved on)", async () => {
    const crashed = { status: "running", owner: "w", leaseExpiresAt: NOW - 1 } as const;
    // The start job (queued at epoch 1) of a run a worker claimed (epoch 2): it failed mid-run and its end was not recorded.
    const afterStart = context("failed", "the database went away", 1);
    await expect(reconcileRun(afterStart.fake, run({ ...crashed, epoch: 2, eventCount: 6 }), NOW)).rejects.toThrow(
      "Its job failed after a worker took the run, and the run's end was not recorded: the database went away.",
    );
    // A resume job of that crashed run (queued at epoch 2) that failed before any worker could claim it.
    const beforeStart = context("failed", "the store was unreachable.", 2); // one full stop, not two
    await expect(reconcileRun(beforeStart.fake, run({ ...crashed, epoch: 2, eventCount: 6 }), NOW)).rejects.toThrow(/^Its job failed before the run could go on: the store was unreachable\.$/);
    // A run handed back on close() (queued, claimed before) waits to go on: its job failed before that.
    const handedBack = context("failed", "the store was unreachable", 1);
    await expect(reconcileRun(handedBack.fake, run({ epoch: 2, eventCount: 6 }), NOW)).rejects.toThrow("Its job failed before the run could go on: the store was unreachable.");
    // No epochs to compare (a store without them): a running record is a worker's.
    const noEpochs = context("failed", "job stalled more than allowable limit");
    await expect(reconcileRun(noEpochs.fake, run(crashed), NOW)).rejects.toThrow(/^Its job failed after a worker took the run, .*: job stalled more than allowable limit\.$/);
  });

  it("records a cancel that waits for a stranded run (its worker gone) instead of queuing it again or waiting for a worker", async () => {
    for (const [info, reason] of [
      [run({ status: "running", owner: "dead", leaseExpiresAt: NOW - 1, eventCount: 4 }), /after the worker running it stopped \(its lease had expired\)/],
      [run({}), /before a worker started it/],
    ] as const) {
      const { fake, calls } = context("active", undefined, undefined, { settled: true });
      const error = await reconcileRun(fake, info, NOW).catch((caught: unknown) => caught);
      expect(RunStoppedError.isInstance(error) && error.status).toBe("cancelled");
      expect((error as RunStoppedError).reason).toMatch(reason);
      expect(calls).toEqual(["cancelPending r1", "settleCancel r1"]);
    }
    // Taken by a worker meanwhile (it sees the cancel), or ended: left to its record.
    const taken = context("active", undefined, undefined, { settled: false });
    expect(await reconcileRun(taken.fake, run({ status: "running", owner: "dead", leaseExpiresAt: NOW - 1 }), NOW)).toBe("waiting");
    // A run whose lease is live is not stranded: its worker (if alive) has the cancel.
    const live = context("active", undefined, undefined, { settled: true });
    expect(await reconcileRun(live.fake, run({ status: "running", owner: "w", leaseExpiresAt: NOW + 1 }), NOW)).toBe("waiting");
    expect(live.calls).toEqual([]);
  });

  it("reads the epoch a job was queued at: 1 for a start job (a new run), the resume's own, else unknown", () => {
    expect(queuedAtEpoch({ kind: "start", runId: "r1", executor: "double" })).toBe(1);
    expect(queuedAtEpoch({ kind: "resume", runId: "r1", executor: "double", epoch: 4 })).toBe(4);
    expect(queuedAtEpoch({ kind: "resume", runId: "r1", executor: "double" })).toBeUndefined();
    expect(queuedAtEpoch(null)).toBeUndefined();
  });
});
