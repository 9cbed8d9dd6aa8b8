// An `asTool` sub-run that pauses for approval pauses its (recorded) caller too, with the
// specialist's waiting calls; a resume of the caller with decisions on them resumes the
// specialist's run (`as-tool:<key>`) with them (see docs/executor-options.md, "asTool()").
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, type Interrupt, type RunStore, SubRunInterruptedError, handoff, runPauses } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { collect } from "./test-helpers";
import { billingAgent } from "../handoff/nested-pause-fixtures";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);


/** The supervisor: calls the specialist as a tool, then answers with what it said. */
function supervisorAgent(billing: AgentExecutor, store: RunStore | undefined, handleToolRuntimeErrors = true) {
  const billingTool = billing.asTool({ name: "billing", description: "Refunds." });
  const llm = new ScriptedChatModel({
    responses: [{ toolCalls: [{ name: "billing", args: { input: "refund order 42" } }] }, (messages) => `Supervisor: ${messages.at(-1)?.text}`],
  });
  const tools = [billingTool];
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, handleToolRuntimeErrors, ...(store ? { store } : {}) });
  return { executor, llm };
}

function setup(amounts: number[] = [10]) {
  const callerStore = new InProcessRunStore();
  const billingStore = new InProcessRunStore();
  const billing = billingAgent(billingStore, amounts);
  const supervisor = supervisorAgent(billing.executor, callerStore);
  return { callerStore, billingStore, billing, supervisor };
}

