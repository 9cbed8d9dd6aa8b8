import { describe, expect, it } from "vitest";
import { cancelPausedSubRuns, pausedSubRunIds } from "./sub-run-cancel";

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

describe("cancelPausedSubRuns", () => {
  it("goes down the sub-runs it cancelled only, once each, each named after its own caller", () => {
    const pauses: Record<string, string[]> = {
      top: [interrupt("top", ["mid", "done"])],
      mid: [interrupt("mid", ["low", "top"])],
      done: [interrupt("done", ["below-done"])],
    };
    const paused = new Set(["mid", "low", "below-done", "top"]);
    const cancelled: [string, string][] = [];
    cancelPausedSubRuns("top", "why", {
      interruptEvents: (id) => pauses[id] ?? [],
      cancelIfPaused: (id, reason) => {
        if (!paused.delete(id)) return false;
        cancelled.push([id, reason]);
        return true;
      },
    });
    expect(cancelled).toEqual([
      ["mid", 'Its calling run "top" was cancelled: why'],
      ["low", 'Its calling run "mid" was cancelled: why'],
    ]);
  });
});
