import type { AgentAction } from "@agentrx/core";
import { AgentExecutor, type AgentStreamEvent, RunBusyError } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { type Observable, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";

const collect = <T>(source: Observable<T>) => lastValueFrom(source.pipe(toArray()));

/** A refund tool (needs approval) and a lookup tool (does not); both count their calls. */
function fixture(options: { executorApproval?: (action: AgentAction) => boolean; maxExecutionTime?: number } = {}) {
  const ran: string[] = [];
  const refund = tool(
    async ({ order, amount }: { order: string; amount: number }) => {
      ran.push(`refund ${order} ${amount}`);
      return `refunded ${amount} on ${order}`;
    },
    { name: "refund", description: "Refunds an order.", schema: z.object({ order: z.string(), amount: z.number().positive() }) },
  );
  const lookup = tool(
    async ({ order }: { order: string }) => {
      ran.push(`lookup ${order}`);
      return `${order}: delivered`;
    },
    { name: "lookup", description: "Looks an order up.", schema: z.object({ order: z.string() }) },
  );
  const agentCalls: number[] = [];
  const agent = RunnableLambda.from((input: { steps: { action: AgentAction; observation: string }[] }) => {
    agentCalls.push(input.steps.length);
    if (input.steps.length === 0) {
      return [
        { tool: "lookup", toolInput: { order: "A1" }, log: "look", toolCallId: "c1", messageLog: [] },
        { tool: "refund", toolInput: { order: "A1", amount: 30 }, log: "refund A1", toolCallId: "c2", messageLog: [] },
        { tool: "refund", toolInput: { order: "B2", amount: 500 }, log: "refund B2", toolCallId: "c3", messageLog: [] },
      ];
    }
    return { returnValues: { output: input.steps.map((step) => step.observation).join(" | ") }, log: "" };
  });
  const store = new MemoryRunStore();
  const tools = options.executorApproval ? [lookup, refund] : [lookup, withApproval(refund)];
  const executor = new AgentExecutor({
    agent,
    tools,
    store,
    ...(options.executorApproval ? { needsApproval: options.executorApproval } : {}),
    ...(options.maxExecutionTime !== undefined ? { maxExecutionTime: options.maxExecutionTime } : {}),
  });
  return { executor, store, ran, agentCalls };
}

describe("approval", () => {
  it("runs the turn's other calls, then pauses: interrupt, then output with stopReason interrupted, recorded first", async () => {
    const { executor, store, ran } = fixture();
    const events = await collect(executor.stream({ input: "refunds" }, { runId: "r" }));
    expect(events.map((event) => event.type)).toEqual(["start", "action", "action", "action", "step", "interrupt", "output"]);
    expect(ran).toEqual(["lookup A1"]);
    const interrupt = events[5] as Extract<AgentStreamEvent, { type: "interrupt" }>;
    expect(interrupt.interrupts).toEqual([
      { id: "call-0-1", toolCallId: "c2", tool: "refund", toolInput: { order: "A1", amount: 30 }, iteration: 0, index: 1, reason: "approval" },
      { id: "call-0-2", toolCallId: "c3", tool: "refund", toolInput: { order: "B2", amount: 500 }, iteration: 0, index: 2, reason: "approval" },
    ]);
    expect(events[6]).toMatchObject({ type: "output", output: "", stopReason: "interrupted", runId: "r" });
    expect(await store.getRun("r")).toMatchObject({ status: "interrupted", stopReason: "interrupted" });
    expect((await store.getRun("r"))?.owner).toBeUndefined();
  });

  it("invoke's result carries the interrupts; approvals run exactly those calls once, and the agent is not asked again for the turn", async () => {
    const { executor, ran, agentCalls } = fixture();
    const paused = await lastValueFrom(executor.invoke({ input: "refunds" }, { runId: "r" }));
    expect(paused.output).toBe("");
    expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-1", "call-0-2"]);

    const events = await collect(executor.resume("r", { decisions: { "call-0-2": "approve", "call-0-1": { type: "approve" } } }));
    expect(events[0]).toMatchObject({ type: "start", resumed: true });
    expect(events.filter((event) => event.type === "action")).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({
      type: "output",
      stopReason: "finish",
      output: "A1: delivered | refunded 30 on A1 | refunded 500 on B2",
    });
    expect(ran.sort()).toEqual(["lookup A1", "refund A1 30", "refund B2 500"]);
    expect(agentCalls).toEqual([0, 3]);
  });

  it("a rejection's message becomes the observation; an edit runs with the edited input", async () => {
    const { executor, ran } = fixture();
    await lastValueFrom(executor.invoke({ input: "refunds" }, { runId: "r" }));
    const result = await lastValueFrom(
      executor.resume("r", {
        decisions: { "call-0-1": { type: "edit", toolInput: { order: "A1", amount: 25 } }, "call-0-2": { type: "reject", message: "Too much: ask a manager." } },
      }),
    );
    expect(result).toMatchObject({ type: "output", output: "A1: delivered | refunded 25 on A1 | Too much: ask a manager." });
    expect(ran).toEqual(["lookup A1", "refund A1 25"]);
  });

  it("decisions for some interrupts run those and pause again for the rest, under the same ids", async () => {
    const { executor, store, ran } = fixture();
    await lastValueFrom(executor.invoke({ input: "refunds" }, { runId: "r" }));
    const first = await collect(executor.resume("r", { decisions: { "call-0-1": "approve" } }));
    expect(first.map((event) => event.type)).toEqual(["start", "step", "interrupt", "output"]);
    const pause = first[2] as Extract<AgentStreamEvent, { type: "interrupt" }>;
    expect(pause.interrupts.map((interrupt) => interrupt.id)).toEqual(["call-0-2"]);
    expect(ran).toEqual(["lookup A1", "refund A1 30"]);
    expect((await store.getRun("r"))?.status).toBe("interrupted");
    const done = await lastValueFrom(executor.resume("r", { decisions: { "call-0-2": { type: "reject" } } }));
    expect(done).toMatchObject({ stopReason: "finish", output: "A1: delivered | refunded 30 on A1 | The user rejected this tool call." });
  });

  it("refuses unknown ids, invalid edits, malformed decisions and a second resume of one pause, running nothing", async () => {
    const { executor, store, ran } = fixture();
    await lastValueFrom(executor.invoke({ input: "refunds" }, { runId: "r" }));
    await expect(lastValueFrom(executor.resume("r", { decisions: { nope: "approve" } }))).rejects.toThrow(/no interrupt "nope" waiting.*call-0-1, call-0-2/);
    await expect(
      lastValueFrom(executor.resume("r", { decisions: { "call-0-1": { type: "edit", toolInput: { order: "A1", amount: -5 } } } })),
    ).rejects.toThrow(/edited input for "call-0-1" \(tool "refund"\) does not fit the tool's schema: amount:.*Nothing ran/);
    await expect(lastValueFrom(executor.resume("r", { decisions: { "call-0-1": "yes please" as never } }))).rejects.toThrow(/must be "approve"/);
    // A misspelt key would be ignored (a rejection with the default message, an edit without its input): refused.
    await expect(lastValueFrom(executor.resume("r", { decisions: { "call-0-1": { type: "reject", mesage: "Over the limit." } as never } }))).rejects.toThrow(
      /the reject decision for "call-0-1" has an unknown key `mesage` \(it would be ignored\); it takes type, message\. Nothing ran/,
    );
    await expect(lastValueFrom(executor.resume("r", { decisions: { "call-0-1": { type: "approve", toolInput: { order: "A1", amount: 5 } } as never } }))).rejects.toThrow(
      /the approve decision for "call-0-1" has an unknown key `toolInput`/,
    );
    expect(ran).toEqual(["lookup A1"]);
    expect(await store.getRun("r")).toMatchObject({ status: "interrupted" });

    await lastValueFrom(executor.resume("r", { decisions: { "call-0-1": "approve", "call-0-2": "approve" } }));
    await expect(lastValueFrom(executor.resume("r", { decisions: { "call-0-1": "approve" } }))).rejects.toThrow(/is finished, not paused for approval/);
    expect(ran.filter((entry) => entry.startsWith("refund"))).toHaveLength(2);
  });

  it("resuming a paused run without decisions shows the pause again and runs nothing", async () => {
    const { executor, ran } = fixture();
    await lastValueFrom(executor.invoke({ input: "refunds" }, { runId: "r" }));
    const again = await collect(executor.resume("r"));
    expect(again.map((event) => event.type)).toEqual(["interrupt", "output"]);
    expect(ran).toEqual(["lookup A1"]);
  });

  it("two resumes of one pause at once: exactly one wins", async () => {
    const { executor, ran } = fixture();
    await lastValueFrom(executor.invoke({ input: "refunds" }, { runId: "r" }));
    const decisions = { "call-0-1": "approve", "call-0-2": "approve" } as const;
    const outcomes = await Promise.allSettled([lastValueFrom(executor.resume("r", { decisions })), lastValueFrom(executor.resume("r", { decisions }))]);
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    const loser = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
    expect(RunBusyError.isInstance(loser.reason) || /not paused for approval/.test(String(loser.reason))).toBe(true);
    expect(ran.filter((entry) => entry.startsWith("refund"))).toHaveLength(2);
  });

  it("asks the executor's needsApproval for every call", async () => {
    const { executor, ran } = fixture({ executorApproval: (action) => action.tool === "refund" && (action.toolInput as { amount: number }).amount > 100 });
    const paused = await lastValueFrom(executor.invoke({ input: "refunds" }, { runId: "r" }));
    expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-2"]);
    expect(ran.sort()).toEqual(["lookup A1", "refund A1 30"]);
  });

  it("does not count the time spent waiting for a person toward maxExecutionTime", async () => {
    const { executor } = fixture({ maxExecutionTime: 300 });
    await lastValueFrom(executor.invoke({ input: "refunds" }, { runId: "r" }));
    await new Promise((resolve) => setTimeout(resolve, 400));
    const done = await lastValueFrom(executor.resume("r", { decisions: { "call-0-1": "approve", "call-0-2": "approve" } }));
    expect(done).toMatchObject({ type: "output", stopReason: "finish" });
  });
});
