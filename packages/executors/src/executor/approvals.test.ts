// ApprovalGate alone, over a plain fake of its narrow context (ApprovalGateContext): a real
// RunState changed through the real transitions, and recorded calls for everything else.
import type { AgentAction, AgentFinish, AgentStep, InDoubtPolicy, StepMetadata } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { type ApprovalCheck, type ApprovalGateContext, ApprovalGate, REJECTED_OBSERVATION } from "./approvals";
import type { Decision, Interrupt, InterruptEvent, StopReason } from "./events";
import { InDoubtToolCallError } from "./in-doubt-tool-call-error";
import { SubRunInterruptedError } from "../handoff/sub-run-interrupted-error";
import { type RunState, type RunTransition, initialRunState, pendingActions, transition } from "./run-state";
import { leftOutText } from "../runs/json-value";

const act = (tool: string, toolInput: Record<string, unknown> = {}, toolCallId?: string): AgentAction => ({ tool, toolInput, log: "", ...(toolCallId === undefined ? {} : { toolCallId }) });

function fakeRun(options: { approval?: ApprovalCheck; decisions?: Record<string, Decision>; freshDecisions?: string[]; threadId?: string; inDoubt?: (action: AgentAction) => InDoubtPolicy } = {}) {
  const dispatched: RunTransition[] = [];
  const waits: boolean[] = [];
  const finished: { index: number; step: AgentStep; metadata: StepMetadata | undefined }[] = [];
  const completed: { finish: AgentFinish; stopReason: StopReason; interrupt: InterruptEvent }[] = [];
  const state: RunState = initialRunState("run-1", options.threadId, { input: "x" });
  const run = {
    state,
    approval: options.approval,
    decisions: options.decisions,
    freshDecisions: new Set(options.freshDecisions ?? []),
    dispatch(event: RunTransition) {
      dispatched.push(event);
      transition(state, event);
    },
    wait<T>(promise: Promise<T>, halts: boolean): Promise<T> {
      waits.push(halts);
      return promise;
    },
    toolFinished(index: number, step: AgentStep, _durationMs: number, metadata: StepMetadata | undefined) {
      finished.push({ index, step, metadata });
      transition(state, { type: "toolFinished", index, step });
    },
    inDoubtPolicy: (action: AgentAction): InDoubtPolicy => options.inDoubt?.(action) ?? "retry",
    complete(finish: AgentFinish, stopReason: StopReason, interrupt: InterruptEvent): Promise<void> {
      completed.push({ finish, stopReason, interrupt });
      return Promise.resolve();
    },
  } satisfies ApprovalGateContext;
  return { run, state, dispatched, waits, finished, completed };
}

/** A turn of `actions` started at iteration 0 whose calls at `waiting` wait for a decision. */
function pausedTurn(fake: ReturnType<typeof fakeRun>, actions: AgentAction[], waiting: number[]): Interrupt[] {
  fake.run.dispatch({ type: "agentCalled" });
  fake.run.dispatch({ type: "turnStarted", actions });
  const interrupts: Interrupt[] = waiting.map((index) => ({ id: `call-0-${index}`, tool: actions[index]!.tool, toolInput: actions[index]!.toolInput, iteration: 0, index, reason: "approval" }));
  fake.run.dispatch({ type: "approvalRequested", interrupts });
  fake.dispatched.length = 0;
  return interrupts;
}

describe("ApprovalGate.subRunPaused", () => {
  it("keeps the turn's interrupts in call order, whichever parallel call's sub-run paused first", () => {
    const fake = fakeRun({ approval: async () => true });
    pausedTurn(fake, [act("billing"), act("refunds"), act("notify")], [2]);
    const gate = new ApprovalGate(fake.run);
    const pause = (runId: string) =>
      new SubRunInterruptedError({ tool: runId, runId, waitingOn: ["refund"], interrupts: [{ id: "call-0-0", tool: "refund", toolInput: {}, iteration: 0, index: 0, reason: "approval" }], resumable: true });
    gate.subRunPaused(1, pause("as-tool:r:0:b2")); // the second call's sub-run paused first
    gate.subRunPaused(0, pause("as-tool:r:0:b1"));
    expect(fake.state.interrupts.map((interrupt) => [interrupt.index, interrupt.subRun?.runId])).toEqual([
      [0, "as-tool:r:0:b1"],
      [1, "as-tool:r:0:b2"],
      [2, undefined],
    ]);
  });
});

