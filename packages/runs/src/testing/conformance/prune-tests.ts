import { runInboxId, type NewThreadMessage } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, someEvents, type ConformanceContext } from "./conformance-context";

/** `count` messages sent at `at`. */
const messages = (count: number, at: number): NewThreadMessage[] => Array.from({ length: count }, (_, index) => ({ message: { type: "human", data: { content: `m${index}` } }, tokens: 1, at }));

/** What `pruneRuns` deletes, at its bound, and what it never does. */
export function pruneTests(context: ConformanceContext): void {
  const { id } = context;
  const store = () => context.store();

  describe("pruning", () => {
    it("deletes the runs last updated before olderThan that are not running, with their events and inboxes, and nothing else", async () => {
      // Times in 1970, after the other tests' pruned runs: everything older is pruned first.
      const bound = 45_000;
      await store().pruneRuns({ olderThan: 40_000 });
      const thread = id("thread");
      const [cancelled, queued, interrupted, finished, kept, live, expired] = ["cancelled", "queued", "interrupted", "finished", "kept", "live", "expired"].map((name) => id(`prune-${name}`)) as [string, string, string, string, string, string, string];
      await store().createRun({ runId: cancelled, inputs: {}, status: "running", owner: "w", leaseMs: 1000, at: bound - 60 });
      await store().write(cancelled, { owner: "w", leaseMs: 1000, events: [], update: { status: "cancelled", error: "stop", release: true }, at: bound - 50 });
      await store().createRun({ runId: queued, inputs: {}, status: "queued", at: bound - 10 });
      await store().createRun({ runId: interrupted, inputs: {}, status: "running", owner: "w", leaseMs: 1000, at: bound - 20 });
      await store().write(interrupted, { owner: "w", leaseMs: 1000, events: someEvents(1, 1, bound - 6), update: { status: "interrupted", release: true }, at: bound - 5 });
      await store().createRun({ runId: finished, threadId: thread, inputs: {}, status: "running", owner: "w", leaseMs: 1000, at: bound - 30 });
      await store().write(finished, { owner: "w", leaseMs: 1000, events: someEvents(1, 2, bound - 3), update: { status: "finished", release: true }, at: bound - 1 });
      await store().createRun({ runId: kept, inputs: {}, status: "running", owner: "w", leaseMs: 1000, at: bound - 40 });
      await store().write(kept, { owner: "w", leaseMs: 1000, events: [], update: { status: "finished", release: true }, at: bound });
      // Running, with a lease that lasts (for years) and with one that lapsed long ago: both kept.
      await store().createRun({ runId: live, inputs: {}, status: "running", owner: "w", leaseMs: 1e12, at: bound - 100 });
      await store().write(live, { owner: "w", leaseMs: 1e12, events: someEvents(1, 1, bound - 90), at: bound - 90 });
      await store().createRun({ runId: expired, inputs: {}, status: "running", owner: "w", leaseMs: 1, at: bound - 200 });
      for (const runId of [finished, live, interrupted]) await store().appendThreadMessages(runInboxId(runId), messages(2, bound - 2));
      await store().appendThreadMessages(thread, messages(3, bound - 2));

      // olderThan is exclusive, and rounded up to a whole millisecond: bound - 1.5 prunes before bound - 1.
      expect(await store().pruneRuns({ olderThan: bound - 1.5 })).toBe(3);
      for (const runId of [cancelled, queued, interrupted]) expect(await store().getRun(runId), runId).toBeUndefined();
      expect(await store().readEvents(interrupted)).toEqual([]);
      expect(await store().readThreadMessages(runInboxId(interrupted))).toEqual([]);
      expect((await store().getRun(finished))?.status).toBe("finished");

      // An option pruneRuns does not have is refused, and nothing is deleted.
      const error = await rejectionOf(store().pruneRuns({ olderThan: bound, dryRun: true } as never));
      expect(error).toMatchObject({ name: "InvalidArgumentError", argument: "options.dryRun" });
      expect(error.message).toMatch(/unknown option `options\.dryRun`/);
      expect((await rejectionOf(store().pruneRuns([] as never))).message).toMatch(/options must be an object, got \[\]/);
      expect((await store().getRun(finished))?.status).toBe("finished");

      expect(await store().pruneRuns({ olderThan: new Date(bound) })).toBe(1);
      expect(await store().getRun(finished)).toBeUndefined();
      expect(await store().readEvents(finished)).toEqual([]);
      expect(await store().readThreadMessages(runInboxId(finished))).toEqual([]);
      // The run's thread is not its inbox: its messages stay.
      expect(await store().readThreadMessages(thread)).toHaveLength(3);
      expect(await store().pruneRuns({ olderThan: bound })).toBe(0);
      expect((await store().getRun(kept))?.status).toBe("finished");
      expect(await store().getRun(live)).toMatchObject({ status: "running", owner: "w", eventCount: 1 });
      expect(await store().readEvents(live)).toHaveLength(1);
      expect(await store().readThreadMessages(runInboxId(live))).toHaveLength(2);
      expect((await store().getRun(expired))?.status).toBe("running");

      for (const runId of [kept, live, expired]) await store().deleteRun(runId);
      await store().clearThread(thread);
    });
  });
}
