// A handoff whose other agent pauses for approval pauses its (recorded) caller too, with the other
// agent's waiting calls; a resume of the caller with decisions on them resumes the other agent's
// run with them (see docs/agent-types.md, "Pauses inside a handoff").
import { createToolCallingAgent } from "@agentrx/agents";
import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { type AgentMiddleware, AgentExecutor, type AgentStreamEvent, type Interrupt, RunEventDecoder, RunBusyError, type RunStore, SubRunInterruptedError, handoff, restoreRunState, runPauses } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect } from "../executor/test-helpers";
import { billingAgent, prompt } from "./nested-pause-fixtures";
import { InProcessRunStore } from "../runs/in-process-run-store";

/** The caller: hands off to billing at once (after `lookup` in the same turn, when `withLookup`). */
function triageAgent(billing: AgentExecutor, store: RunStore | undefined, { withLookup = false, eagerTools = false, middleware = [] as AgentMiddleware[] } = {}) {
  const looked: string[] = [];
  const lookup = tool(
    async ({ id }: { id: string }) => {
      looked.push(id);
      return `order ${id}: paid twice`;
    },
    { name: "lookup", description: "Looks an order up.", schema: z.object({ id: z.string() }) },
  );
  const toBilling = handoff(billing, { name: "transfer_to_billing", description: "Refunds." });
  const calls = [...(withLookup ? [{ name: "lookup", args: { id: "42" } }] : []), { name: "transfer_to_billing", args: {} }];
  const llm = new ScriptedChatModel({ responses: [{ toolCalls: calls }, "Triage: done."] });
  const tools = [lookup, toBilling];
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, eagerTools, middleware, ...(store ? { store } : {}) });
  return { executor, looked, llm };
}

function setup(amounts: number[] = [10], options: { withLookup?: boolean; eagerTools?: boolean; middleware?: AgentMiddleware[] } = {}) {
  const callerStore = new InProcessRunStore();
  const billingStore = new InProcessRunStore();
  const billing = billingAgent(billingStore, amounts);
  const triage = triageAgent(billing.executor, callerStore, options);
  return { callerStore, billingStore, billing, triage };
}

