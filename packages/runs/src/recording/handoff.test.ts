import { type AgentStep, getIdempotencyKey } from "@agentrx/core";
import { AgentExecutor, handoff } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";

describe("handoff, recorded and resumed", () => {
  it("a caller resumed mid-handoff resumes the same sub-run instead of starting the other agent again", async () => {
    const store = new MemoryRunStore();
    const refunds: string[] = [];
    let started: () => void = () => undefined;
    const refundStarted = new Promise<void>((resolve) => (started = resolve));
    let hang = true;
    const refund = tool(
      async ({ order }: { order: string }, config) => {
        refunds.push(getIdempotencyKey(config) ?? "none");
        started();
        if (hang) await new Promise(() => undefined); // the first time, the process "dies" here
        return `refunded ${order}`;
      },
      { name: "refund", description: "Refunds.", schema: z.object({ order: z.string() }) },
    );
    let billingCalls = 0;
    const billingAgent = RunnableLambda.from((input: { input: string; steps: AgentStep[] }) => {
      billingCalls++;
      if (input.steps.length === 0) return { tool: "refund", toolInput: { order: "42" }, log: "", toolCallId: "r1" };
      return { returnValues: { output: `Billing: ${input.steps[0]?.observation}` }, log: "" };
    });
    const billing = new AgentExecutor({ agent: billingAgent, tools: [refund], store });
    const toBilling = handoff(billing, { name: "transfer_to_billing", description: "Refunds." });
    const triageAgent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? { tool: "transfer_to_billing", toolInput: {}, log: "", toolCallId: "h1" } : { returnValues: { output: "unexpected" }, log: "" },
    );
    const triage = new AgentExecutor({ agent: triageAgent, tools: [toBilling], store });
    const running = triage.invoke({ input: "charged twice" }, { runId: "caller" }).subscribe({ error: () => undefined });
    await refundStarted;
    running.unsubscribe(); // cancels the caller, and with it the sub-run
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await store.getRun("handoff:caller:0:h1"))?.status).toBe("cancelled");
    hang = false;
    const result = await lastValueFrom(triage.resume("caller"));
    expect(result).toMatchObject({ output: "Billing: refunded 42", stopReason: "return_direct" });
    // The billing agent was not asked for its first turn again: its recorded turn was resumed.
    expect(billingCalls).toBe(2);
    expect(refunds).toEqual(["handoff:caller:0:h1:0:r1", "handoff:caller:0:h1:0:r1"]);
    // The caller's record holds the sub-run's events.
    const subRunEvents = (await store.readEvents("caller")).filter((event) => Array.isArray(event.data["subRun"]));
    expect(subRunEvents.map((event) => event.type)).toContain("output");
    // Each names the tool call that started it, in both segments of the caller.
    expect(subRunEvents.map((event) => event.data["subRunCallIds"])).toEqual(subRunEvents.map(() => ["h1"]));
  });
});
