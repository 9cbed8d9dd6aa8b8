import type { AgentAction } from "@agentrx/core";
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { deserializeRunState, serializeRunState } from "../runs/serialize-run-state";
import { RunEventOrderError, reduceRun } from "./reduce-run";
import { type RunState, initialRunState, stepsOfEndedTurn } from "./run-state";

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

describe("reduceRun: a step whose input was refused", () => {
  it("puts its turn in the state (refusedInputIn), from the step's metadata and not its text; survives serialization", () => {
    let state = fresh();
    state = reduceRun(state, { type: "action", iteration: 0, index: 0, action: call("a", 1), messages: [], at: 1 });
    state = reduceRun(state, { type: "action", iteration: 0, index: 1, action: call("b", 2), messages: [], at: 1 });
    // A tool's own answer that reads like a refusal is no refusal.
    const lookalike = reduceRun(state, { type: "step", iteration: 0, index: 0, step: { action: call("a", 1), observation: 'Invalid input for tool "charge": no' }, messages: [], durationMs: 1, at: 2 });
    expect(lookalike.refusedInputIn).toBeUndefined();
    const refused = reduceRun(lookalike, { type: "step", iteration: 0, index: 1, step: { action: call("b", 2), observation: "refused" }, messages: [], durationMs: 1, metadata: { failed: true, refusedInput: true }, at: 2 });
    expect(refused.refusedInputIn).toBe(0);
    expect(deserializeRunState(JSON.parse(JSON.stringify(serializeRunState(refused)))).refusedInputIn).toBe(0);
  });
});

describe("reduceRun: a turn's actions as a record can hold them", () => {
  const action = (iteration: number, index: number, cents = 1) => ({ type: "action" as const, iteration, index, action: call(undefined, cents), messages: [], at: 0 });
  const step = (iteration: number, index: number) => ({ type: "step" as const, iteration, index, step: { action: call(undefined, 1), observation: "ok" }, messages: [], durationMs: 0, at: 0 });
  const fold = (events: Parameters<typeof reduceRun>[1][]) => events.reduce(reduceRun, fresh());

  it("takes a turn's actions in order, then their results, then the next turn", () => {
    const state = fold([action(0, 0), action(0, 1), step(0, 1), step(0, 0), action(1, 0)]);
    expect(state.steps).toHaveLength(2);
    expect(state.turn?.iteration).toBe(1);
  });

  it("refuses an action recorded twice: in its turn, or after its turn ended (its tool would run twice)", () => {
    expect(() => fold([action(0, 0), action(0, 0)])).toThrow(/action 0 of iteration 0 is already recorded/);
    expect(() => fold([action(0, 0), step(0, 0), action(0, 0)])).toThrow(/action 0 of iteration 0 comes after the turn of iteration 0 ended/);
    expect(() => fold([action(0, 0), step(0, 0), action(1, 0), step(1, 0), action(0, 0)])).toThrow(RunEventOrderError);
  });

  it("refuses a turn whose actions skip an index, or come after one of its results", () => {
    expect(() => fold([action(0, 1)])).toThrow(/action 1 of iteration 0 comes before action 0 of its turn/);
    expect(() => fold([action(0, 0), action(0, 2)])).toThrow(/action 2 of iteration 0 comes before action 1 of its turn/);
    expect(() => fold([action(0, 0), action(0, 1), step(0, 0), action(0, 2)])).toThrow(/action 2 of iteration 0 comes after a result of its turn/);
  });

  it("refuses an agent call's event more than one iteration past the calls recorded, or with an iteration that is not a count", () => {
    expect(() => fold([action(0, 0), step(0, 0), action(7, 0)])).toThrow(/an action of iteration 7 comes after 1 agent call\(s\)/);
    expect(() => fold([{ type: "token", iteration: 5, text: "x", at: 0 }])).toThrow(/a token of iteration 5 comes after 0 agent call\(s\)/);
    expect(() => fold([{ type: "token", iteration: Number.NaN, text: "x", at: 0 }])).toThrow(/a token has an iteration that is not a whole number from 0 up: NaN/);
    // One past: the "generate" call after a call a halt cut short, which left no entry (the cut call counts, the streaming one does not yet).
    expect(fold([action(0, 0), step(0, 0), { type: "token", iteration: 2, text: "x", at: 0 }]).iteration).toBe(2);
  });

  it("counts an agent call by its recorded outcome, not by its streamed tokens or its model call (a call cut off mid-answer is made again)", () => {
    const token = (iteration: number) => ({ type: "token" as const, iteration, text: "It is", at: 0 });
    const modelCall = (iteration: number, call: number) => ({ type: "model_call" as const, call, iteration, at: 0, durationMs: 1, inputCount: 1, inputDigest: "d", message: new HumanMessage("x") });
    const start = { type: "start" as const, runId: "r", inputs: { input: "x" }, resumed: true, at: 0 };
    // Cut off while the answer of iteration 1 streamed (`stream()`), or after its model call (`recordModelCalls`):
    // restored as the record of the same cut under `invoke()` (no tokens): iteration 1, right after the turn that ended.
    const streamed = fold([action(0, 0), step(0, 0), token(1), token(1)]);
    const invoked = fold([action(0, 0), step(0, 0)]);
    const called = fold([action(0, 0), step(0, 0), modelCall(1, 1), token(1)]);
    for (const state of [streamed, invoked, called]) {
      expect(state.iteration).toBe(1);
      expect(stepsOfEndedTurn(state)).toHaveLength(1);
    }
    // The resumed run calls the agent as iteration 1 again: its tokens, model call and turn follow.
    const resumed = fold([action(0, 0), step(0, 0), token(1), start, token(1), modelCall(1, 1), action(1, 0)]);
    expect(resumed.turn?.iteration).toBe(1);
    expect(resumed.iteration).toBe(2);
    // A finish, a handled parsing error, or an early tool call is the call's outcome: it counts.
    expect(fold([action(0, 0), step(0, 0), token(1), { type: "step", iteration: 1, step: { action: { tool: "_Exception", toolInput: "", log: "" }, observation: "bad" }, messages: [], durationMs: 0, at: 0 }]).iteration).toBe(2);
    expect(fold([action(0, 0), step(0, 0), token(1), intent(1, call("c1", 5))]).iteration).toBe(2);
    // A record of an earlier release, whose resumes after such cuts called the agent one iteration on each time.
    const older = fold([action(0, 0), step(0, 0), token(1), start, token(2), start, token(3), action(3, 0), step(3, 0)]);
    expect(older.iteration).toBe(4);
    expect(older.steps).toHaveLength(2);
  });

  it("counts the agent call whose answer a message sent back to the model (the message's iteration)", () => {
    const message = { type: "message" as const, iteration: 2, message: new HumanMessage("also this"), at: 0 };
    const state = fold([action(0, 0), step(0, 0), message]);
    expect(state.iteration).toBe(2);
    expect(reduceRun(state, action(2, 0)).turn?.iteration).toBe(2);
  });

  it("refuses an interrupt for a call of the turn that was never recorded", () => {
    const interrupt = (index: number) => ({ id: `call-0-${index}`, tool: "charge", toolInput: {}, iteration: 0, index, reason: "approval" as const });
    expect(fold([action(0, 0), { type: "interrupt", runId: "r", interrupts: [interrupt(0)], at: 0 }]).interrupts).toHaveLength(1);
    expect(() => fold([action(0, 0), { type: "interrupt", runId: "r", interrupts: [interrupt(0), interrupt(3)], at: 0 }])).toThrow(/the interrupt "call-0-3" waits for action 3 of iteration 0, which is not recorded/);
  });
});
