import { InvalidArgumentError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { checkKey, checkListOptions, checkTimeFilter, checkWrite, storableText } from "./validate-run-arguments";

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
});
