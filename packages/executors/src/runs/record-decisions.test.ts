import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, finish, scriptedAgent } from "../executor/test-helpers";
import { InProcessRunStore } from "./in-process-run-store";
import { recordDecisions } from "./record-decisions";
import type { RunStore } from "./run-store";

const send = (ran: string[]) =>
  withApproval(tool(async ({ to }: { to: string }) => (ran.push(to), `sent to ${to}`), { name: "send", description: "Sends an email.", schema: z.object({ to: z.string() }) }));

/** A run paused on one `send` call (interrupt `call-0-0`), with the executor that paused it. */
async function pausedRun(runId: string, options: { inDoubt?: "retry" | "interrupt" | "fail" } = {}) {
  const ran: string[] = [];
  const store = new InProcessRunStore();
  const tools = [send(ran)];
  const { agent } = scriptedAgent([act("send", { to: "ana" }), (input) => finish(`done: ${input.steps[0]?.observation}`)]);
  const executor = new AgentExecutor({ agent, tools, store, ...options });
  const paused = await executor.invoke({ input: "mail ana" }, { runId });
  expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0"]);
  return { ran, store, tools, executor };
}

/** What must not change when a decision is refused: the run's status, record length and epoch. */
async function snapshot(store: RunStore, runId: string) {
  const info = await store.getRun(runId);
  return { status: info?.status, eventCount: info?.eventCount, epoch: info?.epoch, owner: info?.owner };
}

