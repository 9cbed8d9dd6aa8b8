import type { AgentAction } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { addUsage } from "../cost/cost";
import { type RunPhase, type RunTransition, initialRunState, isEnded, pendingActions, transition } from "./run-state";

const action = (tool: string): AgentAction => ({ tool, toolInput: {}, log: tool });

describe("transition", () => {
  it("fails a run whose end was refused after it finished or paused, and leaves other ended runs as they are", () => {
    const ends: [RunTransition, RunPhase][] = [
      [{ type: "finished", stopReason: "finish" }, "failed"],
      [{ type: "paused", interrupts: [] }, "failed"],
      [{ type: "cancelled" }, "cancelled"],
    ];
    for (const [end, expected] of ends) {
      const state = initialRunState("run", undefined, {});
      transition(state, end);
      transition(state, { type: "failed" }); // a plain failure never overrides an end
      expect(state.phase).toBe(end.type === "finished" ? "done" : end.type === "paused" ? "interrupted" : "cancelled");
      transition(state, { type: "endRefused" });
      expect(state.phase).toBe(expected);
    }
  });

  it("cancels a run cancelled while its memory took the messages of its answer; any other end stays as it is", () => {
    const ends: [RunTransition, RunPhase][] = [
      [{ type: "finished", stopReason: "finish" }, "cancelled"],
      [{ type: "paused", interrupts: [] }, "interrupted"],
      [{ type: "failed" }, "failed"],
    ];
    for (const [end, expected] of ends) {
      const state = initialRunState("run", undefined, {});
      transition(state, end);
      transition(state, { type: "endCancelled" });
      expect(state.phase).toBe(expected);
    }
    const running = initialRunState("run", undefined, {});
    transition(running, { type: "endCancelled" });
    expect(running.phase).toBe("agent");
  });

  it("appends a turn's steps in action order once every tool finished, whatever order they finished in", () => {
    const state = initialRunState("r", undefined, { input: "x" });
    transition(state, { type: "agentCalled" });
    const [a, b, c] = [action("a"), action("b"), action("c")];
    transition(state, { type: "turnStarted", actions: [a, b, c] });
    expect(state).toMatchObject({ phase: "tools", iteration: 1, turn: { iteration: 0 } });
    const before = state.steps;
    transition(state, { type: "toolFinished", index: 2, step: { action: c, observation: "C" } });
    transition(state, { type: "toolFinished", index: 0, step: { action: a, observation: "A" } });
    expect(pendingActions(state)).toEqual([1]);
    expect(state.steps).toEqual([]);
    transition(state, { type: "toolFinished", index: 1, step: { action: b, observation: "B" } });
    expect(state.steps.map((step) => step.observation)).toEqual(["A", "B", "C"]);
    expect(state.turn).toBeUndefined();
    expect(state.phase).toBe("agent");
    // The list an agent was given is never mutated.
    expect(before).toEqual([]);
  });

  it("keeps the finished steps of a halted turn and records why it stopped, once", () => {
    const state = initialRunState("r", undefined, {});
    transition(state, { type: "agentCalled" });
    const [a, b] = [action("a"), action("b")];
    transition(state, { type: "turnStarted", actions: [a, b] });
    transition(state, { type: "toolFinished", index: 1, step: { action: b, observation: "B" } });
    transition(state, { type: "halted", reason: "max_execution_time" });
    transition(state, { type: "halted", reason: "budget" });
    expect(state).toMatchObject({ phase: "stopping", stopReason: "max_execution_time", turn: undefined });
    expect(state.steps.map((step) => step.observation)).toEqual(["B"]);
    transition(state, { type: "finished", stopReason: "max_execution_time" });
    expect(isEnded(state)).toBe(true);
    transition(state, { type: "cancelled" });
    expect(state.phase).toBe("done");
  });

  it("sums usage, details included", () => {
    const state = initialRunState("r", undefined, {});
    transition(state, { type: "usageReported", usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4, input_token_details: { cache_read: 2 } } });
    transition(state, { type: "usageReported", usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7, output_token_details: { reasoning: 1 } } });
    expect(state.usage).toEqual({
      input_tokens: 8,
      output_tokens: 3,
      total_tokens: 11,
      input_token_details: { cache_read: 2 },
      output_token_details: { reasoning: 1 },
    });
    expect(addUsage(undefined, { input_tokens: 1, output_tokens: 1, total_tokens: 2 })).toEqual({ input_tokens: 1, output_tokens: 1, total_tokens: 2 });
  });

  it("appends a handled parsing error's step at once", () => {
    const state = initialRunState("r", undefined, {});
    transition(state, { type: "agentCalled" });
    transition(state, { type: "parsingErrorHandled", step: { action: action("_Exception"), observation: "fix it" } });
    expect(state.steps).toHaveLength(1);
    expect(state.phase).toBe("agent");
  });
});

describe("compaction", () => {
  it("is folded into the state by reduceRun and survives serialization; a middleware event changes nothing", async () => {
    const { reduceRun } = await import("./reduce-run");
    const { deserializeRunState, serializeRunState } = await import("../runs/serialize-run-state");
    let state = initialRunState("r", undefined, { input: "x" });
    state = reduceRun(state, { type: "compaction", iteration: 2, middleware: "compactSteps", steps: 0, summary: "nothing yet", at: 1 });
    const before = state;
    state = reduceRun(state, { type: "middleware", name: "m", iteration: 2, data: { a: 1 }, at: 2 });
    expect(state).toEqual(before);
    expect(state.compaction).toEqual({ steps: 0, summary: "nothing yet" });
    expect(deserializeRunState(JSON.parse(JSON.stringify(serializeRunState(state)))).compaction).toEqual({ steps: 0, summary: "nothing yet" });
  });
});
