// A call that needs approval is never run unasked, also when the run stopped (a tool failed, it
// was cancelled) before its pause was recorded: a resume asks for approval then (docs/approval.md).
import { AgentExecutor, type Decision } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import type { AgentAction, AgentStep } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { deferred } from "./test-helpers";

/** A turn asking for [lookup, refund]; refund needs approval. `lookup` runs `behave` each time it is called. */
function setup(behave: () => Promise<string>, options: { needsApproval?: boolean; inDoubt?: "retry" | "interrupt" | "fail" } = {}) {
  const refunded: number[] = [];
  const lookups: string[] = [];
  const refundTool = tool(async ({ amount }: { amount: number }) => (refunded.push(amount), "ok"), { name: "refund", description: "r", schema: z.object({ amount: z.number() }) });
  const refund = options.needsApproval ? refundTool : withApproval(refundTool);
  const lookup = tool(
    async () => {
      lookups.push("lookup");
      return behave();
    },
    { name: "lookup", description: "l", schema: z.object({}) },
  );
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }): AgentAction[] | { returnValues: { output: string }; log: string } =>
    input.steps.length === 0
      ? [{ tool: "lookup", toolInput: {}, log: "", toolCallId: "l" } as AgentAction, { tool: "refund", toolInput: { amount: 900 }, log: "", toolCallId: "r" } as AgentAction]
      : { returnValues: { output: `done: ${input.steps.map((step) => step.observation).join(", ")}` }, log: "" },
  );
  const store = new InProcessRunStore();
  const executor = new AgentExecutor({
    agent,
    tools: [lookup, refund],
    store,
    handleToolRuntimeErrors: false,
    ...(options.needsApproval ? { needsApproval: (action: AgentAction) => action.tool === "refund" } : {}),
    ...(options.inDoubt ? { inDoubt: options.inDoubt } : {}),
  });
  return { executor, store, refunded, lookups };
}

/** `setup` with a lookup that fails ("db down") until `recover()` is called, then answers "found". */
function failingUntilRecovered(options?: Parameters<typeof setup>[1]) {
  let fails = true;
  const made = setup(async () => {
    if (fails) throw new Error("db down");
    return "found";
  }, options);
  return { ...made, recover: () => void (fails = false) };
}

const approve: Record<string, Decision> = { "call-0-1": "approve" };

describe("resume of a turn whose pause for approval was never recorded", () => {
  it("a tool failed before the pause: the resume asks for approval instead of running the call", async () => {
    const { executor, refunded, store, recover } = failingUntilRecovered();
    await expect(executor.invoke({ input: "x" }, { runId: "r" })).rejects.toThrow("db down");
    const types = (await store.readEvents("r")).map((event) => event.data["type"]);
    expect(types).not.toContain("interrupt");
    recover();
    const paused = await executor.resume("r");
    expect(refunded).toEqual([]);
    expect(paused.stopReason).toBe("interrupted");
    expect(paused.interrupts).toEqual([{ id: "call-0-1", tool: "refund", toolInput: { amount: 900 }, iteration: 0, index: 1, reason: "approval", toolCallId: "r" }]);
    const done = await executor.resume("r", { decisions: approve });
    expect(done.output).toBe("done: found, ok");
    expect(refunded).toEqual([900]);
  });

  it("the executor's needsApproval option: the same", async () => {
    const { executor, refunded, recover } = failingUntilRecovered({ needsApproval: true });
    await expect(executor.invoke({ input: "x" }, { runId: "r" })).rejects.toThrow("db down");
    recover();
    const paused = await executor.resume("r");
    expect(refunded).toEqual([]);
    expect(paused.interrupts?.map((interrupt) => [interrupt.id, interrupt.reason])).toEqual([["call-0-1", "approval"]]);
  });

  it("cancelled while another call of the turn ran: the resume asks for approval", async () => {
    const started = deferred<void>();
    let first = true;
    const { executor, refunded, lookups } = setup(() => {
      if (!first) return Promise.resolve("found");
      first = false;
      started.resolve();
      return new Promise<string>(() => undefined); // never settles: the run is cancelled meanwhile
    });
    const controller = new AbortController();
    const running = Promise.resolve(executor.invoke({ input: "x" }, { runId: "r", signal: controller.signal })); // (subscribed now)
    await started.promise;
    controller.abort();
    await expect(running).rejects.toThrow();
    const paused = await executor.resume("r");
    expect(refunded).toEqual([]);
    expect(paused.interrupts?.map((interrupt) => [interrupt.id, interrupt.reason])).toEqual([["call-0-1", "approval"]]);
    // The other call was in doubt (retried under the default policy) before the pause.
    expect(lookups).toEqual(["lookup", "lookup"]);
    const done = await executor.resume("r", { decisions: approve });
    expect(done.output).toBe("done: found, ok");
    expect(refunded).toEqual([900]);
  });

  it("with inDoubt \"interrupt\": the other call waits as in doubt, the unasked one for approval", async () => {
    const { executor, refunded, recover } = failingUntilRecovered({ inDoubt: "interrupt" });
    await expect(executor.invoke({ input: "x" }, { runId: "r" })).rejects.toThrow("db down");
    recover();
    const paused = await executor.resume("r");
    expect(paused.interrupts?.map((interrupt) => [interrupt.id, interrupt.reason])).toEqual([
      ["call-0-1", "approval"],
      ["call-0-0", "in_doubt"],
    ]);
    expect(refunded).toEqual([]);
  });

  it("a call approved earlier whose run stopped while it ran is in doubt: it follows the inDoubt policy", async () => {
    const started = deferred<void>();
    let refundCalls = 0;
    const refunded: number[] = [];
    const refund = withApproval(
      tool(
        async ({ amount }: { amount: number }) => {
          if (refundCalls++ === 0) {
            started.resolve();
            return new Promise<string>(() => undefined); // cancelled while it runs
          }
          refunded.push(amount);
          return "ok";
        },
        { name: "refund", description: "r", schema: z.object({ amount: z.number() }) },
      ),
    );
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? [{ tool: "refund", toolInput: { amount: 5 }, log: "", toolCallId: "r" } as AgentAction] : { returnValues: { output: "done" }, log: "" },
    );
    const executor = new AgentExecutor({ agent, tools: [refund], store: new InProcessRunStore(), inDoubt: "interrupt" });
    const paused = await executor.invoke({ input: "x" }, { runId: "a" });
    expect(paused.interrupts?.[0]?.reason).toBe("approval");
    const controller = new AbortController();
    const resuming = Promise.resolve(executor.resume("a", { decisions: { "call-0-0": "approve" }, signal: controller.signal }));
    await started.promise;
    controller.abort();
    await expect(resuming).rejects.toThrow();
    // Approved and started: in doubt (the executor's policy asks a person), not asked for approval again.
    const again = await executor.resume("a");
    expect(again.interrupts?.map((interrupt) => [interrupt.id, interrupt.reason])).toEqual([["call-0-0", "in_doubt"]]);
    expect(refunded).toEqual([]);
  });
});
