import { AgentExecutor, type Interrupt, encodeRunEvent, runPauses } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, finish, scriptedAgent } from "../executor/test-helpers";
import { encodeDecisions } from "./run-event-codec";
import { InProcessRunStore } from "./in-process-run-store";
import type { StoredRunEvent } from "./run-store";

const call = (iteration: number, index = 0): Interrupt => ({ id: `call-${iteration}-${index}`, tool: "refund", toolInput: { order: `A${iteration}` }, iteration, index, reason: "approval" });

/** A record of `entries` (each a pause's interrupts, decisions by id, or another event's type), numbered from 1. */
function record(entries: (Interrupt[] | { decisions: Record<string, "approve"> } | { subRun: Interrupt[] } | string)[]): StoredRunEvent[] {
  return entries.map((entry, i) => {
    const at = 1_000 + i;
    if (typeof entry === "string") return { seq: i + 1, type: entry, at, data: { type: entry, at, iteration: 0, text: "" } };
    if (Array.isArray(entry)) return { seq: i + 1, type: "interrupt", at, data: encodeRunEvent({ type: "interrupt", runId: "run-1", interrupts: entry, at }) };
    if ("subRun" in entry) {
      return { seq: i + 1, type: "interrupt", at, data: encodeRunEvent({ type: "interrupt", runId: "sub-1", interrupts: entry.subRun, at, subRun: ["helper"], subRunCallIds: ["call-0-0"] }) };
    }
    return { seq: i + 1, type: "decisions", at, data: encodeDecisions({ type: "decisions", at, decisions: entry.decisions }) };
  });
}

const ids = (interrupts: readonly Interrupt[]) => interrupts.map((interrupt) => interrupt.id);

describe("runPauses", () => {
  it("a run that never paused: no pauses, nothing waiting, nothing over", () => {
    const { pauses, waiting, over } = runPauses("run-1", record(["start", "token", "output"]));
    expect(pauses).toEqual([]);
    expect(waiting).toEqual([]);
    expect([...over]).toEqual([]);
    expect(runPauses("run-1", [])).toEqual({ pauses: [], waiting: [], over: new Set() });
  });

  it("a paused run waits on the calls of its interrupt event, decoded", () => {
    const { pauses, waiting, over } = runPauses("run-1", record(["start", [call(0, 0), call(0, 1)]]));
    expect(pauses).toEqual([[call(0, 0), call(0, 1)]]);
    expect(waiting).toEqual([call(0, 0), call(0, 1)]);
    expect([...over]).toEqual([]);
  });

  it("decisions recorded after a pause answer it: the run waits on nothing and the pause is over", () => {
    const { pauses, waiting, over } = runPauses("run-1", record([[call(0)], { decisions: { "call-0-0": "approve" } }, "token"]));
    expect(pauses.map(ids)).toEqual([["call-0-0"]]);
    expect(waiting).toEqual([]);
    expect([...over]).toEqual(["call-0-0"]);
  });

  it("a run paused again waits on its current pause; the earlier one is over, except the calls it still waits on", () => {
    const { pauses, waiting, over } = runPauses(
      "run-1",
      record([[call(0, 0), call(0, 1)], { decisions: { "call-0-0": "approve" } }, "token", [call(0, 1)], { decisions: { "call-0-1": "approve" } }, [call(1)]]),
    );
    expect(pauses.map(ids)).toEqual([["call-0-0", "call-0-1"], ["call-0-1"], ["call-1-0"]]);
    expect(ids(waiting)).toEqual(["call-1-0"]);
    expect([...over].sort()).toEqual(["call-0-0", "call-0-1"]);

    // Still waiting on the second pause: its call is not over, though the first pause had it too.
    const second = runPauses("run-1", record([[call(0, 0), call(0, 1)], { decisions: { "call-0-0": "approve" } }, [call(0, 1)]]));
    expect(ids(second.waiting)).toEqual(["call-0-1"]);
    expect([...second.over]).toEqual(["call-0-0"]);
  });

  it("a sub-run's pause and decisions are its own: neither a pause of the run nor an answer to it", () => {
    const events = record([[call(0)], { subRun: [call(5)] }]);
    const { pauses, waiting } = runPauses("run-1", events);
    expect(pauses.map(ids)).toEqual([["call-0-0"]]);
    expect(ids(waiting)).toEqual(["call-0-0"]);
    const subRunDecisions: StoredRunEvent = { seq: 3, type: "decisions", at: 1_002, data: { ...encodeDecisions({ type: "decisions", at: 1_002, decisions: { "call-5-0": "approve" } }), subRun: ["helper"] } };
    expect(ids(runPauses("run-1", [...events, subRunDecisions]).waiting)).toEqual(["call-0-0"]);
  });

  it("reads a run an executor paused, resumed and paused again", async () => {
    const refund = withApproval(tool(async ({ order }: { order: string }) => `refunded ${order}`, { name: "refund", description: "Refunds an order.", schema: z.object({ order: z.string() }) }));
    const store = new InProcessRunStore();
    const { agent } = scriptedAgent([act("refund", { order: "A1" }), act("refund", { order: "A2" }), finish("done")]);
    const executor = new AgentExecutor({ agent, tools: [refund], store });
    await executor.invoke({ input: "refund both" }, { runId: "twice" });
    expect(ids(runPauses("twice", await store.readEvents("twice")).waiting)).toEqual(["call-0-0"]);

    await executor.resume("twice", { decisions: { "call-0-0": "approve" } });
    const { pauses, waiting, over } = runPauses("twice", await store.readEvents("twice"));
    expect(pauses.map(ids)).toEqual([["call-0-0"], ["call-1-0"]]);
    expect(waiting).toMatchObject([{ id: "call-1-0", tool: "refund", toolInput: { order: "A2" }, iteration: 1, index: 0, reason: "approval" }]);
    expect([...over]).toEqual(["call-0-0"]);
  });
});
