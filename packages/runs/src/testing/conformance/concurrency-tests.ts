import { RunBusyError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { someCheckpoint, someEvents, type ConformanceContext } from "./conformance-context";

export function concurrencyTests(context: ConformanceContext): void {
  const { id, window, options } = context;
  const store = () => context.store();

  describe("concurrency and durability", () => {
    it("lets exactly one of two racing claims win", async () => {
      const at = window();
      for (let round = 0; round < 5; round++) {
        const runId = id("race");
        await store().createRun({ runId, inputs: {}, status: "queued", at });
        const results = await Promise.allSettled([
          store().claimRun(runId, { owner: "a", leaseMs: 60_000, at: at + 1 }),
          store().claimRun(runId, { owner: "b", leaseMs: 60_000, at: at + 1 }),
        ]);
        const winners = results.filter((result) => result.status === "fulfilled");
        const losers = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(1);
        expect(RunBusyError.isInstance(losers[0])).toBe(true);
        const winner = results[0]!.status === "fulfilled" ? "a" : "b";
        expect((await store().getRun(runId))?.owner).toBe(winner);
        expect((losers[0] as RunBusyError).owner).toBe(winner);
      }
    });

    it.runIf(options.persistent)("lets exactly one of two stores on the same records win a racing claim", async () => {
      const other = await options.create();
      try {
        const at = window();
        const runIds = Array.from({ length: 8 }, () => id("race2"));
        for (const runId of runIds) await store().createRun({ runId, inputs: {}, status: "queued", at });
        const results = await Promise.all(
          runIds.map((runId) =>
            Promise.allSettled([
              store().claimRun(runId, { owner: "here", leaseMs: 60_000, at: at + 1 }),
              other.claimRun(runId, { owner: "there", leaseMs: 60_000, at: at + 1 }),
            ]),
          ),
        );
        for (const [index, pair] of results.entries()) {
          expect(pair.filter((result) => result.status === "fulfilled")).toHaveLength(1);
          const loser = pair.find((result) => result.status === "rejected") as PromiseRejectedResult;
          expect(RunBusyError.isInstance(loser.reason)).toBe(true);
          const winner = pair[0].status === "fulfilled" ? "here" : "there";
          expect((await other.getRun(runIds[index]!))?.owner).toBe(winner);
        }
      } finally {
        await other.close();
      }
    });

    it("keeps the events of many runs written concurrently apart", async () => {
      const at = window();
      const runIds = Array.from({ length: 12 }, () => id("parallel"));
      await Promise.all(runIds.map((runId) => store().createRun({ runId, inputs: { runId }, status: "running", owner: runId, leaseMs: 60_000, at })));
      for (let step = 0; step < 5; step++) {
        await Promise.all(
          runIds.map((runId) =>
            store().write(runId, { owner: runId, leaseMs: 60_000, events: someEvents(step * 2 + 1, 2, at + step, { runId }), update: { checkpoint: someCheckpoint(step) }, at: at + step }),
          ),
        );
      }
      for (const runId of runIds) {
        const events = await store().readEvents(runId);
        expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(events.every((event) => event.data.runId === runId)).toBe(true);
        expect(await store().getRun(runId)).toMatchObject({ eventCount: 10, checkpoint: someCheckpoint(4) });
      }
    });

    it.runIf(options.persistent)("shows everything to a store opened again after close", async () => {
      const runId = id("reopen");
      const at = window();
      const first = await options.create();
      await first.createRun({ runId, threadId: "t-reopen", inputs: { input: "persist me" }, status: "running", owner: "a", leaseMs: 60_000, metadata: { m: 1 }, at });
      await first.write(runId, { owner: "a", leaseMs: 60_000, events: someEvents(1, 3, at), update: { status: "interrupted", checkpoint: someCheckpoint(2), release: true }, at: at + 9 });
      const run = await first.getRun(runId);
      const events = await first.readEvents(runId);
      await first.close();
      const second = await options.create();
      try {
        expect(await second.getRun(runId)).toEqual(run);
        expect(await second.readEvents(runId)).toEqual(events);
        expect(run).toMatchObject({ status: "interrupted", eventCount: 3, inputs: { input: "persist me" } });
        expect((await second.listRuns({ threadId: "t-reopen" })).map((listed) => listed.runId)).toContain(runId);
      } finally {
        await second.close();
      }
    });

    it.runIf(options.inAnotherProcess !== undefined)("shares runs with another process", { timeout: 60_000 }, async () => {
      const runId = id("process");
      const at = window();
      await store().createRun({ runId, inputs: { input: "from the parent" }, status: "running", owner: "parent", leaseMs: 60_000, at });
      await store().write(runId, { owner: "parent", leaseMs: 60_000, events: someEvents(1, 2, at), update: { status: "interrupted", checkpoint: someCheckpoint(1), release: true }, at: at + 1 });
      const run = await store().getRun(runId);
      const events = await store().readEvents(runId);

      const report = await options.inAnotherProcess!({ runId, owner: "child", leaseMs: 60_000, at: at + 2 });
      expect(report.pid).not.toBe(process.pid);
      expect(report.run).toEqual(run);
      expect(report.events).toEqual(events);

      expect(await store().getRun(runId)).toMatchObject({ status: "finished", stopReason: "finish", eventCount: 3, updatedAt: at + 2 });
      const [note] = await store().readEvents(runId, { after: 2 });
      expect(note).toEqual({ seq: 3, type: "note", at: at + 2, data: { type: "note", at: at + 2, pid: report.pid } });
    });
  });
}