describe("asTool: a pause inside pauses the caller", () => {
  it("pauses the recorded caller with the specialist's waiting call, flattened; its run is as-tool:<the call's key>", async () => {
    const { callerStore, billingStore, billing, supervisor } = setup();
    const events: AgentStreamEvent[] = await collect(supervisor.executor.stream({ input: "Refund me" }, { runId: "s1" }));
    const own = events.filter((event) => event.subRun === undefined);
    expect(own.at(-1)).toMatchObject({ type: "output", stopReason: "interrupted" });
    const pause = own.find((event) => event.type === "interrupt");
    const interrupts = pause?.type === "interrupt" ? pause.interrupts : [];
    expect(interrupts).toHaveLength(1);
    const subRunId = interrupts[0]?.subRun?.runId ?? "";
    expect(subRunId).toMatch(/^as-tool:s1:0:/);
    expect(interrupts[0]).toMatchObject({
      id: "call-0-0/call-0-0",
      tool: "refund",
      toolInput: { amount: 10 },
      iteration: 0,
      index: 0,
      reason: "approval",
      subRun: { tool: "billing", runId: subRunId, interruptId: "call-0-0" },
    } satisfies Interrupt);
    expect(own.filter((event) => event.type === "step")).toHaveLength(0);
    expect(billing.refunded).toEqual([]);
    expect(runPauses("s1", await callerStore.readEvents("s1")).waiting).toEqual(interrupts);
    expect((await billingStore.getRun(subRunId))?.status).toBe("interrupted");
    // Resumed without decisions, it pauses again on the same call: the specialist is not started again.
    expect(await supervisor.executor.resume("s1")).toMatchObject({ stopReason: "interrupted", interrupts });
    expect(billing.llm.calls).toHaveLength(1);
  });

  it("approve: the specialist's tool runs once, and the caller's model gets the specialist's answer", async () => {
    const { callerStore, billing, supervisor } = setup();
    expect((await supervisor.executor.invoke({ input: "Refund me" }, { runId: "s2" })).stopReason).toBe("interrupted");
    const result = await supervisor.executor.resume("s2", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "finish", output: "Supervisor: Billing: refunded 10" });
    expect(billing.refunded).toEqual([10]);
    expect(billing.llm.calls).toHaveLength(2); // resumed, not started again
    expect((await callerStore.getRun("s2"))?.status).toBe("finished");
    expect(await supervisor.executor.resume("s2")).toMatchObject({ output: "Supervisor: Billing: refunded 10" });
    expect(billing.refunded).toEqual([10]);
  });

  it("reject: the specialist sees the rejection, and the caller goes on with its answer", async () => {
    const { billing, supervisor } = setup();
    await supervisor.executor.invoke({ input: "Refund me" }, { runId: "s3" });
    const result = await supervisor.executor.resume("s3", { decisions: { "call-0-0/call-0-0": { type: "reject", message: "No refunds today." } } });
    expect(result).toMatchObject({ stopReason: "finish", output: "Supervisor: Billing: No refunds today." });
    expect(billing.refunded).toEqual([]);
  });

  it("an edit the specialist's tool refuses is refused by the caller's resume, naming the asTool: nothing is recorded or run, and both runs stay paused", async () => {
    const { callerStore, billingStore, billing, supervisor } = setup();
    const paused = await supervisor.executor.invoke({ input: "Refund me" }, { runId: "s4" });
    const subRunId = paused.interrupts?.[0]?.subRun?.runId ?? "";
    const before = (await callerStore.readEvents("s4")).length;
    const error = await supervisor.executor.resume("s4", { decisions: { "call-0-0/call-0-0": { type: "edit", toolInput: { amount: "all" } } } }).then(
      () => undefined,
      (refused: unknown) => refused,
    );
    expect(error).toMatchObject({ name: "InvalidArgumentError", argument: "decisions" });
    expect((error as Error).message).toMatch(/"call-0-0\/call-0-0" \(tool "refund" of the agent "billing" runs\) does not fit the tool's schema: amount: .*Nothing ran\./);
    expect(billing.refunded).toEqual([]);
    expect(await callerStore.readEvents("s4")).toHaveLength(before);
    expect((await callerStore.getRun("s4"))?.status).toBe("interrupted");
    expect((await billingStore.getRun(subRunId))?.status).toBe("interrupted");
    const result = await supervisor.executor.resume("s4", { decisions: { "call-0-0/call-0-0": { type: "edit", toolInput: { amount: 4 } } } });
    expect(result.output).toBe("Supervisor: Billing: refunded 4");
    expect(billing.refunded).toEqual([4]);
  });

  it("answering one of two waiting calls runs that one, and the caller pauses again on the other", async () => {
    const { billing, supervisor } = setup([10, 20]);
    const first = await supervisor.executor.invoke({ input: "Refund me" }, { runId: "s5" });
    expect(first.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0/call-0-0", "call-0-0/call-0-1"]);
    const second = await supervisor.executor.resume("s5", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(second.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0/call-0-1"]);
    const third = await supervisor.executor.resume("s5", { decisions: { "call-0-0/call-0-1": "approve" } });
    expect(third).toMatchObject({ stopReason: "finish", output: "Supervisor: Billing: refunded 10; refunded 20" });
    expect(billing.refunded).toEqual([10, 20]);
  });

  it("a pause in an asTool call inside a handoff pauses the top run, one level of ids per sub-run", async () => {
    const billing = billingAgent(new InProcessRunStore());
    const billingTool = billing.executor.asTool({ name: "billing", description: "Refunds." });
    const middleLlm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "billing", args: { input: "refund" } }] }, (messages) => `Desk: ${messages.at(-1)?.text}`] });
    const desk = new AgentExecutor({ agent: createToolCallingAgent({ llm: middleLlm, tools: [billingTool], prompt }), tools: [billingTool], store: new InProcessRunStore() });
    const toDesk = handoff(desk, { name: "transfer_to_desk", description: "The desk." });
    const topLlm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "transfer_to_desk", args: {} }] }] });
    const top = new AgentExecutor({ agent: createToolCallingAgent({ llm: topLlm, tools: [toDesk], prompt }), tools: [toDesk], store: new InProcessRunStore() });
    const paused = await top.invoke({ input: "Refund me" }, { runId: "s6" });
    expect(paused.interrupts).toMatchObject([{ id: "call-0-0/call-0-0/call-0-0", tool: "refund", subRun: { tool: "transfer_to_desk", interruptId: "call-0-0/call-0-0" } }]);
    const result = await top.resume("s6", { decisions: { "call-0-0/call-0-0/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Desk: Billing: refunded 10" });
    expect(billing.refunded).toEqual([10]);
    expect(billing.llm.calls).toHaveLength(2);
  });

  it("an unrecorded caller keeps the old behaviour: the call fails with SubRunInterruptedError, which says the sub-run is resumable", async () => {
    const billing = billingAgent(new InProcessRunStore());
    const supervisor = supervisorAgent(billing.executor, undefined);
    const result = await supervisor.executor.invoke({ input: "Refund me" });
    expect(result.stopReason).toBe("finish");
    expect(result.output).toMatch(/Supervisor: Tool "billing" failed with error: .*paused for approval \(waiting on "refund"\)/);
    expect(result.interrupts).toBeUndefined();
    const strict = supervisorAgent(billingAgent(new InProcessRunStore()).executor, undefined, false);
    const error = await strict.executor.invoke({ input: "Refund me" }).then(() => undefined, (thrown: unknown) => thrown);
    expect(SubRunInterruptedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ tool: "billing", waitingOn: ["refund"], resumable: true });
    expect((error as SubRunInterruptedError).runId).toMatch(/^as-tool:/);
  });

  it("called outside a run (no idempotency key), the sub-run has no stable id and is not resumable", async () => {
    const billing = billingAgent(new InProcessRunStore());
    const billingTool = billing.executor.asTool({ name: "billing", description: "Refunds." });
    const error = await billingTool.invoke({ input: "refund" }).then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toMatchObject({ tool: "billing", resumable: false });
    expect((error as SubRunInterruptedError).runId).not.toMatch(/^as-tool:/);
  });
});
