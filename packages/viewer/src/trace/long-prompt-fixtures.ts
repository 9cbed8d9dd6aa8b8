// Test-only: a scripted run with many model calls, each recorded with its whole request
// (`recordPrompts`, on for `stream()`), and what those requests held, read apart from the page.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunInfo, type RunStore } from "@agentrx/executors";
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

/**
 * A view of the recorded run `runId` in `store` as if it were still running, one model call per
 * look: each `getRun` of it shows one more model call (the events up to the next one), and it is
 * `running` until every event is shown. A live page follows it as it would a run that makes one
 * model call between two polls.
 */
export async function revealedStepByStep(store: RunStore, runId: string): Promise<RunStore> {
  const info = (await store.getRun(runId)) as RunInfo;
  const calls = (await store.readEvents(runId)).filter((event) => event.type === "model_call").map((event) => event.seq);
  // The events before model call `next` are shown (every event once each call is).
  let next = 0;
  const visible = () => (next < calls.length ? (calls[next] as number) - 1 : info.eventCount);
  const getRun: RunStore["getRun"] = async (id) => {
    if (id !== runId) return store.getRun(id);
    next = Math.min(next + 1, calls.length);
    return { ...info, eventCount: visible(), status: visible() < info.eventCount ? "running" : info.status };
  };
  const readEvents: RunStore["readEvents"] = async (id, options) => (await store.readEvents(id, options)).filter((event) => id !== runId || event.seq <= visible());
  return new Proxy(store, {
    get: (target, key) => {
      if (key === "getRun") return getRun;
      if (key === "readEvents") return readEvents;
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
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
