// Test-only: a scripted run with many model calls, each recorded with its whole request
// (`recordPrompts`, on for `stream()`), and what those requests held, read apart from the page.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { readPrompts } from "@agentrx/runs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";

/**
 * Records run `runId`: `toolCalls` iterations of one `lookup` call each, then an answer. Model
 * call `k` is sent the system and human messages and the `k` turns before it.
 */
export async function recordLongPromptRun(store: RunStore, runId: string, toolCalls: number, input = "Go."): Promise<void> {
  await lastValueFrom(longPromptExecutor(store, toolCalls).stream({ input }, { runId }));
}

/** The executor of {@link recordLongPromptRun}: run it with `{ input }`. */
export function longPromptExecutor(store: RunStore, toolCalls: number): AgentExecutor {
  const lookup = tool(async ({ q }) => `found ${q}`, { name: "lookup", description: "Looks a thing up.", schema: z.object({ q: z.string() }) });
  const responses = [...Array.from({ length: toolCalls }, (_, i) => ({ content: `Step ${i}: checking.`, toolCalls: [{ name: "lookup", args: { q: `thing ${i}` } }] })), { content: "Done." }];
  const llm = new ScriptedChatModel({ responses });
  const prompt = ChatPromptTemplate.fromMessages([["system", "Be brief."], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store, maxIterations: toolCalls + 5 });
}

/** A recorded request's messages as the detail pane lists them: each message's role and text, then one entry per tool call it asks for. */
export interface ShownMessage {
  role: string;
  text: string;
}

/** What the detail pane should show of each model call's request, read with `readPrompts` (not through the page). */
export async function expectedRequests(store: RunStore, runId: string): Promise<ShownMessage[][]> {
  return (await readPrompts(store, runId)).map((prompt) =>
    prompt.messages.flatMap((message) => {
      const { type, data } = message as { type: string; data: { content: string; tool_calls?: { id: string; name: string; args: unknown }[] } };
      const calls = (data.tool_calls ?? []).map((call) => ({ role: `tool call · ${call.name} · ${call.id}`, text: JSON.stringify(call.args, null, 2) }));
      return [{ role: type, text: data.content === "" ? "(empty)" : data.content }, ...calls];
    }),
  );
}
