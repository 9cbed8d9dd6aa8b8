import type { AgentAction } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { deserializeRunState, serializeRunState } from "../runs/serialize-run-state";
import { RunEventOrderError, reduceRun } from "./reduce-run";
import { type RunState, initialRunState } from "./run-state";

const call = (id: string | undefined, cents: number): AgentAction => ({ tool: "charge", toolInput: { cents }, log: "", ...(id === undefined ? {} : { toolCallId: id }) });
const intent = (iteration: number, action: AgentAction) => ({ type: "tool_intent" as const, iteration, at: 0, action });
const fresh = (): RunState => initialRunState("r", undefined, { input: "x" });

describe("reduceRun: early calls (tool_intent)", () => {
  it("keeps an intent without a turn as the agent call's early calls, in doubt; counts the agent call", () => {
    const before = fresh();
    const state = reduceRun(before, intent(0, call("c1", 5)));
    expect(state.earlyCalls).toEqual({ iteration: 0, actions: [call("c1", 5)] });
    expect(state.iteration).toBe(1);
    expect(before.earlyCalls).toBeUndefined(); // pure
  });

  it("keeps one call per id (or tool and input), in the order they started: a retried stream starts the same call again", () => {
    let state = fresh();
    state = reduceRun(state, intent(0, call("c1", 5)));
    state = reduceRun(state, intent(0, call(undefined, 7)));
    state = reduceRun(state, intent(0, call("c1", 5)));
    state = reduceRun(state, intent(0, call(undefined, 7)));
    expect(state.earlyCalls?.actions).toEqual([call("c1", 5), call(undefined, 7)]);
  });

  it("is cleared by the turn's recorded actions, a handled parsing error, the output, or a later agent call", () => {
    const withIntent = reduceRun(fresh(), intent(0, call("c1", 5)));
    const turn = reduceRun(withIntent, { type: "action", iteration: 0, index: 0, action: call("c1", 5), messages: [], at: 1 });
    expect(turn.earlyCalls).toBeUndefined();
    expect(turn.turn?.actions).toEqual([call("c1", 5)]);
    const parsing = reduceRun(withIntent, { type: "step", iteration: 0, step: { action: { tool: "_Exception", toolInput: "", log: "" }, observation: "bad" }, messages: [], durationMs: 0, at: 1 });
    expect(parsing.earlyCalls).toBeUndefined();
    const output = reduceRun(withIntent, { type: "output", runId: "r", output: "done", returnValues: { output: "done" }, messages: [], stopReason: "finish", at: 1 });
    expect(output.earlyCalls).toBeUndefined();
    const sameCall = reduceRun(withIntent, { type: "token", iteration: 0, text: "Pay", at: 1 });
    expect(sameCall.earlyCalls?.actions).toHaveLength(1);
    const later = reduceRun(withIntent, { type: "token", iteration: 1, text: "Hi", at: 1 });
    expect(later.earlyCalls).toBeUndefined();
    const laterIntent = reduceRun(withIntent, intent(1, call("c9", 9)));
    expect(laterIntent.earlyCalls).toEqual({ iteration: 1, actions: [call("c9", 9)] });
  });

  it("refuses an intent while a recorded turn still waits for its results", () => {
    const state = reduceRun(fresh(), { type: "action", iteration: 0, index: 0, action: call("c1", 5), messages: [], at: 1 });
    expect(() => reduceRun(state, intent(1, call("c2", 6)))).toThrow(RunEventOrderError);
  });

  it("survives serialization", () => {
    const state = reduceRun(fresh(), intent(0, call("c1", 5)));
    expect(state.earlyCalls).toBeDefined();
    expect(deserializeRunState(JSON.parse(JSON.stringify(serializeRunState(state)))).earlyCalls).toEqual(state.earlyCalls);
  });
});

describe("reduceRun: a rejection in recorded decisions", () => {
  it("puts the rejected call's turn in the state (rejectedIn), as the live approval gate does; survives serialization", () => {
    let state = fresh();
    state = reduceRun(state, { type: "action", iteration: 0, index: 0, action: call("a", 1), messages: [], at: 1 });
    state = reduceRun(state, { type: "action", iteration: 0, index: 1, action: call("b", 2), messages: [], at: 1 });
    const interrupts = [0, 1].map((index) => ({ id: `call-0-${index}`, tool: "charge", toolInput: { cents: index + 1 }, iteration: 0, index, reason: "approval" as const }));
    state = reduceRun(state, { type: "interrupt", runId: "r", interrupts, at: 2 });
    const approved = reduceRun(state, { type: "decisions", at: 3, decisions: { "call-0-0": "approve", "call-0-1": { type: "approve" } } });
    expect(approved.rejectedIn).toBeUndefined();
    const rejected = reduceRun(state, { type: "decisions", at: 3, decisions: { "call-0-0": "approve", "call-0-1": { type: "reject", message: "no" } } });
    expect(rejected.rejectedIn).toBe(0);
    expect(deserializeRunState(JSON.parse(JSON.stringify(serializeRunState(rejected)))).rejectedIn).toBe(0);
  });
});
