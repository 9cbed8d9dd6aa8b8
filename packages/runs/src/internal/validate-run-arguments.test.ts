import { InvalidArgumentError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { checkKey, checkListOptions, checkNewRun, checkReadOptions, checkTimeFilter, checkWrite, storableText } from "./validate-run-arguments";

describe("run arguments", () => {
  it("stores error text with NUL and lone surrogates replaced by U+FFFD, pairs kept", () => {
    expect(storableText("plain")).toBe("plain");
    expect(storableText("a\u0000b")).toBe("a\ufffdb");
    expect(storableText("x\ud800y\udc00z")).toBe("x\ufffdy\ufffdz");
    expect(storableText("emoji 🎉 and \ud83c\udf89")).toBe("emoji 🎉 and 🎉");
  });

  it("refuses keys that a database cannot keep exactly", () => {
    expect(checkKey("getRun", "runId", "run-日本-🎉")).toBe("run-日本-🎉");
    for (const bad of ["", "a\u0000b", "lone \ud800", 42, undefined]) {
      expect(() => checkKey("getRun", "runId", bad)).toThrow(InvalidArgumentError);
    }
  });

  it("rounds time filters up to a whole millisecond", () => {
    expect(checkTimeFilter("listRuns", "since", 10.2)).toBe(11);
    expect(checkTimeFilter("listRuns", "since", new Date(5))).toBe(5);
    expect(() => checkTimeFilter("listRuns", "since", Number.POSITIVE_INFINITY)).toThrow(/since must be a valid Date/);
  });

  it("normalizes list filters: default limit and order (newest created first), one status as a list, duplicates removed", () => {
    const newest = { sort: "createdAt", order: "desc" };
    expect(checkListOptions(undefined)).toEqual({ limit: 100, ...newest });
    expect(checkListOptions({ status: "failed" })).toEqual({ limit: 100, statuses: ["failed"], ...newest });
    expect(checkListOptions({ status: ["failed", "failed", "queued"], limit: 5 })).toEqual({ limit: 5, statuses: ["failed", "queued"], ...newest });
  });

  it("returns the event count a write expects, and names the argument at fault", () => {
    expect(checkWrite("r1", { owner: "w", leaseMs: 1, events: [], at: 1 })).toBeUndefined();
    expect(checkWrite("r1", { owner: "w", leaseMs: 1, events: [{ seq: 4, type: "step", at: 1, data: {} }], at: 1 })).toBe(3);
    expect(() => checkWrite("r1", { owner: "w", leaseMs: 1, events: [{ seq: 1, type: "step", at: 1, data: {} }, { seq: 3, type: "step", at: 1, data: {} }], at: 1 })).toThrow(
      "RunStore.write: write.events[1].seq must be 2 (seq is consecutive within a write), got 3.",
    );
  });

  it("refuses a key the run, the write, its update or the read options do not have, rather than ignoring it", () => {
    const write = { owner: "w", leaseMs: 1, events: [], at: 1 };
    const cases: [string, () => unknown, string][] = [
      ["createRun", () => checkNewRun({ runId: "r1", inputs: {}, status: "queued", at: 1, thread: "t" } as never), "run.thread"],
      ["write", () => checkWrite("r1", { ...write, udpate: { status: "finished" } } as never), "write.udpate"],
      ["write", () => checkWrite("r1", { ...write, update: { stauts: "finished" } } as never), "write.update.stauts"],
      ["readEvents", () => checkReadOptions("r1", { before: 3 } as never), "options.before"],
    ];
    for (const [operation, check, argument] of cases) {
      let caught: unknown;
      try {
        check();
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught), argument).toBe(true);
      expect(caught).toMatchObject({ argument });
      expect((caught as Error).message).toMatch(new RegExp(`^RunStore\\.${operation}: unknown option \`${argument.replace(".", "\\.")}\``));
    }
    // Every key the types declare is taken.
    expect(() =>
      checkNewRun({ runId: "r1", threadId: "t", inputs: {}, status: "running", owner: "w", leaseMs: 1, metadata: {}, forkOf: { runId: "r0", iteration: 0 }, at: 1 }),
    ).not.toThrow();
    const update = { status: "finished", stopReason: "done", usage: {}, error: "e", checkpoint: {}, release: true, closeInbox: 0 } as const;
    expect(() => checkWrite("r1", { ...write, epoch: 1, update: update as never })).not.toThrow();
    expect(checkReadOptions("r1", { after: 1, limit: 2 })).toEqual({ after: 1, limit: 2 });
  });
});
