// Prompt-cache scenario: over a 20-step run with a conversation history from memory and trimmed
// steps, the share of each model call's prompt that repeats the previous call's prompt from its
// start (what a provider's prompt cache can bill at about a tenth). "Keep the last N steps" (the
// numeric trimIntermediateSteps, Python LangChain's trim_intermediate_steps) moves its cut at every
// call once the run is longer than N; trimInSteps moves it in steps.
import { createToolCallingAgent } from "@agentrx/agents";
import type { AgentStep } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, trimInSteps } from "@agentrx/executors";
import { MemoryRunStore, ThreadMemory } from "@agentrx/runs";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";
import type { Row } from "./scenarios";
import { stepScript } from "./setup";

const STEPS = 20;
const lookup = tool(async ({ i }: { i: number }) => `Record ${i}: ${"details of the record. ".repeat(5)}`, {
  name: "lookup",
  description: "Looks a record up.",
  schema: z.object({ i: z.number() }),
});
const prompt = ChatPromptTemplate.fromMessages([
  ["system", `You are a careful research agent. ${"Follow the house rules. ".repeat(40)}`],
  new MessagesPlaceholder("chat_history"),
  ["human", "{input}"],
  new MessagesPlaceholder("agent_scratchpad"),
]);

/** One message as the provider would see it, for comparing prompts. */
function wire(message: BaseMessage): string {
  const calls = (message as AIMessage).tool_calls ?? [];
  return JSON.stringify([message.getType(), message.content, calls.map((call) => [call.id, call.name, call.args])]);
}

/** The share of `current`'s characters that repeat `previous` from its start. */
function prefixShare(previous: BaseMessage[], current: BaseMessage[]): number {
  const a = previous.map(wire).join("\n");
  const b = current.map(wire).join("\n");
  let at = 0;
  const end = Math.min(a.length, b.length);
  while (at < end && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at / b.length;
}

/** Runs 20 steps with a memory window and `trim`, and returns the mean and lowest prefix share over the calls. */
async function shares(trim: number | ((steps: AgentStep[]) => AgentStep[])): Promise<{ mean: number; min: number }> {
  const memory = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 4000 });
  for (let n = 0; n < 200; n++) {
    await memory.addMessages("t", [new HumanMessage(`Earlier question ${n} about the records?`), new AIMessage(`Earlier answer ${n}: all fine.`)]);
  }
  const model = new ScriptedChatModel({ responses: [stepScript(STEPS, { tool: "lookup" })], onExhausted: "cycle" });
  const executor = new AgentExecutor({
    agent: createToolCallingAgent({ llm: model, tools: [lookup], prompt }),
    tools: [lookup],
    memory: { memory },
    trimIntermediateSteps: trim,
    maxIterations: STEPS + 5,
  });
  await lastValueFrom(executor.invoke({ input: "Look the records up one by one." }, { threadId: "t" }));
  const values = model.calls.slice(1).map((call, index) => prefixShare((model.calls[index] as { messages: BaseMessage[] }).messages, call.messages));
  return { mean: values.reduce((sum, value) => sum + value, 0) / values.length, min: Math.min(...values) };
}

export async function promptCache(): Promise<Row[]> {
  const lastN = await shares(8);
  const stepped = await shares(trimInSteps({ keep: 8, every: 12 }));
  const none = await shares(-1);
  return [
    { scenario: "prompt-cache", metric: "prefix share, keep last 8", agentrx: lastN.mean, check: { label: "mean share (informative)", value: lastN.mean, limit: 0, atLeast: true } },
    { scenario: "prompt-cache", metric: "lowest share, keep last 8", agentrx: lastN.min, check: { label: "lowest share (informative)", value: lastN.min, limit: 0, atLeast: true } },
    { scenario: "prompt-cache", metric: "prefix share, no trimming", agentrx: none.mean, check: { label: "mean share (informative)", value: none.mean, limit: 0, atLeast: true } },
    { scenario: "prompt-cache", metric: "prefix share, trimInSteps 8/12", agentrx: stepped.mean, check: { label: "mean share", value: stepped.mean, limit: 0.95, atLeast: true } },
    { scenario: "prompt-cache", metric: "lowest share, trimInSteps 8/12", agentrx: stepped.min, check: { label: "lowest share (informative)", value: stepped.min, limit: 0, atLeast: true } },
  ];
}
