import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, HandoffFailedError, handoff } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect } from "../executor/test-helpers";
import { InProcessRunStore } from "../runs/in-process-run-store";

const prompt = ChatPromptTemplate.fromMessages([new MessagesPlaceholder({ variableName: "chat_history", optional: true }), ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const lookup = tool(async ({ id }: { id: string }) => `order ${id}`, { name: "lookup", description: "Looks an order up.", schema: z.object({ id: z.string() }) });

/** The billing agent: its model fails, or (`limited`) it calls a tool until its one iteration is spent. */
function billing(kind: "failing" | "limited", store?: InProcessRunStore) {
  const llm = new ScriptedChatModel({ onExhausted: "repeat-last", responses: kind === "failing" ? [new Error("billing model down")] : [{ toolCalls: [{ name: "lookup", args: { id: "1" } }] }] });
  const tools = kind === "failing" ? [] : [lookup];
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, ...(kind === "limited" ? { maxIterations: 1 } : {}), ...(store ? { store } : {}) });
}

/** A triage agent that hands off to billing, then answers with what the handoff's result said. */
function triage(other: AgentExecutor, store?: InProcessRunStore) {
  const toBilling = handoff(other, { name: "to_billing", description: "Refunds." });
  const llm = new ScriptedChatModel({
    onExhausted: "repeat-last",
    responses: [(messages: BaseMessage[]) => (messages.at(-1)?.getType() === "tool" ? `I answer myself after: ${messages.at(-1)?.text}` : { toolCalls: [{ name: "to_billing", args: {}, id: "h1" }] })],
  });
  return { llm, executor: new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [toBilling], prompt }), tools: [toBilling], ...(store ? { store } : {}) }) };
}

function handoffStep(events: AgentStreamEvent[]) {
  return events.find((event): event is Extract<AgentStreamEvent, { type: "step" }> => event.type === "step" && event.subRun === undefined);
}

describe("a handoff whose other agent does not answer", () => {
  it("a failed other agent: the step is marked failed, and its error goes back to the caller's model instead of becoming the answer", async () => {
    const { executor, llm } = triage(billing("failing"));
    const events = await collect(executor.stream({ input: "refund me" }));
    const step = handoffStep(events);
    expect(step?.metadata).toMatchObject({ failed: true, handoffFailed: true });
    expect(String(step?.step.observation)).toBe(
      'Tool "to_billing" failed with error: handoff "to_billing": the other agent did not answer (billing model down). The conversation is back with you: answer the user yourself, or try another route.',
    );
    expect(llm.calls).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "finish", output: expect.stringMatching(/^I answer myself after: .*the other agent did not answer \(billing model down\)/) });
  });

  it("an other agent stopped by its own limit: the caller's model reads why and what it said", async () => {
    const { executor } = triage(billing("limited"));
    const result = await executor.invoke({ input: "refund me" });
    expect(result.stopReason).toBe("finish");
    expect(result.output).toBe(
      'I answer myself after: Tool "to_billing" failed with error: handoff "to_billing": the other agent stopped at a limit of its own (max_iterations) before it answered; it said: "Agent stopped due to iteration limit or time limit.". The conversation is back with you: answer the user yourself, or try another route.',
    );
  });

  it("with handleToolRuntimeErrors: false, the caller fails with a HandoffFailedError whose cause is the other agent's error", async () => {
    const toBilling = handoff(billing("failing"), { name: "to_billing", description: "Refunds." });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "to_billing", args: {} }] }] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [toBilling], prompt }), tools: [toBilling], handleToolRuntimeErrors: false });
    const error = await executor.invoke({ input: "refund me" }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(HandoffFailedError.isInstance(error)).toBe(true);
    expect((error as HandoffFailedError).cause).toMatchObject({ message: "billing model down" });
  });

  it("a resumed caller decides as the live one did: cancelled right after the failed handoff's step, it asks its model rather than answer with the error", async () => {
    const store = new InProcessRunStore();
    const { executor, llm } = triage(billing("failing", store), store);
    await new Promise<void>((resolve) => {
      const subscription = executor.stream({ input: "refund me" }, { runId: "caller" }).subscribe({
        next: (event) => {
          if (event.type === "step" && event.subRun === undefined) {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: () => resolve(),
        complete: () => resolve(),
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await store.getRun("caller"))?.status).toBe("cancelled");
    expect(llm.calls).toHaveLength(1);
    const events = await collect(executor.resume("caller"));
    expect(events.some((event) => event.type === "action")).toBe(false); // the handoff did not run again
    expect(llm.calls).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "finish", output: expect.stringMatching(/^I answer myself after: .*billing model down/) });
  });

  it("a fork after the failed handoff's turn decides as the live run did: its model is asked", async () => {
    const store = new InProcessRunStore();
    const { executor, llm } = triage(billing("failing", store), store);
    await executor.invoke({ input: "refund me" }, { runId: "caller" });
    expect(llm.calls).toHaveLength(2);
    const events = await collect(executor.fork("caller", { at: 1, runId: "forked" }));
    expect(llm.calls).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "finish", output: expect.stringMatching(/^I answer myself after: .*billing model down/) });
  });

  it("an ordinary returnDirect tool that throws still answers with its error's observation (classic parity)", async () => {
    const broken = tool(
      async () => {
        throw new Error("boom");
      },
      { name: "broken", description: "Breaks.", schema: z.object({}), returnDirect: true },
    );
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "broken", args: {} }] }] });
    const result = await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [broken], prompt }), tools: [broken] }).invoke({ input: "go" });
    expect(result).toMatchObject({ stopReason: "return_direct", output: 'Tool "broken" failed with error: boom' });
  });
});