describe("ApprovalGate: which calls need approval", () => {
  it("is enabled only when the run has an approval check", () => {
    expect(new ApprovalGate(fakeRun().run).enabled).toBe(false);
    expect(new ApprovalGate(fakeRun({ approval: async () => false }).run).enabled).toBe(true);
  });

  it("asks the check for each action (with the run and thread ids), through a wait that a halt ends; gives stable ids", async () => {
    const asked: [string, { runId: string; threadId?: string }][] = [];
    const approval: ApprovalCheck = async (action, context) => {
      asked.push([action.tool, context]);
      return action.tool === "pay";
    };
    const fake = fakeRun({ approval, threadId: "t-1" });
    const gate = new ApprovalGate(fake.run);
    const interrupts = await gate.interruptsOf([act("read"), act("pay", { cents: 5 }, "tc-9"), act("pay", { cents: 7 })], 3);
    expect(asked).toEqual([
      ["read", { runId: "run-1", threadId: "t-1" }],
      ["pay", { runId: "run-1", threadId: "t-1" }],
      ["pay", { runId: "run-1", threadId: "t-1" }],
    ]);
    expect(fake.waits).toEqual([true]);
    expect(interrupts).toEqual([
      { id: "call-3-1", tool: "pay", toolInput: { cents: 5 }, iteration: 3, index: 1, reason: "approval", toolCallId: "tc-9" },
      { id: "call-3-2", tool: "pay", toolInput: { cents: 7 }, iteration: 3, index: 2, reason: "approval" },
    ]);
  });

  it("leaves threadId out of the check's context when the run has no thread", async () => {
    const contexts: object[] = [];
    const fake = fakeRun({
      approval: async (_action, context) => {
        contexts.push(context);
        return false;
      },
    });
    expect(await new ApprovalGate(fake.run).interruptsOf([act("read")], 0)).toEqual([]);
    expect(contexts).toEqual([{ runId: "run-1" }]);
  });

  it("requested: the calls wait for a decision (their calls are no longer pending); nothing happens for none", () => {
    const fake = fakeRun({ approval: async () => true });
    const gate = new ApprovalGate(fake.run);
    fake.run.dispatch({ type: "agentCalled" });
    fake.run.dispatch({ type: "turnStarted", actions: [act("read"), act("pay")] });
    fake.dispatched.length = 0;
    gate.requested([]);
    expect(fake.dispatched).toEqual([]);
    const interrupts: Interrupt[] = [{ id: "call-0-1", tool: "pay", toolInput: {}, iteration: 0, index: 1, reason: "approval" }];
    gate.requested(interrupts);
    expect(fake.dispatched).toEqual([{ type: "approvalRequested", interrupts }]);
    expect(pendingActions(fake.state)).toEqual([0]);
  });
});

describe("ApprovalGate: pause", () => {
  it("ends the run as a pause: an interrupt event with the waiting interrupts, stop reason interrupted, empty output", async () => {
    const fake = fakeRun({ approval: async () => true });
    const interrupts = pausedTurn(fake, [act("pay", { cents: 1 })], [0]);
    await new ApprovalGate(fake.run).pause();
    expect(fake.completed).toHaveLength(1);
    const [{ finish, stopReason, interrupt }] = fake.completed as [(typeof fake.completed)[0]];
    expect(finish.returnValues).toEqual({ output: "" });
    expect(stopReason).toBe("interrupted");
    expect(interrupt).toMatchObject({ type: "interrupt", runId: "run-1", interrupts });
    expect(typeof interrupt.at).toBe("number");
  });
});

