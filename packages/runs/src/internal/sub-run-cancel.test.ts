import { describe, expect, it } from "vitest";
import { cancelPausedSubRuns, cancelPausedSubRunsAsync, pausedSubRunIds } from "./sub-run-cancel";

/** An `interrupt` event's data as a store keeps it (JSON text). */
const interrupt = (runId: string, subRunIds: (string | undefined)[], path?: string[]) =>
  JSON.stringify({
    type: "interrupt",
    at: 1,
    runId,
    interrupts: subRunIds.map((id, index) => ({ id: `call-0-${index}`, tool: "t", toolInput: {}, iteration: 0, index, ...(id === undefined ? {} : { subRun: { tool: "h", runId: id, interruptId: "call-0-0" } }) })),
    ...(path === undefined ? {} : { subRun: path }),
  });

describe("pausedSubRunIds", () => {
  it("reads the run's last own pause, past the sub-runs' own pauses recorded after it, once per sub-run", () => {
    const events = [interrupt("a", ["handoff:a:1:x"], ["h"]), interrupt("a", ["handoff:a:0:h1", undefined, "handoff:a:0:h1", "as-tool:a:0:b1"]), interrupt("a", ["old"])];
    expect(pausedSubRunIds("a", events)).toEqual(["handoff:a:0:h1", "as-tool:a:0:b1"]);
  });

  it("names none for a pause another run recorded (a fork's copy of its source's), a corrupt event, or no pause", () => {
    expect(pausedSubRunIds("fork", [interrupt("source", ["handoff:source:0:h1"])])).toEqual([]);
    expect(pausedSubRunIds("a", ["{not json", interrupt("a", ["handoff:a:0:h1"])])).toEqual([]);
    expect(pausedSubRunIds("a", [])).toEqual([]);
  });
});

/** A family of runs: `top` paused on `mid` (paused) and `done` (finished), `mid` on `low` and back on `top`. */
function family() {
  const pauses: Record<string, string[]> = {
    top: [interrupt("top", ["mid", "done"])],
    mid: [interrupt("mid", ["low", "top"])],
    done: [interrupt("done", ["below-done"])],
  };
  const paused = new Set(["mid", "low", "below-done", "top"]);
  const calls: string[] = [];
  const cancelled: [string, string][] = [];
  const interruptEvents = (id: string) => {
    calls.push(`events ${id}`);
    return pauses[id] ?? [];
  };
  const cancelIfPaused = (id: string, reason: string) => {
    calls.push(`cancel ${id}`);
    if (!paused.delete(id)) return false;
    cancelled.push([id, reason]);
    return true;
  };
  return { calls, cancelled, interruptEvents, cancelIfPaused };
}

const EXPECTED_CANCELLED = [
  ["mid", 'Its calling run "top" was cancelled: why'],
  ["low", 'Its calling run "mid" was cancelled: why'],
];

describe("cancelPausedSubRuns", () => {
  it("goes down the sub-runs it cancelled only, once each, each named after its own caller", () => {
    const { cancelled, interruptEvents, cancelIfPaused } = family();
    cancelPausedSubRuns("top", "why", { interruptEvents, cancelIfPaused });
    expect(cancelled).toEqual(EXPECTED_CANCELLED);
  });

  it("makes the same store calls, in the same order, with asynchronous steps (PostgreSQL)", async () => {
    const sync = family();
    cancelPausedSubRuns("top", "why", { interruptEvents: sync.interruptEvents, cancelIfPaused: sync.cancelIfPaused });
    const async = family();
    await cancelPausedSubRunsAsync("top", "why", {
      interruptEvents: async (id) => async.interruptEvents(id),
      cancelIfPaused: async (id, reason) => async.cancelIfPaused(id, reason),
    });
    expect(async.cancelled).toEqual(EXPECTED_CANCELLED);
    expect(async.calls).toEqual(sync.calls);
    expect(sync.calls).toEqual(["events top", "cancel mid", "cancel done", "events mid", "cancel low", "events low"]);
  });

  it("stops at a failing step and throws its error, so that the store's transaction rolls back", async () => {
    const sync = family();
    const failing = (id: string) => {
      if (id === "low") throw new Error("disk full");
      return sync.cancelIfPaused(id, "why");
    };
    expect(() => cancelPausedSubRuns("top", "why", { interruptEvents: sync.interruptEvents, cancelIfPaused: failing })).toThrow("disk full");
    expect(sync.calls).toEqual(["events top", "cancel mid", "cancel done", "events mid"]);
    const async = family();
    await expect(
      cancelPausedSubRunsAsync("top", "why", {
        interruptEvents: async (id) => async.interruptEvents(id),
        cancelIfPaused: async (id, reason) => {
          if (id === "low") throw new Error("disk full");
          return async.cancelIfPaused(id, reason);
        },
      }),
    ).rejects.toThrow("disk full");
    expect(async.calls).toEqual(sync.calls);
  });
});
