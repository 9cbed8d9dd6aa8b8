// A caller paused by its sub-run (a `handoff`): `recordDecisions` checks an edit of the other
// agent's call against its tool, and `wrapToolCall` middleware never takes the paused call for one
// that answered (see docs/approval.md, "A pause inside a handoff").
import { ScriptedChatModel } from "@agentrx/core/testing";
import { createToolCallingAgent } from "@agentrx/agents";
import { type AgentMiddleware, AgentExecutor, SubRunInterruptedError, guardrail, handoff, recordDecisions } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** The other agent: asks to refund 10 (which needs approval), then answers with what its tool said. */
function billingAgent() {
  const refunded: number[] = [];
  const refund = tool(
    async ({ amount }: { amount: number }) => {
      refunded.push(amount);
      return `refunded ${amount}`;
    },
    { name: "refund", description: "Refunds an amount.", schema: z.object({ amount: z.number() }) },
  );
  const llm = new ScriptedChatModel({
    responses: [{ toolCalls: [{ name: "refund", args: { amount: 10 } }] }, (messages) => `Billing: ${messages.at(-1)?.text}`],
  });
  const tools = [withApproval(refund)];
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, store: new InProcessRunStore() });
  return { executor, refunded };
}

/** The caller: calls `sub` at once, then answers with what it said. */
function callerAgent(sub: StructuredToolInterface, middleware: AgentMiddleware[] = [], eagerTools = false) {
  const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: sub.name, args: {} }] }, (messages) => `Caller: ${messages.at(-1)?.text}`] });
  const store = new InProcessRunStore();
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [sub], prompt }), tools: [sub], store, middleware, eagerTools });
  return { executor, store, llm };
}

describe("recordDecisions on a handoff's nested pause", () => {
  it("refuses an edit the other agent's tool refuses, given the caller's tools: nothing is recorded", async () => {
    const billing = billingAgent();
    const toBilling = handoff(billing.executor, { name: "transfer_to_billing", description: "Refunds." });
    const caller = callerAgent(toBilling);
    await caller.executor.invoke({ input: "Refund me" }, { runId: "r1" });
    const before = (await caller.store.readEvents("r1")).length;
    await expect(recordDecisions(caller.store, "r1", { "call-0-0/call-0-0": { type: "edit", toolInput: { amount: "all" } } }, { tools: [toBilling] })).rejects.toThrow(
      /recordDecisions: the edited input for "call-0-0\/call-0-0" \(tool "refund" of the agent "transfer_to_billing" runs\) does not fit the tool's schema: amount: /,
    );
    expect(await caller.store.readEvents("r1")).toHaveLength(before);
    expect((await caller.store.getRun("r1"))?.status).toBe("interrupted");
  });
});

describe("a sub-run's paused call under wrapToolCall middleware", () => {
  it("the middleware's next() rejects with the pause (no text taken for an answer), and a guardrail on the output checks only the real answer", async () => {
    const seen: unknown[] = [];
    const watch: AgentMiddleware = {
      name: "watch",
      wrapToolCall: async (call, next) => {
        try {
          const observation = await next(call);
          seen.push(observation);
          return observation;
        } catch (error) {
          seen.push(error);
          throw error;
        }
      },
    };
    const checked: string[] = [];
    const onOutput = guardrail({ name: "answers", on: "output", check: ({ text }) => void checked.push(text) });
    const billing = billingAgent();
    const caller = callerAgent(handoff(billing.executor, { name: "transfer_to_billing", description: "Refunds." }), [onOutput, watch]);
    const paused = await caller.executor.invoke({ input: "Refund me" }, { runId: "m1" });
    expect(paused.stopReason).toBe("interrupted");
    expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0/call-0-0"]);
    expect(seen).toHaveLength(1);
    expect(SubRunInterruptedError.isInstance(seen[0])).toBe(true);
    expect(checked).toEqual([]);
    const result = await caller.executor.resume("m1", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
    expect(seen.slice(1)).toEqual(["Billing: refunded 10"]);
    expect(checked).toEqual(["Billing: refunded 10"]);
    expect(billing.refunded).toEqual([10]);
  });

  it("a middleware that swallows the rejection and gives a text of its own: the call still pauses the run, with no step", async () => {
    const swallow: AgentMiddleware = { name: "swallow", wrapToolCall: (call, next) => next(call).catch(() => "the middleware's own text") };
    for (const eagerTools of [false, true]) {
      const billing = billingAgent();
      const caller = callerAgent(handoff(billing.executor, { name: "transfer_to_billing", description: "Refunds." }), [swallow], eagerTools);
      const runId = `m2-${eagerTools}`;
      const paused = await caller.executor.invoke({ input: "Refund me" }, { runId });
      expect(paused.stopReason).toBe("interrupted");
      expect(paused.output).toBe("");
      expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0/call-0-0"]);
      const result = await caller.executor.resume(runId, { decisions: { "call-0-0/call-0-0": "approve" } });
      expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
      expect(billing.refunded).toEqual([10]);
    }
  });

  it("a tool of its own that calls the handoff: the run pauses all the same, its middleware seeing the failure's text", async () => {
    const seen: unknown[] = [];
    const watch: AgentMiddleware = {
      name: "watch",
      wrapToolCall: async (call, next) => {
        const observation = await next(call);
        seen.push(observation);
        return observation;
      },
    };
    const billing = billingAgent();
    const toBilling = handoff(billing.executor, { name: "transfer_to_billing", description: "Refunds." });
    const wrapped = tool(async (input: Record<string, unknown>, config) => toBilling.invoke(input, config), { name: "billing_desk", description: "Refunds.", schema: z.object({}) });
    const caller = callerAgent(wrapped as unknown as StructuredToolInterface, [watch]);
    const paused = await caller.executor.invoke({ input: "Refund me" }, { runId: "m3" });
    expect(paused.stopReason).toBe("interrupted");
    expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0/call-0-0"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/paused for approval/);
    const result = await caller.executor.resume("m3", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(result.output).toBe("Caller: Billing: refunded 10");
    expect(billing.refunded).toEqual([10]);
  });
});
