import { describe, expect, it } from "vitest";
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
    expect(runListItemOf(run({ status: "cancelled", error: "The run was cancelled." }))).toMatchObject({ status: "cancelled", stop: "cancelled", error: "The run was cancelled." });
    expect(runListItemOf(run({ status: "running" })).stop).toBeUndefined();
  });
});
