import { InvalidArgumentError } from "@agentrx/core";
import { RunBusyError, RunLeaseLostError, RunNotFoundError, RunStoreError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, someCheckpoint, someEvents, type ConformanceContext } from "./conformance-context";

export function leaseTests(context: ConformanceContext): void {
  const { id, window } = context;
  const store = () => context.store();

  describe("leases and atomic writes", () => {
    it("refuses a claim while another owner's lease is live, then allows its takeover at expiry", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: 1000, at });
      const busy = await rejectionOf(store().claimRun(runId, { owner: "b", leaseMs: 1000, at: at + 999 }));
      expect(RunBusyError.isInstance(busy)).toBe(true);
      expect(RunStoreError.isInstance(busy)).toBe(true);
      expect(busy).toMatchObject({ runId, owner: "a", leaseExpiresAt: at + 1000, operation: "claimRun" });
      expect(await store().getRun(runId)).toMatchObject({ owner: "a", leaseExpiresAt: at + 1000, updatedAt: at });

      const before = await store().claimRun(runId, { owner: "b", leaseMs: 2000, at: at + 1000 });
      expect(before).toMatchObject({ runId, status: "running", owner: "a", leaseExpiresAt: at + 1000, updatedAt: at });
      expect(await store().getRun(runId)).toMatchObject({ status: "running", owner: "b", leaseExpiresAt: at + 3000, updatedAt: at + 1000 });
    });

    it("lets the owner claim again, renewing its lease", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: 1000, at });
      const before = await store().claimRun(runId, { owner: "a", leaseMs: 5000, at: at + 10 });
      expect(before).toMatchObject({ owner: "a", leaseExpiresAt: at + 1000 });
      expect(await store().getRun(runId)).toMatchObject({ owner: "a", leaseExpiresAt: at + 5010 });
    });

    it("claims a run that is not running whatever its lease, and resolves with it as it was", async () => {
      const queued = id();
      const interrupted = id();
      const at = window();
      await store().createRun({ runId: queued, inputs: { q: 1 }, status: "queued", at });
      expect(await store().claimRun(queued, { owner: "worker", leaseMs: 100, at: at + 1 })).toMatchObject({ runId: queued, status: "queued", inputs: { q: 1 } });
      expect(await store().getRun(queued)).toMatchObject({ status: "running", owner: "worker", leaseExpiresAt: at + 101 });

      await store().createRun({ runId: interrupted, inputs: {}, status: "running", owner: "a", leaseMs: 60_000, at });
      await store().write(interrupted, { owner: "a", leaseMs: 60_000, events: someEvents(1, 2, at), update: { status: "interrupted", checkpoint: someCheckpoint(1), release: true }, at: at + 5 });
      const before = await store().claimRun(interrupted, { owner: "b", leaseMs: 1000, at: at + 6 });
      expect(before).toMatchObject({ status: "interrupted", eventCount: 2, checkpoint: someCheckpoint(1) });
      expect(before.owner).toBeUndefined();
      await store().write(interrupted, { owner: "b", leaseMs: 1000, events: someEvents(3, 1, at + 7), update: { status: "finished", release: true }, at: at + 7 });
      expect(await store().getRun(interrupted)).toMatchObject({ status: "finished", eventCount: 3 });
    });

    it("clears a cancelled run's error when it is claimed again (a resume), and resolves with the run as it was", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: 60_000, at });
      await store().write(runId, { owner: "a", leaseMs: 60_000, events: someEvents(1, 1, at), update: { status: "cancelled", error: "The run was cancelled.", release: true }, at: at + 1 });
      const before = await store().claimRun(runId, { owner: "b", leaseMs: 1000, at: at + 2 });
      expect(before).toMatchObject({ status: "cancelled", error: "The run was cancelled." });
      const claimed = await store().getRun(runId);
      expect(claimed).toMatchObject({ status: "running", owner: "b" });
      expect(claimed?.error).toBeUndefined();
      await store().write(runId, { owner: "b", leaseMs: 1000, events: someEvents(2, 1, at + 3), update: { status: "finished", stopReason: "finish", release: true }, at: at + 3 });
      const finished = await store().getRun(runId);
      expect(finished).toMatchObject({ status: "finished", stopReason: "finish" });
      expect(finished?.error).toBeUndefined();
    });

    it("rejects a claim of an unknown run with RunNotFoundError", async () => {
      const runId = id("unknown");
      const error = await rejectionOf(store().claimRun(runId, { owner: "a", leaseMs: 1000, at: window() }));
      expect(RunNotFoundError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ runId, operation: "claimRun" });
    });

    it("refuses a write from a process that does not hold the lease, and applies nothing of it", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: 1000, at });
      await store().write(runId, { owner: "a", leaseMs: 1000, events: someEvents(1, 1, at), at: at + 1 });
      const before = await store().getRun(runId);
      const stranger = await rejectionOf(store().write(runId, { owner: "b", leaseMs: 1000, events: someEvents(2, 1, at), update: { status: "finished" }, at: at + 2 }));
      expect(RunLeaseLostError.isInstance(stranger)).toBe(true);
      expect(stranger).toMatchObject({ runId, owner: "b" });
      expect(await store().getRun(runId)).toEqual(before);

      // a's lease expires; b takes the run over; a's next write is refused.
      await store().claimRun(runId, { owner: "b", leaseMs: 1000, at: at + 5000 });
      const late = await rejectionOf(store().write(runId, { owner: "a", leaseMs: 1000, events: someEvents(2, 1, at), at: at + 5001 }));
      expect(RunLeaseLostError.isInstance(late)).toBe(true);
      expect(await store().readEvents(runId)).toHaveLength(1);

      // After a release nobody holds the lease: the former owner cannot write either.
      await store().write(runId, { owner: "b", leaseMs: 1000, events: [], update: { status: "cancelled", release: true }, at: at + 5002 });
      expect(RunLeaseLostError.isInstance(await rejectionOf(store().write(runId, { owner: "b", leaseMs: 1000, events: [], at: at + 5003 })))).toBe(true);
    });

    it("rejects a write whose first seq repeats or skips one, and applies nothing of it", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: 60_000, at });
      const gapFromStart = await rejectionOf(store().write(runId, { owner: "a", leaseMs: 60_000, events: someEvents(2, 1, at), at: at + 1 }));
      expect(RunStoreError.isInstance(gapFromStart) && !RunLeaseLostError.isInstance(gapFromStart)).toBe(true);

      await store().write(runId, { owner: "a", leaseMs: 60_000, events: someEvents(1, 2, at), update: { checkpoint: someCheckpoint(1) }, at: at + 2 });
      const before = await store().getRun(runId);
      const events = await store().readEvents(runId);
      for (const [from, label] of [[2, "duplicate"], [1, "duplicate"], [4, "gap"]] as const) {
        const error = await rejectionOf(
          store().write(runId, { owner: "a", leaseMs: 1, events: someEvents(from, 2, at + 100, { label }), update: { status: "finished", checkpoint: someCheckpoint(9), error: label, release: true }, at: at + 100 }),
        );
        expect(RunStoreError.isInstance(error)).toBe(true);
        expect(RunLeaseLostError.isInstance(error) || RunNotFoundError.isInstance(error)).toBe(false);
        expect(error).toMatchObject({ runId, operation: "write" });
        expect(error.message).toMatch(/seq/);
        expect(await store().getRun(runId)).toEqual(before);
        expect(await store().readEvents(runId)).toEqual(events);
      }
    });

    it("rejects events whose seq is not consecutive within one write", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: 60_000, at });
      const [one, , three] = someEvents(1, 3, at);
      const error = await rejectionOf(store().write(runId, { owner: "a", leaseMs: 60_000, events: [one!, three!], at: at + 1 }));
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/seq/);
      expect(await store().readEvents(runId)).toEqual([]);
      expect((await store().getRun(runId))?.updatedAt).toBe(at);
    });
  });
}
