import { runInboxId, type RunStore } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { someEvents, type ConformanceContext } from "./conformance-context";
import { someThreadMessages } from "./thread-tests";

const LEASE = 60_000;

/** The inbox of a run (the messages sent to it, kept as the thread `runInboxId(runId)`): it lives and dies with the run. */
export function inboxTests(context: ConformanceContext): void {
  const { id, window } = context;
  const store = (): RunStore => context.store();

  describe("run inboxes", () => {
    it("deletes a run's inbox with the run, and no other thread", async () => {
      const [runId, other] = [id("inbox-run"), id("inbox-other")];
      const at = window();
      for (const run of [runId, other]) {
        await store().createRun({ runId: run, inputs: {}, status: "queued", at });
        await store().appendThreadMessages(runInboxId(run), someThreadMessages("sent", 2, at, run));
      }
      const conversation = id("conversation");
      await store().appendThreadMessages(conversation, someThreadMessages("talk", 1, at));

      expect(await store().deleteRun(runId)).toBe(true);
      expect(await store().readThreadMessages(runInboxId(runId))).toEqual([]);
      expect((await store().readThreadMessages(runInboxId(other))).length).toBe(2);
      expect((await store().readThreadMessages(conversation)).length).toBe(1);
      // A run created again with the same id starts with an empty inbox, at position 1.
      await store().createRun({ runId, inputs: {}, status: "queued", at: at + 1 });
      expect(await store().appendThreadMessages(runInboxId(runId), someThreadMessages("again", 1, at + 1, runId))).toEqual([1]);
      await store().deleteRun(runId);
      await store().deleteRun(other);
      await store().clearThread(conversation);
    });

    it("prunes a run's inbox with the run, and keeps the inbox of a run it keeps", async () => {
      // Times in 1970, after the record tests' pruned runs: no other test's runs are this old.
      const [old, running] = [id("inbox-old"), id("inbox-running")];
      await store().createRun({ runId: old, inputs: {}, status: "running", owner: "w", leaseMs: 10, at: 20_000 });
      await store().write(old, { owner: "w", leaseMs: 10, events: someEvents(1, 1, 20_001), update: { status: "finished", release: true }, at: 20_002 });
      await store().createRun({ runId: running, inputs: {}, status: "running", owner: "w", leaseMs: 10, at: 20_000 });
      for (const run of [old, running]) await store().appendThreadMessages(runInboxId(run), someThreadMessages("sent", 3, 20_003, run));

      expect(await store().pruneRuns({ olderThan: 30_000 })).toBe(1);
      expect(await store().readThreadMessages(runInboxId(old))).toEqual([]);
      expect((await store().readThreadMessages(runInboxId(running))).length).toBe(3);
      expect(await store().appendThreadMessages(runInboxId(old), someThreadMessages("late", 1, 20_004, old))).toEqual([1]);
      await store().clearThread(runInboxId(old));
      await store().deleteRun(running);
      expect(await store().readThreadMessages(runInboxId(running))).toEqual([]);
    });
  });
}
