import { RunFinishedError, RunNotFoundError, runInboxId, type NewThreadMessage, type RunStore } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, someEvents, type ConformanceContext } from "./conformance-context";
import { someThreadMessages } from "./thread-tests";

/** The inbox of a run (the messages sent to it, kept as the thread `runInboxId(runId)`): it lives and dies with the run. */
export function inboxTests(context: ConformanceContext): void {
  const { id, window, options } = context;
  const store = (): RunStore => context.store();
  const sent = (text: string, at: number, runId: string): NewThreadMessage => ({ message: { type: "human", data: { content: text } }, tokens: 0, runId, at });
  const append = (target: RunStore, runId: string, message: NewThreadMessage) => {
    if (typeof target.appendRunMessage !== "function") throw new Error(`${options.name} has no appendRunMessage`);
    return target.appendRunMessage(runId, message);
  };

  describe("run inboxes", () => {
    it("appends a message for a run that has not finished, with the run's status; refuses one for a finished or unknown run", async () => {
      const at = window();
      const [running, paused, finished] = [id("inbox-running"), id("inbox-paused"), id("inbox-finished")];
      for (const runId of [running, paused, finished]) await store().createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at });
      await store().write(paused, { owner: "w", leaseMs: 60_000, events: [], update: { status: "interrupted", release: true }, at: at + 1 });
      await store().write(finished, { owner: "w", leaseMs: 60_000, events: [], update: { status: "finished", stopReason: "finish", release: true }, at: at + 1 });

      expect(await append(store(), running, sent("one", at + 2, running))).toEqual({ inboxSeq: 1, status: "running" });
      expect(await append(store(), running, sent("two", at + 3, running))).toEqual({ inboxSeq: 2, status: "running" });
      expect(await append(store(), paused, sent("later", at + 2, paused))).toEqual({ inboxSeq: 1, status: "interrupted" });
      const messages = await store().readThreadMessages(runInboxId(running));
      expect(messages.map((message) => [message.seq, (message.message.data as { content: string }).content, message.runId])).toEqual([
        [1, "one", running],
        [2, "two", running],
      ]);

      const late = await rejectionOf(append(store(), finished, sent("late", at + 2, finished)));
      expect(RunFinishedError.isInstance(late)).toBe(true);
      expect(late).toMatchObject({ runId: finished, stopReason: "finish" });
      expect(await store().readThreadMessages(runInboxId(finished))).toEqual([]);
      const unknown = await rejectionOf(append(store(), id("inbox-unknown"), sent("hi", at, "x")));
      expect(RunNotFoundError.isInstance(unknown)).toBe(true);
    });

    it("reports the inbox's last position with every write, and closes the inbox only when nothing waits after the position given", async () => {
      const at = window();
      const runId = id("inbox-close");
      await store().createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at });
      expect(await store().write(runId, { owner: "w", leaseMs: 60_000, events: someEvents(1, 1, at), at: at + 1 })).toEqual({ inboxSeq: 0 });
      await append(store(), runId, sent("one", at + 2, runId));
      expect(await store().write(runId, { owner: "w", leaseMs: 60_000, events: someEvents(2, 1, at + 3), at: at + 3 })).toEqual({ inboxSeq: 1 });

      // The run has taken nothing (0): the inbox stays open, and the rest of the write is applied.
      const refused = await store().write(runId, { owner: "w", leaseMs: 60_000, events: someEvents(3, 1, at + 4), update: { closeInbox: 0 }, at: at + 4 });
      expect(refused).toEqual({ inboxSeq: 1, inboxClosed: false });
      expect((await store().getRun(runId))?.eventCount).toBe(3);
      expect(await append(store(), runId, sent("two", at + 5, runId))).toEqual({ inboxSeq: 2, status: "running" });

      // It took both: the inbox closes, and a send is refused while the run is still running.
      expect(await store().write(runId, { owner: "w", leaseMs: 60_000, events: [], update: { closeInbox: 2 }, at: at + 6 })).toEqual({ inboxSeq: 2, inboxClosed: true });
      expect((await store().getRun(runId))?.status).toBe("running");
      expect(RunFinishedError.isInstance(await rejectionOf(append(store(), runId, sent("three", at + 7, runId))))).toBe(true);
      expect((await store().readThreadMessages(runInboxId(runId))).length).toBe(2);

      // A run that stopped (failed) with its inbox closed takes messages for its resume; a claim reopens the inbox.
      await store().write(runId, { owner: "w", leaseMs: 60_000, events: [], update: { status: "failed", error: "boom", release: true }, at: at + 8 });
      expect(await append(store(), runId, sent("three", at + 9, runId))).toEqual({ inboxSeq: 3, status: "failed" });
      await store().claimRun(runId, { owner: "w2", leaseMs: 60_000, at: at + 10 });
      expect(await append(store(), runId, sent("four", at + 11, runId))).toEqual({ inboxSeq: 4, status: "running" });
    });

    it("a send racing the write that closes the inbox is either seen by that write or refused, never accepted and left behind", async () => {
      const other = options.persistent ? await options.create() : store();
      try {
        const at = window();
        const runIds = Array.from({ length: 12 }, () => id("inbox-race"));
        for (const runId of runIds) await store().createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at });
        const rounds = await Promise.all(
          runIds.map((runId) =>
            Promise.allSettled([
              append(other, runId, sent("racing", at + 1, runId)),
              store().write(runId, { owner: "w", leaseMs: 60_000, events: [], update: { closeInbox: 0 }, at: at + 1 }),
            ]),
          ),
        );
        for (const [index, [send, write]] of rounds.entries()) {
          expect(write.status).toBe("fulfilled");
          const closed = (write as PromiseFulfilledResult<{ inboxClosed?: boolean }>).value.inboxClosed;
          if (send.status === "fulfilled") expect(closed).toBe(false);
          else {
            expect(RunFinishedError.isInstance(send.reason)).toBe(true);
            expect(closed).toBe(true);
          }
          expect((await store().readThreadMessages(runInboxId(runIds[index]!))).length).toBe(send.status === "fulfilled" ? 1 : 0);
        }
      } finally {
        if (other !== store()) await other.close();
      }
    });

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
