import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, SubRunInterruptedError, handoff } from "@agentrx/executors";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect, unhandledDuring } from "../executor/test-helpers";
import { InProcessRunStore } from "../runs/in-process-run-store";

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You help."],
  new MessagesPlaceholder({ variableName: "chat_history", optional: true }),
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);

const lookup = tool(async ({ id }: { id: string }) => `order ${id}: paid twice`, { name: "lookup", description: "Looks an order up.", schema: z.object({ id: z.string() }) });

function billingAgent() {
  const llm = new ScriptedChatModel({ responses: [(messages) => `Billing: refunded (I saw ${messages.length} messages, last: ${messages.at(-1)?.text})`] });
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [] });
  return { llm, executor };
}

function triage(toBilling: ReturnType<typeof handoff>, args: Record<string, unknown> = {}) {
  const llm = new ScriptedChatModel({
    responses: [{ toolCalls: [{ name: "lookup", args: { id: "42" } }] }, { toolCalls: [{ name: "transfer_to_billing", args }] }],
  });
  const tools = [lookup, toBilling];
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools });
}

describe("handoff", () => {
  it("hands the conversation to the other agent, streams it as a sub-run, and its answer is the run's", async () => {
    const billing = billingAgent();
    const executor = triage(handoff(billing.executor, { name: "transfer_to_billing", description: "Refunds and invoices." }));
    const events: AgentStreamEvent[] = await collect(executor.stream({ input: "I was charged twice for order 42" }));
    const output = events.at(-1);
    expect(output).toMatchObject({ type: "output", stopReason: "return_direct" });
    expect(output?.type === "output" && output.output).toMatch(/^Billing: refunded/);
    // The other agent saw the whole conversation (the input, the lookup call and result), then the input again to answer.
    expect(billing.llm.calls[0]?.messages.map((message) => message.getType())).toEqual(["system", "human", "ai", "tool", "human"]);
    expect(billing.llm.calls[0]?.messages.at(-1)?.text).toBe("I was charged twice for order 42");
    expect(billing.llm.calls[0]?.messages[3]?.text).toBe("order 42: paid twice");
    const sub = events.filter((event) => event.subRun !== undefined);
    expect(sub.map((event) => event.type)).toEqual(expect.arrayContaining(["start", "output"]));
    expect(sub.every((event) => event.subRun?.[0] === "transfer_to_billing")).toBe(true);
  });

  it("inputFilter decides what the other agent gets; the model's request becomes its input by default", async () => {
    const billing = billingAgent();
    const filtered = triage(
      handoff(billing.executor, {
        name: "transfer_to_billing",
        description: "Refunds.",
        inputFilter: ({ messages, request }) => ({ input: request ?? "?", chat_history: messages.filter((message) => HumanMessage.isInstance(message)) }),
      }),
      { request: "Refund order 42." },
    );
    await filtered.invoke({ input: "charged twice", chat_history: [new HumanMessage("earlier"), new AIMessage("hello")] });
    expect(billing.llm.calls[0]?.messages.map((message) => `${message.getType()}:${message.text}`)).toEqual(["system:You help.", "human:earlier", "human:charged twice", "human:Refund order 42."]);
    const second = billingAgent();
    await triage(handoff(second.executor, { name: "transfer_to_billing", description: "Refunds." }), { request: "Refund order 42." }).invoke({ input: "charged twice" });
    expect(second.llm.calls[0]?.messages.at(-1)?.text).toBe("Refund order 42.");
    expect(second.llm.calls[0]?.messages.map((message) => message.getType())).toEqual(["system", "human", "ai", "tool", "human"]);
  });

  it("an inputFilter that returns a promise fails the handoff call naming it, and its rejection is not left unhandled", async () => {
    const billing = billingAgent();
    const toBilling = handoff(billing.executor, { name: "transfer_to_billing", description: "Refunds.", inputFilter: (() => Promise.reject(new Error("filter broke"))) as never });
    const { unhandled, error } = await unhandledDuring(() => triage(toBilling).invoke({ input: "charged twice" }));
    expect(error).toBeUndefined();
    expect(unhandled).toEqual([]);
    const result = await triage(handoff(billing.executor, { name: "transfer_to_billing", description: "Refunds.", inputFilter: (async () => ({ input: "x" })) as never })).invoke({ input: "charged twice" });
    expect(result.output).toBe('Tool "transfer_to_billing" failed with error: handoff "transfer_to_billing": `inputFilter` must return the other agent\'s inputs as an object (synchronously), got a Promise.');
    expect(billing.llm.calls).toHaveLength(0);
  });

  it("an agent that pauses for approval fails the handoff call, naming its paused run, rather than answer \"\"", async () => {
    const refund = tool(async () => "refunded", { name: "refund", description: "Refunds.", schema: z.object({}) });
    const llm = new ScriptedChatModel({ onExhausted: "cycle", responses: [{ toolCalls: [{ name: "refund", args: {} }] }] });
    const store = new InProcessRunStore();
    const billing = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [refund], prompt }), tools: [refund], store, needsApproval: () => true });
    const toBilling = handoff(billing, { name: "transfer_to_billing", description: "Refunds." });
    const triage = (options: { handleToolRuntimeErrors?: boolean } = {}) =>
      new AgentExecutor({
        agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "transfer_to_billing", args: {} }] }] }), tools: [toBilling], prompt }),
        tools: [toBilling],
        ...options,
      });
    const error = await triage({ handleToolRuntimeErrors: false })
      .invoke({ input: "Refund me" })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(SubRunInterruptedError.isInstance(error)).toBe(true);
    const paused = error as SubRunInterruptedError;
    expect(paused).toMatchObject({ tool: "transfer_to_billing", waitingOn: ["refund"] });
    expect(paused.message).toMatch(/paused for approval \(waiting on "refund"\)/);
    expect((await store.getRun(paused.runId))?.status).toBe("interrupted");
    // With tool errors handled (the default), the run's answer says so: it used to be "".
    const result = await triage().invoke({ input: "Refund me" });
    expect(result.output).toMatch(/paused for approval/);
  });

  it("a handoff before any step shows the other agent the caller's input once, not twice in a row", async () => {
    const billing = billingAgent();
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "transfer_to_billing", args: {} }] }] });
    const toBilling = handoff(billing.executor, { name: "transfer_to_billing", description: "Refunds." });
    await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [toBilling], prompt }), tools: [toBilling] }).invoke({ input: "Refund order 42", chat_history: [new HumanMessage("Hi"), new AIMessage("Hello.")] });
    expect(billing.llm.calls[0]?.messages.map((message) => `${message.getType()}:${message.text}`)).toEqual(["system:You help.", "human:Hi", "ai:Hello.", "human:Refund order 42"]);
  });

  it("refuses bad options, naming them", () => {
    const { executor } = billingAgent();
    expect(() => handoff(executor, { name: "to billing", description: "x" })).toThrow(/`name` must be 1-64 letters/);
    expect(() => handoff(executor, { name: "b", description: " " })).toThrow(/`description` must be a non-empty string/);
    expect(() => handoff({} as never, { name: "b", description: "x" })).toThrow(/`executor` must be an AgentExecutor/);
    expect(() => handoff(executor, { name: "b", description: "x", inputFilter: "all" as never })).toThrow(/`inputFilter` must be a function/);
  });
});
