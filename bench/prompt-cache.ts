// Prompt-cache scenario: over a 20-step run with a conversation history from memory and trimmed
// steps, the share of each model call's prompt that repeats the previous call's prompt from its
// start (what a provider's prompt cache can bill at about a tenth). "Keep the last N steps" (the
// numeric trimIntermediateSteps, Python LangChain's trim_intermediate_steps) moves its cut at every
// call once the run is longer than N; trimInSteps moves it in steps. LangChain v1's `createAgent`
// (the `langchain` package) runs the same 20 steps on the same scripted model, history and system
// prompt, with its summarizationMiddleware (older messages replaced by a summary once the context
// passes a size) and its contextEditingMiddleware (older tool results replaced by a placeholder).
import { createToolCallingAgent } from "@agentrx/agents";
import type { AgentStep } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, trimInSteps } from "@agentrx/executors";
import { MemoryRunStore, ThreadMemory } from "@agentrx/runs";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import type { AgentMiddleware } from "langchain";
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
const SYSTEM = `You are a careful research agent. ${"Follow the house rules. ".repeat(40)}`;
const prompt = ChatPromptTemplate.fromMessages([
  ["system", SYSTEM],
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

/** The thread's memory: 200 earlier exchanges, a window of 4000 tokens. */
async function threadMemory(): Promise<ThreadMemory> {
  const memory = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 4000 });
  for (let n = 0; n < 200; n++) {
    await memory.addMessages("t", [new HumanMessage(`Earlier question ${n} about the records?`), new AIMessage(`Earlier answer ${n}: all fine.`)]);
  }
  return memory;
}

/** The mean and lowest prefix share over the calls `model` received. */
function summarize(model: ScriptedChatModel): { mean: number; min: number; calls: number } {
  const values = model.calls.slice(1).map((call, index) => prefixShare((model.calls[index] as { messages: BaseMessage[] }).messages, call.messages));
  return { mean: values.reduce((sum, value) => sum + value, 0) / values.length, min: Math.min(...values), calls: model.calls.length };
}

/** Runs 20 steps with a memory window and `trim`, and returns the mean and lowest prefix share over the calls. */
async function shares(trim: number | ((steps: AgentStep[]) => AgentStep[])): Promise<{ mean: number; min: number }> {
  const memory = await threadMemory();
  const model = new ScriptedChatModel({ responses: [stepScript(STEPS, { tool: "lookup" })], onExhausted: "cycle" });
  const executor = new AgentExecutor({
    agent: createToolCallingAgent({ llm: model, tools: [lookup], prompt }),
    tools: [lookup],
    memory: { memory },
    trimIntermediateSteps: trim,
    maxIterations: STEPS + 5,
  });
  await lastValueFrom(executor.invoke({ input: "Look the records up one by one." }, { threadId: "t" }));
  return summarize(model);
}

/**
 * The same run on LangChain v1's `createAgent` with `middleware`: the memory window's messages and
 * the question as its input, the same system prompt and tool. The script counts the calls (a
 * summary takes the earlier tool messages away), so the run has 20 steps whatever the middleware.
 */
async function langchainV1Shares(middleware: (summaryModel: ScriptedChatModel) => AgentMiddleware[]): Promise<{ mean: number; min: number; calls: number }> {
  const { createAgent } = await import("langchain");
  const history = await (await threadMemory()).getMessages("t");
  let call = 0;
  const model = new ScriptedChatModel({ responses: [() => (call++ < STEPS ? { toolCalls: [{ name: "lookup", args: { i: call - 1 } }] } : "done")], onExhausted: "cycle" });
  const summaryModel = new ScriptedChatModel({ responses: ["The agent looked records up; all were fine."], onExhausted: "cycle" });
  const agent = createAgent({ model, tools: [lookup], systemPrompt: SYSTEM, middleware: middleware(summaryModel) });
  await agent.invoke({ messages: [...history, new HumanMessage("Look the records up one by one.")] }, { recursionLimit: 10 * STEPS });
  return summarize(model);
}

export async function promptCache(): Promise<Row[]> {
  const lastN = await shares(8);
  const stepped = await shares(trimInSteps({ keep: 8, every: 12 }));
  const none = await shares(-1);
  const { summarizationMiddleware, contextEditingMiddleware, ClearToolUsesEdit } = await import("langchain");
  // The run starts at about 2,950 tokens by LangChain's count (the history is 2,690) and grows
  // about 30 a step: past 3,300 tokens (about 12 steps in, where trimInSteps 8/12 first cuts),
  // summarize all but the last 20 messages (10 steps), or clear the tool results but the last 3
  // (its default waits for 100,000 tokens, which this run never reaches).
  const summarized = await langchainV1Shares((summaryModel) => [summarizationMiddleware({ model: summaryModel, trigger: { tokens: 3300 }, keep: { messages: 20 } })]);
  const cleared = await langchainV1Shares(() => [contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 3300 }, keep: { messages: 3 } })] })]);
  const informative = (metric: string, value: number, label: string): Row => ({ scenario: "prompt-cache", metric, agentrx: value, check: { label: `${label} (informative)`, value, limit: 0, atLeast: true } });
  // Beside LangChain v1's middleware, the agentrx column holds trimInSteps 8/12 on the same run.
  const versus = (metric: string, ours: number, theirs: number, label: string): Row => ({
    scenario: "prompt-cache",
    metric,
    agentrx: ours,
    langchainV1: theirs,
    check: { label: `${label}, v1 (informative)`, value: theirs, limit: 0, atLeast: true },
  });
  return [
    // Keeping the last N steps is the classic cut (Python LangChain's trim_intermediate_steps).
    informative("prefix share, keep last 8 (classic cut)", lastN.mean, "mean share"),
    informative("lowest share, keep last 8 (classic cut)", lastN.min, "lowest share"),
    informative("prefix share, no trimming", none.mean, "mean share"),
    { scenario: "prompt-cache", metric: "prefix share, trimInSteps 8/12", agentrx: stepped.mean, check: { label: "mean share", value: stepped.mean, limit: 0.95, atLeast: true } },
    informative("lowest share, trimInSteps 8/12", stepped.min, "lowest share"),
    versus("prefix share, v1 summarization 3300/20", stepped.mean, summarized.mean, "mean share"),
    versus("lowest share, v1 summarization 3300/20", stepped.min, summarized.min, "lowest share"),
    versus("prefix share, v1 context editing 3300/3", stepped.mean, cleared.mean, "mean share"),
    versus("lowest share, v1 context editing 3300/3", stepped.min, cleared.min, "lowest share"),
  ];
}