describe("recordDecisions", () => {
  it("records the decisions as the run's decisions entry and leaves it queued; a resume without decisions runs the approved call once", async () => {
    const { ran, store, executor } = await pausedRun("approved");
    const before = await store.getRun("approved");
    const recorded = await recordDecisions(store, "approved", { "call-0-0": "approve" });
    expect(recorded).toEqual({ decisions: { "call-0-0": "approve" }, seq: (before?.eventCount ?? 0) + 1, epoch: (before?.epoch ?? 0) + 1 });
    expect(await store.getRun("approved")).toMatchObject({ status: "queued", eventCount: recorded.seq, epoch: recorded.epoch });
    expect((await store.getRun("approved"))?.owner).toBeUndefined(); // the lease is given back
    const [entry] = await store.readEvents("approved", { after: recorded.seq - 1 });
    expect(entry).toMatchObject({ seq: recorded.seq, type: "decisions", data: { type: "decisions", decisions: { "call-0-0": "approve" } } });
    expect(ran).toEqual([]);
    const done = await executor.resume("approved");
    expect(done).toMatchObject({ output: "done: sent to ana", stopReason: "finish" });
    expect(ran).toEqual(["ana"]);
    expect((await store.readEvents("approved")).filter((event) => event.type === "decisions")).toHaveLength(1);
  });

  it("recorded decisions are not in doubt (their calls never started), whatever the in-doubt policy; a segment that started with them is", async () => {
    for (const inDoubt of ["interrupt", "fail"] as const) {
      const { ran, store, executor } = await pausedRun(`fresh-${inDoubt}`, { inDoubt });
      await recordDecisions(store, `fresh-${inDoubt}`, { "call-0-0": "approve" });
      expect((await executor.resume(`fresh-${inDoubt}`)).output).toBe("done: sent to ana");
      expect(ran).toEqual(["ana"]);
    }
    // A resume that recorded the decisions, started its segment, then died before the call's
    // result: the call may have run, and is in doubt.
    const { ran, store, executor } = await pausedRun("died", { inDoubt: "interrupt" });
    await recordDecisions(store, "died", { "call-0-0": "approve" });
    const claim = await store.claimRun("died", { owner: "dead", leaseMs: 1, at: Date.now() - 10 });
    const seq = (await store.getRun("died"))!.eventCount + 1;
    await store.write("died", { owner: "dead", leaseMs: 1, epoch: claim.epoch, events: [{ seq, type: "start", at: 0, data: { type: "start", runId: "died", inputs: {}, resumed: true, at: 0 } }], at: Date.now() - 10 });
    const again = await executor.resume("died");
    expect(again.interrupts).toMatchObject([{ id: "call-0-0", reason: "in_doubt" }]);
    expect(ran).toEqual([]);
  });

  it("a recorded rejection is the call's observation when the run goes on; the tool never runs", async () => {
    const { ran, store, executor } = await pausedRun("rejected");
    await recordDecisions(store, "rejected", { "call-0-0": { type: "reject", message: "Not to ana." } });
    const done = await executor.resume("rejected");
    expect(done.output).toBe("done: Not to ana.");
    expect(ran).toEqual([]);
  });

  it("refuses bad decisions before anything is written, naming the interrupt and what is wrong", async () => {
    const { store, tools } = await pausedRun("refused");
    const before = await snapshot(store, "refused");
    const cases: [unknown, RegExp][] = [
      [{ nope: "approve" }, /^RunClient\.resume: run "refused" has no interrupt "nope" waiting for a decision \(waiting: call-0-0\)\. Nothing was recorded\.$/],
      [{ "call-0-0": { type: "reject", mesage: "no" } }, /the reject decision for "call-0-0" has an unknown key `mesage`/],
      [{ "call-0-0": "yes" }, /the decision for "call-0-0" must be "approve"/],
      [{ "call-0-0": { type: "edit", toolInput: { to: 42 } } }, /the edited input for "call-0-0" \(tool "send"\) does not fit the tool's schema: to: /],
      [["approve"], /`decisions` must be an object from interrupt id to decision, got an array/],
      [{}, /`decisions` is empty: give a decision for at least one of the waiting interrupts \(call-0-0\)/],
    ];
    for (const [decisions, message] of cases) {
      const error = await recordDecisions(store, "refused", decisions, { tools, operation: "RunClient.resume" }).catch((caught: unknown) => caught);
      expect(InvalidArgumentError.isInstance(error) && error.argument, JSON.stringify(decisions)).toBe("decisions");
      expect((error as Error).message).toMatch(message);
      expect(await snapshot(store, "refused")).toEqual(before);
    }
    // Without the tools, edits are checked for their shape: one without an input is refused all the same.
    await expect(recordDecisions(store, "refused", { "call-0-0": { type: "edit" } })).rejects.toThrow(/^recordDecisions: the edit decision for "call-0-0" has no `toolInput`/);
    expect(await snapshot(store, "refused")).toEqual(before);
  });

  it("refuses a run that is not paused, and bad arguments", async () => {
    const { store } = await pausedRun("decided");
    await recordDecisions(store, "decided", { "call-0-0": "approve" });
    const before = await snapshot(store, "decided");
    await expect(recordDecisions(store, "decided", { "call-0-0": "approve" })).rejects.toThrow(/^recordDecisions: run "decided" is queued, not paused for approval: there is nothing to decide \(a pause is decided once\)\. Nothing was recorded\.$/);
    expect(await snapshot(store, "decided")).toEqual(before);
    await expect(recordDecisions(store, "nope", { "call-0-0": "approve" })).rejects.toThrow(/Run "nope" is not recorded in this store/);
    await expect(recordDecisions(store, "", {})).rejects.toThrow(/`runId` must be a non-empty string/);
    await expect(recordDecisions(store, "decided", {}, { leaseMs: 0 })).rejects.toThrow(/`options\.leaseMs` must be an integer >= 1/);
    await expect(recordDecisions(store, "decided", {}, { tool: [] } as never)).rejects.toThrow(/unknown option `options\.tool`; did you mean `tools`\?/);
  });

  it("two processes deciding one pause at once: one records, the other is refused, and the call runs once", async () => {
    const { ran, store, executor } = await pausedRun("raced");
    const results = await Promise.allSettled([
      recordDecisions(store, "raced", { "call-0-0": "approve" }, { owner: "api-1" }),
      recordDecisions(store, "raced", { "call-0-0": { type: "reject" } }, { owner: "api-2" }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((result) => result.status === "rejected") as PromiseRejectedResult;
    expect(InvalidArgumentError.isInstance(refused.reason)).toBe(true);
    expect((refused.reason as Error).message).toMatch(/^recordDecisions: run "raced" (is being taken by another process \(api-\d\) at the same time|is queued|was decided by another process at the same time).*, not paused for approval: .*a pause is decided once/);
    expect((await store.readEvents("raced")).filter((event) => event.type === "decisions")).toHaveLength(1);
    expect((await store.getRun("raced"))?.status).toBe("queued");
    const approved = results[0].status === "fulfilled";
    expect((await executor.resume("raced")).output).toBe(approved ? "done: sent to ana" : "done: The user rejected this tool call.");
    expect(ran).toEqual(approved ? ["ana"] : []);
  });
});