describe("ApprovalGate.applyDecisions", () => {
  it("applies each decision: approve lets it run, reject and result become its step, edit changes its input", () => {
    const actions = [act("a", { n: 0 }), act("b", { n: 1 }), act("c", { n: 2 }), act("d", { n: 3 }), act("e", { n: 4 })];
    const decisions: Record<string, Decision> = {
      "call-0-0": "approve",
      "call-0-1": { type: "reject", message: "not today" },
      "call-0-2": { type: "reject" },
      "call-0-3": { type: "result", observation: "done by hand" },
      "call-0-4": { type: "edit", toolInput: { n: 40 } },
    };
    const fake = fakeRun({ approval: async () => true, decisions });
    pausedTurn(fake, actions, [0, 1, 2, 3, 4]);
    new ApprovalGate(fake.run).applyDecisions();
    expect(fake.dispatched[0]).toEqual({ type: "decided", ids: ["call-0-0", "call-0-1", "call-0-2", "call-0-3", "call-0-4"] });
    expect(fake.dispatched.slice(1)).toEqual([{ type: "callRejected", iteration: 0 }, { type: "callRejected", iteration: 0 }, { type: "inputEdited", index: 4, toolInput: { n: 40 } }]);
    expect(fake.finished).toEqual([
      { index: 1, step: { action: actions[1], observation: "not today" }, metadata: { rejected: true } },
      { index: 2, step: { action: actions[2], observation: REJECTED_OBSERVATION }, metadata: { rejected: true } },
      { index: 3, step: { action: actions[3], observation: "done by hand" }, metadata: { observationEdited: true } },
    ]);
    expect(fake.state.interrupts).toEqual([]);
    expect(pendingActions(fake.state)).toEqual([0, 4]); // the approved and the edited call run
    expect(fake.state.turn?.actions[4]?.toolInput).toEqual({ n: 40 });
  });

  it("leaves the interrupts without a decision waiting", () => {
    const fake = fakeRun({ approval: async () => true, decisions: { "call-0-1": "approve" } });
    const interrupts = pausedTurn(fake, [act("a"), act("b")], [0, 1]);
    new ApprovalGate(fake.run).applyDecisions();
    expect(fake.dispatched).toEqual([{ type: "decided", ids: ["call-0-1"] }]);
    expect(fake.state.interrupts).toEqual([interrupts[0]]);
    expect(pendingActions(fake.state)).toEqual([1]);
  });

  it("does nothing without decisions, or when nothing waits", () => {
    const none = fakeRun({ approval: async () => true });
    pausedTurn(none, [act("a")], [0]);
    new ApprovalGate(none.run).applyDecisions();
    expect(none.dispatched).toEqual([]);
    const nothingWaits = fakeRun({ approval: async () => true, decisions: { "call-0-0": "approve" } });
    pausedTurn(nothingWaits, [act("a")], []);
    new ApprovalGate(nothingWaits.run).applyDecisions();
    expect(nothingWaits.dispatched).toEqual([]);
  });

  it("scopes a rejection to its turn through the run's state (rejectedIn)", () => {
    const fake = fakeRun({ approval: async () => true, decisions: { "call-0-0": { type: "reject" } } });
    pausedTurn(fake, [act("a")], [0]);
    const gate = new ApprovalGate(fake.run);
    expect(gate.rejectedInTurn(0)).toBe(false);
    gate.applyDecisions();
    expect(fake.state.rejectedIn).toBe(0);
    expect(gate.rejectedInTurn(0)).toBe(true);
    expect(gate.rejectedInTurn(1)).toBe(false);
  });

  it("reads the rejection from the state, as a resumed run restores it", () => {
    const fake = fakeRun({ approval: async () => true });
    fake.state.rejectedIn = 4;
    const gate = new ApprovalGate(fake.run);
    expect(gate.rejectedInTurn(4)).toBe(true);
    expect(gate.rejectedInTurn(3)).toBe(false);
  });
});

