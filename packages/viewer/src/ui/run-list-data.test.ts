import { describe, expect, it } from "vitest";
import { isStalledRun } from "../trace-page/is-stalled-run";
import { traceRunOf } from "../trace-page/read-trace-page";
import { runListItemOf, runStopLabel } from "./run-list-data";

const at = 1_700_000_000_000;
const run = (fields: Partial<Parameters<typeof runListItemOf>[0]>) => ({ runId: "r", status: "finished" as const, inputs: {}, createdAt: at, updatedAt: at, eventCount: 0, ...fields });

describe("runStopLabel", () => {
  it("says cancelled for a cancelled run, whose error is the cancel's, not a damaged record", () => {
    expect(runStopLabel(run({ status: "cancelled", error: "The run was cancelled." }))).toBe("cancelled");
  });

  it("says the stop reason of a run that finished after a resume, even with a stale error in an older record", () => {
    expect(runStopLabel(run({ status: "finished", stopReason: "finish", error: "The run was cancelled." }))).toBe("finish");
  });

  it("says unreadable for a row the store could not read, and nothing for a run that has not stopped", () => {
    expect(runStopLabel(run({ status: "finished", error: "Corrupt record: column usage is not JSON." }))).toBe("unreadable");
    expect(runStopLabel(run({ status: "running" }))).toBeUndefined();
    expect(runStopLabel(run({ status: "failed", error: "boom" }))).toBeUndefined();
  });

  it("is what the ui's list item carries", () => {
    expect(runListItemOf(run({ status: "cancelled", error: "The run was cancelled." }), at)).toMatchObject({ status: "cancelled", stop: "cancelled", error: "The run was cancelled." });
    expect(runListItemOf(run({ status: "running" }), at).stop).toBeUndefined();
  });
});

describe("a stalled run (running, its lease lapsed)", () => {
  const running = run({ status: "running", owner: "host:1", leaseExpiresAt: at + 30_000 });

  it("is stalled from the moment its lease expires, not before", () => {
    expect(isStalledRun(running, at + 29_999)).toBe(false);
    expect(isStalledRun(running, at + 30_000)).toBe(true);
    expect(isStalledRun(running, at + 90_000)).toBe(true);
  });

  it("needs a lease, and the running status: a run that ended keeps its status whatever its old lease says", () => {
    expect(isStalledRun(run({ status: "running" }), at + 90_000)).toBe(false);
    for (const status of ["queued", "interrupted", "finished", "failed", "cancelled"] as const) expect(isStalledRun(run({ status, leaseExpiresAt: at }), at + 90_000), status).toBe(false);
  });

  it("is marked on the list item and the trace page's run by the time they are made at", () => {
    expect(runListItemOf(running, at + 29_999).stalled).toBeUndefined();
    expect(runListItemOf(running, at + 30_000)).toMatchObject({ status: "running", stalled: true });
    expect(traceRunOf(running, at + 29_999).stalled).toBeUndefined();
    expect(traceRunOf(running, at + 30_000)).toMatchObject({ status: "running", stalled: true });
  });
});

describe("the list item's input", () => {
  it("is the store's input preview, as stored (the page shortens it)", () => {
    const preview = 'Say <script>alert("x")</script> & \'hi\'';
    expect(runListItemOf(run({ inputPreview: preview }), at).input).toBe(preview);
    expect(runListItemOf(run({ inputPreview: "" }), at).input).toBeUndefined();
    expect(runListItemOf(run({}), at).input).toBeUndefined();
  });
});

describe("the list item's cost", () => {
  it("is the run's priced cost in dollars, and absent for a run without a priced call (unknown, not free)", () => {
    const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };
    expect(runListItemOf(run({ usage: { ...usage, cost: { input: 0.001, output: 0.0025, total: 0.0035, currency: "USD" } } }), at)).toMatchObject({ tokens: 15, cost: 0.0035 });
    expect(runListItemOf(run({ usage }), at).cost).toBeUndefined();
    expect(runListItemOf(run({}), at).cost).toBeUndefined();
  });

  it("carries the calls the cost leaves out (the usage's unpricedCalls), with a cost or without one", () => {
    const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };
    const cost = { input: 0.001, output: 0.0025, total: 0.0035, currency: "USD" as const };
    expect(runListItemOf(run({ usage: { ...usage, cost, unpricedCalls: 2 } }), at)).toMatchObject({ cost: 0.0035, unpricedCalls: 2 });
    expect(runListItemOf(run({ usage: { ...usage, unpricedCalls: 3 } }), at)).toMatchObject({ unpricedCalls: 3 });
    expect(runListItemOf(run({ usage: { ...usage, cost } }), at)).not.toHaveProperty("unpricedCalls");
  });
});
