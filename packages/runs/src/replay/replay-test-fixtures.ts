// Shared helpers for the replay and RecordedChatModel tests (not exported from the package).
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, deferred, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, encodeRunEvent, type AgentStreamEvent, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { filter, firstValueFrom, lastValueFrom, toArray, type Observable } from "rxjs";
import { expect, vi } from "vitest";
import { z } from "zod";

/** All values of an observable. */
export function collect<T>(observable: Observable<T>): Promise<T[]> {
  return lastValueFrom(observable.pipe(toArray()));
}

/** Tools that count their calls: `search({ query })` and `clock({ city })`; `weather` sets search's answers. */
export function weatherTools(weather: Record<string, string> = { Paris: "Sunny, 21 °C", Lyon: "Rainy, 14 °C" }) {
  const calls: string[] = [];
  const search = tool(
    async ({ query }: { query: string }) => {
      calls.push(`search:${query}`);
      return weather[query] ?? `No weather for ${query}`;
    },
    { name: "search", description: "Looks up the weather of a city.", schema: z.object({ query: z.string() }) },
  );
  const clock = tool(
    async ({ city }: { city: string }) => {
      calls.push(`clock:${city}`);
      return `It is 10:00 in ${city}.`;
    },
    { name: "clock", description: "Tells the time in a city.", schema: z.object({ city: z.string() }) },
  );
  return { tools: [search, clock], calls };
}

/** The script of a three-call tool-calling run: two parallel tool calls, one more, then the answer. */
export function weatherScript(): ScriptedResponse[] {
  return [
    {
      content: "Let me check Paris.",
      toolCalls: [
        { name: "search", args: { query: "Paris" } },
        { name: "clock", args: { city: "Paris" } },
      ],
    },
    { toolCalls: [{ name: "search", args: { query: "Lyon" } }] },
    "Paris is sunny (21 °C) at 10:00; Lyon is rainy.",
  ];
}

export const toolPrompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a weather assistant."],
  ["human", "{input}"],
  new MessagesPlaceholder("agent_scratchpad"),
]);

/** An executor over a tool-calling agent with `llm` and fresh counting tools. */
export function weatherExecutor(llm: BaseChatModel, options: { store?: RunStore; weather?: Record<string, string>; returnIntermediateSteps?: boolean } = {}) {
  const { tools, calls } = weatherTools(options.weather);
  const agent = createToolCallingAgent({ llm, tools, prompt: toolPrompt });
  const executor = new AgentExecutor({
    agent,
    tools,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.returnIntermediateSteps ? { returnIntermediateSteps: true } : {}),
  });
  return { executor, toolCalls: calls };
}

/** Records the weather run with a `ScriptedChatModel` through `stream()` and returns its live events. */
export async function recordWeatherRun(store: RunStore, runId: string, input = "Weather in Paris and Lyon?") {
  const llm = new ScriptedChatModel({ responses: weatherScript() });
  const { executor, toolCalls } = weatherExecutor(llm, { store, returnIntermediateSteps: true });
  const events = await collect(executor.stream({ input }, { runId }));
  return { events, toolCalls, llm };
}

/** Live events with consecutive `token` events of one iteration joined, as a record keeps them. */
export function coalesceTokens(events: readonly AgentStreamEvent[]): AgentStreamEvent[] {
  const out: AgentStreamEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (event.type === "token" && last?.type === "token" && last.iteration === event.iteration) {
      out[out.length - 1] = { ...last, text: last.text + event.text };
    } else out.push(event);
  }
  return out;
}

/** What two runs must share, event by event. */
export function comparable(event: AgentStreamEvent): Record<string, unknown> {
  switch (event.type) {
    case "start":
      return { type: event.type, runId: event.runId, inputs: event.inputs, resumed: event.resumed };
    case "action": {
      const { tool: name, toolInput, log, toolCallId } = event.action as typeof event.action & { toolCallId?: string };
      return { type: event.type, iteration: event.iteration, tool: name, toolInput, log, toolCallId };
    }
    case "step":
      return { type: event.type, iteration: event.iteration, tool: event.step.action.tool, toolInput: event.step.action.toolInput, observation: event.step.observation };
    case "token":
      return { type: event.type, iteration: event.iteration, text: event.text };
    case "usage":
      return { type: event.type, iteration: event.iteration, usage: event.usage };
    case "message":
      return { type: event.type, iteration: event.iteration, text: event.message.text, inboxSeq: event.inboxSeq };
    case "output":
      return {
        type: event.type,
        runId: event.runId,
        output: event.output,
        returnValues: event.returnValues,
        stopReason: event.stopReason,
        usage: event.usage,
        steps: event.intermediateSteps?.map((step) => [step.action.tool, step.action.toolInput, step.observation]),
      };
    case "interrupt":
      return { type: event.type, runId: event.runId, interrupts: event.interrupts };
    case "compaction":
      return { type: event.type, iteration: event.iteration, steps: event.steps, summary: event.summary };
    case "middleware":
      return { type: event.type, iteration: event.iteration, name: event.name, data: event.data };
  }
}

/** Records a run by hand: `events` (with their `at`) as one write; the run stays `running` unless `status` says otherwise. */
export async function writeRun(
  store: RunStore,
  runId: string,
  events: readonly (AgentStreamEvent | { data: StoredRunEvent["data"]; at: number })[],
  status?: "finished" | "cancelled",
): Promise<void> {
  const at = events[0]?.at ?? Date.now();
  await store.createRun({ runId, inputs: {}, status: "running", owner: "test", leaseMs: 60_000, at });
  const stored: StoredRunEvent[] = events.map((event, index) => {
    const data = "type" in event ? encodeRunEvent(event) : event.data;
    return { seq: index + 1, type: String(data["type"]), at: event.at, data };
  });
  await store.write(runId, { owner: "test", leaseMs: 60_000, events: stored, at, ...(status ? { update: { status, release: true } } : {}) });
}

/** A tool `slow({ query })` that waits for `open()` while `gated`; `calls` counts its calls. */
export function slowTool() {
  const gate = deferred<void>();
  const state = { gated: true, calls: 0 };
  const slow = tool(
    async ({ query }: { query: string }) => {
      state.calls++;
      if (state.gated) await gate.promise;
      return `Found ${query}`;
    },
    { name: "slow", description: "A slow search.", schema: z.object({ query: z.string() }) },
  );
  return { slow, state, open: () => (state.gated = false) };
}

export const RESUMED_SCRIPT: ScriptedResponse[] = [
  { toolCalls: [{ name: "slow", args: { query: "Paris" } }] },
  { toolCalls: [{ name: "slow", args: { query: "Lyon" } }] },
  "Both found.",
];

/**
 * Records a run in two segments: the first is cancelled while its first tool call runs, the
 * second resumes it (with a new executor) to its end. Returns the second segment's live events.
 */
export async function recordResumedRun(store: RunStore, runId: string, input = "Find Paris and Lyon") {
  const { slow, open } = slowTool();
  const executor = (responses: ScriptedResponse[]) =>
    new AgentExecutor({ agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses }), tools: [slow], prompt: toolPrompt }), tools: [slow], store });
  await firstValueFrom(executor(RESUMED_SCRIPT).stream({ input }, { runId }).pipe(filter((event) => event.type === "action")));
  await vi.waitFor(async () => expect((await store.getRun(runId))?.status).toBe("cancelled"));
  open();
  return collect(executor(RESUMED_SCRIPT.slice(1)).resume(runId));
}
