import { describe, expect, it } from "vitest";
import { RunFinishedError } from "../steering/run-finished-error";
import { runInboxId } from "../steering/run-inbox";
import { InProcessRunStore } from "./in-process-run-store";
import { RunNotFoundError, RunStoreError } from "./run-store-errors";

const message = (text: string) => ({ message: { type: "human", data: { content: text } }, tokens: 0, at: 1 });

describe("InProcessRunStore: a run's inbox", () => {
  it("keeps what is sent to a paused run for its resume, closes for an ending run only when nothing waits, and opens again at the next claim", async () => {
    const store = new InProcessRunStore();
    await store.createRun({ runId: "r", inputs: {}, status: "running", owner: "a", leaseMs: 1000, at: 1 });
    await store.write("r", { owner: "a", leaseMs: 1000, events: [], update: { status: "interrupted", release: true }, at: 2 });
    expect(await store.appendRunMessage("r", message("one"))).toEqual({ inboxSeq: 1, status: "interrupted" });
    expect(await store.appendRunMessage("r", message("two"))).toEqual({ inboxSeq: 2, status: "interrupted" });
    await store.claimRun("r", { owner: "b", leaseMs: 1000, at: 3 });
    expect((await store.readThreadMessages(runInboxId("r"), { after: 1 })).map((row) => [row.seq, row.message["data"]])).toEqual([[2, { content: "two" }]]);
    // Only message 1 taken: the inbox stays open; both taken: it closes, and a send is refused.
    expect(await store.write("r", { owner: "b", leaseMs: 1000, events: [], update: { closeInbox: 1 }, at: 4 })).toEqual({ inboxSeq: 2, inboxClosed: false });
    expect(await store.write("r", { owner: "b", leaseMs: 1000, events: [], update: { closeInbox: 2 }, at: 5 })).toEqual({ inboxSeq: 2, inboxClosed: true });
    expect(RunFinishedError.isInstance(await store.appendRunMessage("r", message("late")).catch((error: unknown) => error))).toBe(true);
    // Halted before its answer (a pause): the next claim opens the inbox again.
    await store.write("r", { owner: "b", leaseMs: 1000, events: [], update: { status: "interrupted", release: true }, at: 6 });
    await store.claimRun("r", { owner: "c", leaseMs: 1000, at: 7 });
    expect(await store.appendRunMessage("r", message("three"))).toEqual({ inboxSeq: 3, status: "running" });
  });

  it("drops a finished run's inbox and refuses it with its stop reason; refuses an unknown run and threads other than inboxes", async () => {
    const store = new InProcessRunStore();
    await store.createRun({ runId: "r", inputs: {}, status: "running", owner: "a", leaseMs: 1000, at: 1 });
    await store.appendRunMessage("r", message("one"));
    expect(await store.write("r", { owner: "a", leaseMs: 1000, events: [], update: { status: "finished", stopReason: "finish", release: true }, at: 2 })).toEqual({ inboxSeq: 1 });
    expect(await store.readThreadMessages(runInboxId("r"))).toEqual([]);
    const late = await store.appendRunMessage("r", message("late")).catch((error: unknown) => error);
    expect(RunFinishedError.isInstance(late) && late.stopReason).toBe("finish");
    expect(RunNotFoundError.isInstance(await store.appendRunMessage("nope", message("x")).catch((error: unknown) => error))).toBe(true);
    expect(RunStoreError.isInstance(await store.readThreadMessages("chat-1").catch((error: unknown) => error))).toBe(true);
  });
});
