// Streaming a run to a UI with RxJS: the final answer's tokens for the chat bubble, a status line
// from the action and step events, one shared run, and a tool-call budget that ends the run
// gracefully ("generate" early stopping) instead of letting the agent loop.
//
//   npx tsx examples/stream-to-ui.ts
//
// Uses OPENAI_API_KEY / OPENAI_BASE_URL (and OPENAI_MODEL) when set; a scripted model otherwise.
import { createToolCallingAgent } from "@agentrx/agents";
import { endpointModel } from "./lib/endpoint-model";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, finalAnswerTokens, toolCallBudget } from "@agentrx/executors";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { filter, lastValueFrom, map, share } from "rxjs";
import { z } from "zod";

const search = tool(async ({ query }) => `Top result for "${query}": AgentRx streams agent runs as RxJS observables.`, {
  name: "search",
  description: "Searches the web.",
  schema: z.object({ query: z.string() }),
});

const real = endpointModel({ streaming: true, temperature: 0 });
const llm: BaseChatModel =
  real ??
  new ScriptedChatModel({
    streaming: true,
    tokenDelayMs: 10,
    responses: [
      { toolCalls: [{ name: "search", args: { query: "AgentRx" } }] },
      { toolCalls: [{ name: "search", args: { query: "AgentRx streaming" } }] },
      { toolCalls: [{ name: "search", args: { query: "AgentRx RxJS" } }] }, // over budget: never runs
      "AgentRx is an agent framework whose runs are RxJS observables, so a UI can subscribe to them.",
    ],
  });

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "Answer in one sentence. Search at most twice."],
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);
const executor = new AgentExecutor({
  agent: createToolCallingAgent({ llm, tools: [search], prompt }),
  tools: [search],
  earlyStoppingMethod: "generate",
  stopWhen: toolCallBudget(2),
});

// One run, shared by every view of it.
const run$ = executor.stream({ input: "What is AgentRx?" }).pipe(share());

const status$ = run$.pipe(
  filter((event) => event.type === "action" || event.type === "step"),
  map((event) => (event.type === "action" ? `searching: ${JSON.stringify(event.action.toolInput)}` : `found (${Math.round(event.durationMs)} ms)`)),
);
status$.subscribe((line) => console.log(`[status] ${line}`));

let first = true;
run$.pipe(finalAnswerTokens()).subscribe((text) => {
  process.stdout.write(first ? `[answer] ${text}` : text);
  first = false;
});

const last = await lastValueFrom(run$);
if (last.type === "output") {
  console.log(`\n[done]   stopReason=${last.stopReason}${last.stoppedBy ? ` stoppedBy=${JSON.stringify(last.stoppedBy)}` : ""}`);
}
