// An output guardrail checks the answer before anyone sees it, its streamed tokens included: a
// model call's tokens are held until its output passed, and a tripped answer's are never streamed.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, guardrail } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { collect } from "../executor/test-helpers";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const noCards = guardrail({ name: "no-cards", on: "output", check: ({ text }) => /4111/.test(text) && "a card number" });

function executorFor(answer: string, store?: InProcessRunStore, maxIterations?: number) {
  const llm = new ScriptedChatModel({ streaming: true, responses: [answer] });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], middleware: [noCards], ...(store ? { store } : {}), ...(maxIterations === undefined ? {} : { maxIterations }) });
}

const tokens = (events: AgentStreamEvent[]) => events.filter((event): event is Extract<AgentStreamEvent, { type: "token" }> => event.type === "token").map((event) => event.text).join("");

describe("an output guardrail and streamed tokens", () => {
  it("never streams, nor records, a tripped answer's tokens", async () => {
    const store = new InProcessRunStore();
    const events = await collect(executorFor("The card is 4111 1111 1111 1111 ok", store).stream({ input: "card?" }, { runId: "tripped" }));
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "guardrail" });
    expect(tokens(events)).not.toContain("4111");
    const recorded = (await store.readEvents("tripped")).map((event) => event.data as { type: string; text?: string });
    expect(recorded.filter((event) => event.type === "token").map((event) => event.text).join("")).not.toContain("4111");
  });

  it("streams an answer that passed, whole, before its output event", async () => {
    const events = await collect(executorFor("All good here.").stream({ input: "hi" }));
    expect(tokens(events)).toBe("All good here.");
    expect(events.findIndex((event) => event.type === "token")).toBeLessThan(events.findIndex((event) => event.type === "output"));
  });
});