describe("handoff: a pause inside pauses the caller", () => {
  it("pauses the recorded caller with the other agent's waiting call, flattened, and records that pause", async () => {
    const { callerStore, billingStore, billing, triage } = setup();
    const events: AgentStreamEvent[] = await collect(triage.executor.stream({ input: "Refund me" }, { runId: "t1" }));
    const own = events.filter((event) => event.subRun === undefined);
    expect(own.at(-1)).toMatchObject({ type: "output", stopReason: "interrupted" });
    const pause = own.find((event) => event.type === "interrupt");
    const interrupts = pause?.type === "interrupt" ? pause.interrupts : [];
    expect(interrupts).toHaveLength(1);
    const subRunId = interrupts[0]?.subRun?.runId ?? "";
    expect(subRunId).toMatch(/^handoff:t1:0:/);
    expect(interrupts[0]).toMatchObject({
      id: "call-0-0/call-0-0",
      tool: "refund",
      toolInput: { amount: 10 },
      iteration: 0,
      index: 0,
      reason: "approval",
      subRun: { tool: "transfer_to_billing", runId: subRunId, interruptId: "call-0-0" },
    } satisfies Interrupt);
    // No step for the handoff call: it waits, and failed nothing.
    expect(own.filter((event) => event.type === "step")).toHaveLength(0);
    expect(billing.refunded).toEqual([]);
    // Recorded: the pause, as the caller's record and the other agent's hold it.
    expect((await callerStore.getRun("t1"))?.status).toBe("interrupted");
    expect(runPauses("t1", await callerStore.readEvents("t1")).waiting).toEqual(interrupts);
    const info = await callerStore.getRun("t1");
    expect(info && restoreRunState(info, await callerStore.readEvents("t1")).state.interrupts).toEqual(interrupts);
    expect((await billingStore.getRun(subRunId))?.status).toBe("interrupted");
    // Resumed without decisions, it pauses again on the same call.
    const again = await triage.executor.resume("t1");
    expect(again).toMatchObject({ stopReason: "interrupted", interrupts });
  });

  it("approve: the other agent's tool runs once, and the caller ends with its answer", async () => {
    const { callerStore, billing, triage } = setup();
    const paused = await triage.executor.invoke({ input: "Refund me" }, { runId: "t2" });
    expect(paused.stopReason).toBe("interrupted");
    const result = await triage.executor.resume("t2", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
    expect(billing.refunded).toEqual([10]);
    expect(triage.llm.calls).toHaveLength(1); // the handoff answered: the caller's model is not asked again
    expect((await callerStore.getRun("t2"))?.status).toBe("finished");
    // Resumed again, the finished run gives its answer: nothing runs twice.
    expect(await triage.executor.resume("t2")).toMatchObject({ output: "Billing: refunded 10" });
    expect(billing.refunded).toEqual([10]);
  });

  it("reject: the other agent sees the rejection, and the caller ends with its answer", async () => {
    const { billing, triage } = setup();
    await triage.executor.invoke({ input: "Refund me" }, { runId: "t3" });
    const result = await triage.executor.resume("t3", { decisions: { "call-0-0/call-0-0": { type: "reject", message: "No refunds over the phone." } } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: No refunds over the phone." });
    expect(billing.refunded).toEqual([]);
  });

  it("edit: the other agent's tool runs with the edited input", async () => {
    const { callerStore, billing, triage } = setup();
    await triage.executor.invoke({ input: "Refund me" }, { runId: "t4" });
    const result = await triage.executor.resume("t4", { decisions: { "call-0-0/call-0-0": { type: "edit", toolInput: { amount: 5 } } } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 5" });
    expect(billing.refunded).toEqual([5]);
    // Read back, the caller's handoff step keeps its own input: the edit was the other agent's call's.
    const decoder = new RunEventDecoder("t4");
    const steps = (await callerStore.readEvents("t4")).map((stored) => decoder.decode(stored)).filter((event) => event.type === "step" && event.subRun === undefined);
    expect(steps.map((event) => event.type === "step" && [event.step.action.tool, event.step.action.toolInput])).toEqual([["transfer_to_billing", {}]]);
  });

  it("an edit the other agent's tool refuses is refused by the caller's resume, saying why: nothing is recorded or run, and both runs stay paused", async () => {
    const { callerStore, billingStore, billing, triage } = setup();
    const paused = await triage.executor.invoke({ input: "Refund me" }, { runId: "t5" });
    const subRunId = paused.interrupts?.[0]?.subRun?.runId ?? "";
    const before = (await callerStore.readEvents("t5")).length;
    const error = await triage.executor.resume("t5", { decisions: { "call-0-0/call-0-0": { type: "edit", toolInput: { amount: "all" } } } }).then(
      () => undefined,
      (refused: unknown) => refused,
    );
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "decisions" });
    expect((error as Error).message).toMatch(/the edited input for "call-0-0\/call-0-0" \(tool "refund" of the agent "transfer_to_billing" runs\) does not fit the tool's schema: amount: .*Nothing ran\./);
    expect(billing.refunded).toEqual([]);
    expect(triage.llm.calls).toHaveLength(1);
    expect((await callerStore.getRun("t5"))?.status).toBe("interrupted");
    expect(await callerStore.readEvents("t5")).toHaveLength(before);
    expect((await billingStore.getRun(subRunId))?.status).toBe("interrupted");
    // Still paused on the same call: a fitting edit goes through.
    const result = await triage.executor.resume("t5", { decisions: { "call-0-0/call-0-0": { type: "edit", toolInput: { amount: 5 } } } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 5" });
    expect(billing.refunded).toEqual([5]);
  });

  it("a pause decided with the other agent's executor meanwhile: the caller's decisions find it answered, and it takes that answer", async () => {
    const { billing, triage } = setup();
    const paused = await triage.executor.invoke({ input: "Refund me" }, { runId: "t12" });
    const subRunId = paused.interrupts?.[0]?.subRun?.runId ?? "";
    expect(await billing.executor.resume(subRunId, { decisions: { "call-0-0": "approve" } })).toMatchObject({ output: "Billing: refunded 10" });
    const result = await triage.executor.resume("t12", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
    expect(billing.refunded).toEqual([10]);
  });

  it("answering one of two waiting calls runs that one, and the caller pauses again on the other", async () => {
    const { billing, triage } = setup([10, 20]);
    const first = await triage.executor.invoke({ input: "Refund me" }, { runId: "t6" });
    expect(first.interrupts?.map((interrupt) => [interrupt.id, interrupt.toolInput])).toEqual([
      ["call-0-0/call-0-0", { amount: 10 }],
      ["call-0-0/call-0-1", { amount: 20 }],
    ]);
    const second = await triage.executor.resume("t6", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(second.stopReason).toBe("interrupted");
    expect(second.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0/call-0-1"]);
    expect(billing.refunded).toEqual([10]);
    const third = await triage.executor.resume("t6", { decisions: { "call-0-0/call-0-1": "approve" } });
    expect(third).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10; refunded 20" });
    expect(billing.refunded).toEqual([10, 20]);
  });

  it("a turn with another call: that call runs once, the pause waits for it, and the turn does not return directly", async () => {
    const { billing, triage } = setup([10], { withLookup: true });
    const paused = await triage.executor.invoke({ input: "Refund me" }, { runId: "t7" });
    expect(paused.interrupts?.map((interrupt) => [interrupt.id, interrupt.index])).toEqual([["call-0-1/call-0-0", 1]]);
    expect(triage.looked).toEqual(["42"]);
    const result = await triage.executor.resume("t7", { decisions: { "call-0-1/call-0-0": "approve" } });
    // Two calls, one of them not a handoff: the model answers after the turn, as it would have.
    expect(result).toMatchObject({ stopReason: "finish", output: "Triage: done." });
    expect(triage.looked).toEqual(["42"]);
    expect(billing.refunded).toEqual([10]);
    expect(triage.llm.calls.at(-1)?.messages.filter((message) => message.getType() === "tool").map((message) => message.text)).toEqual(["order 42: paid twice", "Billing: refunded 10"]);
  });

  it("a handoff started early (eagerTools) pauses the caller the same way", async () => {
    const { billing, triage } = setup([10], { withLookup: true, eagerTools: true });
    const events: AgentStreamEvent[] = await collect(triage.executor.stream({ input: "Refund me" }, { runId: "t10" }));
    const own = events.filter((event) => event.subRun === undefined);
    expect(own.filter((event) => event.type === "action").map((event) => event.type === "action" && [event.action.tool, event.early])).toEqual([
      ["lookup", true],
      ["transfer_to_billing", true],
    ]);
    expect(own.at(-1)).toMatchObject({ type: "output", stopReason: "interrupted" });
    const result = await triage.executor.resume("t10", { decisions: { "call-0-1/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "finish", output: "Triage: done." });
    expect(triage.looked).toEqual(["42"]);
    expect(billing.refunded).toEqual([10]);
  });

  it("a handoff under wrapToolCall middleware pauses the caller too, and the middleware sees the resumed call's answer", async () => {
    const seen: unknown[] = [];
    const watch: AgentMiddleware = {
      name: "watch",
      wrapToolCall: async (call, next) => {
        const observation = await next(call);
        seen.push(observation);
        return observation;
      },
    };
    const { billing, triage } = setup([10], { middleware: [watch] });
    const paused = await triage.executor.invoke({ input: "Refund me" }, { runId: "t11" });
    expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0/call-0-0"]);
    const result = await triage.executor.resume("t11", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
    expect(billing.refunded).toEqual([10]);
    expect(seen.at(-1)).toBe("Billing: refunded 10");
  });

  it("a pause two handoffs down pauses the top run, one level of ids per handoff", async () => {
    const billing = billingAgent(new InProcessRunStore());
    const toBilling = handoff(billing.executor, { name: "transfer_to_billing", description: "Refunds." });
    const middle = new AgentExecutor({
      agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "transfer_to_billing", args: {} }] }] }), tools: [toBilling], prompt }),
      tools: [toBilling],
      store: new InProcessRunStore(),
    });
    const top = triageAgent(middle, new InProcessRunStore());
    const paused = await top.executor.invoke({ input: "Refund me" }, { runId: "t9" });
    expect(paused.interrupts).toMatchObject([{ id: "call-0-0/call-0-0/call-0-0", tool: "refund", toolInput: { amount: 10 }, subRun: { tool: "transfer_to_billing", interruptId: "call-0-0/call-0-0" } }]);
    const result = await top.executor.resume("t9", { decisions: { "call-0-0/call-0-0/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
    expect(billing.refunded).toEqual([10]);
  });

  it("refuses a decision for an interrupt the caller does not wait on, naming the ones it does", async () => {
    const { triage } = setup();
    await triage.executor.invoke({ input: "Refund me" }, { runId: "t8" });
    await expect(triage.executor.resume("t8", { decisions: { "call-0-0/call-9-9": "approve" } })).rejects.toThrow(/no interrupt "call-0-0\/call-9-9" waiting for a decision \(waiting: call-0-0\/call-0-0\)/);
  });

  it("an unrecorded caller keeps the old behaviour: the handoff call fails with SubRunInterruptedError", async () => {
    const billing = billingAgent(new InProcessRunStore());
    const triage = triageAgent(billing.executor, undefined);
    const result = await triage.executor.invoke({ input: "Refund me" });
    expect(result.stopReason).toBe("return_direct");
    expect(result.output).toMatch(/Tool "transfer_to_billing" failed with error: .*paused for approval \(waiting on "refund"\)/);
    expect(result.interrupts).toBeUndefined();
    expect(billing.refunded).toEqual([]);
  });

  it("the other agent's run held by another process: the caller's retry waits for its lease, and stops waiting when the caller's signal aborts", async () => {
    const { billingStore, billing, triage } = setup();
    const paused = await triage.executor.invoke({ input: "Refund me" }, { runId: "t13" });
    const subRunId = paused.interrupts?.[0]?.subRun?.runId ?? "";
    await billingStore.claimRun(subRunId, { owner: "elsewhere", leaseMs: 60_000, at: Date.now() });
    const controller = new AbortController();
    // Aborted once the retry was refused the run (it waits for the lease then).
    const claim = billingStore.claimRun.bind(billingStore);
    billingStore.claimRun = (runId, options) =>
      claim(runId, options).catch((error: unknown) => {
        if (RunBusyError.isInstance(error)) setTimeout(() => controller.abort(new Error("the user pressed stop")), 20);
        throw error;
      });
    const outcome = new Promise<unknown>((resolve) => {
      triage.executor.resume("t13", { decisions: { "call-0-0/call-0-0": "approve" }, signal: controller.signal }).subscribe({ error: resolve, complete: () => resolve(undefined) });
    });
    const error = await outcome;
    expect(error).toMatchObject({ name: "AbortError" });
    expect(billing.refunded).toEqual([]);
    expect(await billingStore.getRun(subRunId)).toMatchObject({ status: "running", owner: "elsewhere" });
  });

  it("SubRunInterruptedError's message holds whether or not the calling run pauses with it (middleware sees it either way)", () => {
    const error = new SubRunInterruptedError({ tool: "transfer_to_billing", runId: "handoff:t14:0:h1", waitingOn: ["refund"], resumable: true });
    expect(error.message).toBe(
      'Tool "transfer_to_billing": the other agent\'s run "handoff:t14:0:h1" paused for approval (waiting on "refund"), so the tool has no answer to give. ' +
        'A calling run that is recorded pauses with it when that agent\'s executor has a store (see docs/agent-types.md, "Pauses inside a handoff"); ' +
        "else decide it with that agent's executor (resume(runId, { decisions })), or give that agent no approval step.",
    );
    expect(error.message).not.toMatch(/did not pause/);
  });
});

