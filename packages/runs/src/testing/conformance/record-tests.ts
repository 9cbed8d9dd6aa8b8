import { RunNotFoundError, RunStoreError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, someCheckpoint, someEvents, type ConformanceContext } from "./conformance-context";

const LEASE = 30_000;

export function recordTests(context: ConformanceContext): void {
  const { id, window } = context;
  const store = () => context.store();

  describe("records", () => {
    it("records a running run with its owner, lease, thread and metadata", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, threadId: "thread-a", inputs: { input: "hello", n: 1, nested: { list: [1, "two", null, true] } }, status: "running", owner: "owner-1", leaseMs: LEASE, metadata: { executor: "demo" }, at });
      expect(await store().getRun(runId)).toEqual({
        runId,
        threadId: "thread-a",
        status: "running",
        inputs: { input: "hello", n: 1, nested: { list: [1, "two", null, true] } },
        metadata: { executor: "demo" },
        createdAt: at,
        updatedAt: at,
        eventCount: 0,
        owner: "owner-1",
        leaseExpiresAt: at + LEASE,
        epoch: 1,
        inputPreview: "hello",
      });
    });

    it("records a queued run without owner or lease", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "queued", at });
      const run = await store().getRun(runId);
      expect(run).toMatchObject({ runId, status: "queued", inputs: {}, eventCount: 0, createdAt: at });
      expect(run?.owner).toBeUndefined();
      expect(run?.leaseExpiresAt).toBeUndefined();
      expect(run?.threadId).toBeUndefined();
    });

    it("appends events in order and applies checkpoint, usage, status and release", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: { input: "q" }, status: "running", owner: "w", leaseMs: LEASE, at });
      const first = someEvents(1, 2, at + 10);
      const usage = { input_tokens: 12, output_tokens: 3, total_tokens: 15 };
      await store().write(runId, { owner: "w", leaseMs: LEASE, events: first, update: { checkpoint: someCheckpoint(1), usage }, at: at + 20 });
      expect(await store().getRun(runId)).toMatchObject({ status: "running", eventCount: 2, checkpoint: someCheckpoint(1), usage, updatedAt: at + 20, owner: "w", leaseExpiresAt: at + 20 + LEASE });

      const rest = someEvents(3, 3, at + 30);
      await store().write(runId, { owner: "w", leaseMs: LEASE, events: rest, update: { status: "finished", stopReason: "finish", checkpoint: someCheckpoint(2), release: true }, at: at + 40 });
      const run = await store().getRun(runId);
      expect(run).toMatchObject({ status: "finished", stopReason: "finish", eventCount: 5, checkpoint: someCheckpoint(2), usage, updatedAt: at + 40, createdAt: at });
      expect(run?.owner).toBeUndefined();
      expect(run?.leaseExpiresAt).toBeUndefined();
      expect(await store().readEvents(runId)).toEqual([...first, ...rest]);
      expect((await store().readEvents(runId, { after: 2, limit: 2 })).map((event) => event.seq)).toEqual([3, 4]);
      expect((await store().readEvents(runId, { after: 3 })).map((event) => event.seq)).toEqual([4, 5]);
      expect(await store().readEvents(runId, { after: 5 })).toEqual([]);
    });

    it("appends writes of one to many events, and none", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: LEASE, at });
      let next = 1;
      for (const count of [1, 0, 3, 16, 17, 40, 2]) {
        await store().write(runId, { owner: "w", leaseMs: LEASE, events: someEvents(next, count, at + next), at: at + next });
        next += count;
      }
      const events = await store().readEvents(runId);
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: next - 1 }, (_, index) => index + 1));
      expect(events[60]).toEqual(someEvents(61, 1, at + 61)[0]);
      expect((await store().getRun(runId))?.eventCount).toBe(next - 1);
    });

    it("renews the lease with every write, also a write without events", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: 1000, at });
      await store().write(runId, { owner: "w", leaseMs: 500, events: [], update: { status: "interrupted", error: "waiting for approval" }, at: at + 2000 });
      expect(await store().getRun(runId)).toMatchObject({ status: "interrupted", error: "waiting for approval", eventCount: 0, owner: "w", leaseExpiresAt: at + 2500, updatedAt: at + 2000 });
      expect(await store().readEvents(runId)).toEqual([]);
    });

    it("rejects a second run with the same id and keeps the first", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: { first: true }, status: "queued", at });
      const error = await rejectionOf(store().createRun({ runId, inputs: { first: false }, status: "queued", at: at + 1 }));
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ operation: "createRun", runId });
      expect(error.message).toContain(runId);
      expect((await store().getRun(runId))?.inputs).toEqual({ first: true });
    });

    it("answers undefined and [] for an unknown run, and RunNotFoundError where a run is required", async () => {
      const runId = id("unknown");
      expect(await store().getRun(runId)).toBeUndefined();
      expect(await store().readEvents(runId)).toEqual([]);
      const error = await rejectionOf(store().write(runId, { owner: "w", leaseMs: LEASE, events: someEvents(1, 1, 1), at: 1 }));
      expect(RunNotFoundError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ runId });
      expect(await store().deleteRun(runId)).toBe(false);
    });

    it("deletes a run with its events; its id can be used again", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: LEASE, at });
      await store().write(runId, { owner: "w", leaseMs: LEASE, events: someEvents(1, 3, at), at: at + 1 });
      expect(await store().deleteRun(runId)).toBe(true);
      expect(await store().getRun(runId)).toBeUndefined();
      expect(await store().readEvents(runId)).toEqual([]);
      expect(await store().deleteRun(runId)).toBe(false);
      await store().createRun({ runId, inputs: { again: true }, status: "running", owner: "w", leaseMs: LEASE, at: at + 2 });
      expect(await store().readEvents(runId)).toEqual([]);
      await store().write(runId, { owner: "w", leaseMs: LEASE, events: someEvents(1, 1, at + 3), at: at + 3 });
      expect((await store().getRun(runId))?.eventCount).toBe(1);
    });

    it("prunes runs last updated before olderThan, except running ones", async () => {
      // Times in 1970: before every other test's runs.
      const make = async (runId: string, status: "finished" | "failed" | "queued" | "running", updatedAt: number) => {
        await store().createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: 10, at: updatedAt - 100 });
        await store().write(runId, { owner: "w", leaseMs: 10, events: someEvents(1, 2, updatedAt - 50), update: status === "running" ? {} : { status, release: true }, at: updatedAt });
      };
      const [finished, failed, running, recent] = [id("old-finished"), id("old-failed"), id("old-running"), id("recent")];
      const queued = id("old-queued");
      await make(finished, "finished", 2_000);
      await make(failed, "failed", 3_000);
      await make(running, "running", 1_000);
      await make(recent, "finished", 9_000);
      await store().createRun({ runId: queued, inputs: {}, status: "queued", at: 4_000 });

      expect(await store().pruneRuns({ olderThan: 5_000 })).toBe(3);
      expect(await store().getRun(finished)).toBeUndefined();
      expect(await store().getRun(failed)).toBeUndefined();
      expect(await store().getRun(queued)).toBeUndefined();
      expect(await store().readEvents(finished)).toEqual([]);
      expect((await store().getRun(running))?.status).toBe("running");
      expect((await store().readEvents(running)).length).toBe(2);
      expect((await store().getRun(recent))?.status).toBe("finished");

      expect(await store().pruneRuns({ olderThan: new Date(9_001) })).toBe(1);
      expect(await store().getRun(recent)).toBeUndefined();
      expect(await store().pruneRuns({ olderThan: 9_001 })).toBe(0);
      expect(await store().getRun(running)).toBeDefined();
      await store().deleteRun(running);
    });
  });
}