describe("ApprovalGate.settleInDoubt", () => {
  it("by each call's policy: retry leaves it to run again, interrupt makes it wait (after the interrupts already waiting)", () => {
    const policies: Record<string, InDoubtPolicy> = { a: "retry", b: "interrupt", c: "interrupt" };
    const fake = fakeRun({ inDoubt: (action) => policies[action.tool] ?? "retry" });
    const actions = [act("a"), act("b", {}, "tc-b"), act("c", { x: 1 }), act("w")];
    const waiting = pausedTurn(fake, actions, [3]);
    new ApprovalGate(fake.run).settleInDoubt([0, 1, 2]);
    expect(fake.dispatched).toEqual([
      {
        type: "approvalRequested",
        interrupts: [
          ...waiting,
          { id: "call-0-1", tool: "b", toolInput: {}, iteration: 0, index: 1, reason: "in_doubt", toolCallId: "tc-b" },
          { id: "call-0-2", tool: "c", toolInput: { x: 1 }, iteration: 0, index: 2, reason: "in_doubt" },
        ],
      },
    ]);
    expect(pendingActions(fake.state)).toEqual([0]);
    expect(fake.finished).toEqual([]);
  });

  it("retry of a call whose recorded input lost a part: answered with an observation saying so, not run again", () => {
    const fake = fakeRun({ inDoubt: () => "retry" });
    const lost = leftOutText("toolInput.deep");
    const actions = [act("a", { deep: { part: lost } }), act("b", { fine: 1 })];
    pausedTurn(fake, actions, []);
    new ApprovalGate(fake.run).settleInDoubt([0, 1]);
    expect(fake.finished).toHaveLength(1);
    expect(fake.finished[0]?.index).toBe(0);
    expect(String(fake.finished[0]?.step.observation)).toContain('The call to tool "a" could not run again on resume');
    expect(String(fake.finished[0]?.step.observation)).toContain(lost);
    // The tool did not run: the step says so, and its turn does not return directly.
    expect(fake.finished[0]?.metadata).toEqual({ failed: true, refusedInput: true });
    expect(fake.dispatched).toEqual([]);
    expect(pendingActions(fake.state)).toEqual([1]);
  });

  it("fail: throws an InDoubtToolCallError naming the call", () => {
    const fake = fakeRun({ inDoubt: () => "fail" });
    pausedTurn(fake, [act("a"), act("pay")], []);
    let thrown: unknown;
    try {
      new ApprovalGate(fake.run).settleInDoubt([1]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InDoubtToolCallError);
    expect(thrown).toMatchObject({ runId: "run-1", tool: "pay", iteration: 0, index: 1 });
  });

  it("does nothing without indexes or without a turn", () => {
    const fake = fakeRun({ inDoubt: () => "fail" });
    const gate = new ApprovalGate(fake.run);
    gate.settleInDoubt([0]); // no turn
    pausedTurn(fake, [act("a")], []);
    gate.settleInDoubt([]);
    expect(fake.dispatched).toEqual([]);
  });
});

describe("ApprovalGate.resumeTurn", () => {
  it("applies the decisions, then settles the calls without a result, except those this resume's own decisions answer (they never started)", () => {
    const fake = fakeRun({ decisions: { "call-0-1": "approve" }, freshDecisions: ["call-0-1"], inDoubt: () => "interrupt" });
    pausedTurn(fake, [act("a"), act("pay"), act("b")], [1]);
    new ApprovalGate(fake.run).resumeTurn();
    expect(fake.dispatched).toEqual([
      { type: "decided", ids: ["call-0-1"] },
      {
        type: "approvalRequested",
        interrupts: [
          { id: "call-0-0", tool: "a", toolInput: {}, iteration: 0, index: 0, reason: "in_doubt" },
          { id: "call-0-2", tool: "b", toolInput: {}, iteration: 0, index: 2, reason: "in_doubt" },
        ],
      },
    ]);
    expect(pendingActions(fake.state)).toEqual([1]);
  });

  it("a call a decision recorded before this resume answers may have started: it is in doubt too", () => {
    const fake = fakeRun({ decisions: { "call-0-1": "approve" }, inDoubt: () => "interrupt" });
    pausedTurn(fake, [act("a"), act("pay")], [1]);
    new ApprovalGate(fake.run).resumeTurn();
    expect(fake.dispatched.at(-1)).toEqual({
      type: "approvalRequested",
      interrupts: [
        { id: "call-0-0", tool: "a", toolInput: {}, iteration: 0, index: 0, reason: "in_doubt" },
        { id: "call-0-1", tool: "pay", toolInput: {}, iteration: 0, index: 1, reason: "in_doubt" },
      ],
    });
  });
  it("a call whose sub-run's paused calls have recorded decisions is not in doubt: it runs again, handing them on", () => {
    const fake = fakeRun({ decisions: { "call-0-1/call-0-0": { type: "edit", toolInput: { amount: 5 } } }, inDoubt: () => "interrupt" });
    const actions = [act("a"), act("transfer_to_billing")];
    fake.run.dispatch({ type: "agentCalled" });
    fake.run.dispatch({ type: "turnStarted", actions });
    const subRun = { tool: "transfer_to_billing", runId: "handoff:run-1:0:1", interruptId: "call-0-0" };
    fake.run.dispatch({ type: "approvalRequested", interrupts: [{ id: "call-0-1/call-0-0", tool: "refund", toolInput: { amount: 10 }, iteration: 0, index: 1, reason: "approval", subRun }] });
    fake.dispatched.length = 0;
    const gate = new ApprovalGate(fake.run);
    gate.resumeTurn();
    // Only the other call (which may have started) is in doubt.
    expect(fake.dispatched).toEqual([
      { type: "decided", ids: ["call-0-1/call-0-0"] },
      { type: "approvalRequested", interrupts: [{ id: "call-0-0", tool: "a", toolInput: {}, iteration: 0, index: 0, reason: "in_doubt" }] },
    ]);
    expect(gate.subRunDecisions(1)).toEqual({ "call-0-0": { type: "edit", toolInput: { amount: 5 } } });
    expect(pendingActions(fake.state)).toEqual([1]);
  });
});
