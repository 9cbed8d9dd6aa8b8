// A run cancelled while the model streamed its answer, then resumed: the resume makes the cut-off
// agent call again as the same iteration, so the record holds tokens of that iteration before the
// resume's `start` and again after it. The trace page shows the run's turns once, and the retried
// call's streamed text (and time to first token) without the cut-off call's.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, type RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { type TracePageData, formatRuntime, readTracePage, traceLayoutRuntime, traceModelRuntime } from "@agentrx/viewer/trace-page";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const layout = traceLayoutRuntime(formatRuntime());
const runtime = traceModelRuntime();
const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const search = tool(async ({ query }: { query: string }) => `Sunny in ${query}`, { name: "search", description: "Searches the web.", schema: z.object({ query: z.string() }) });
const ANSWER = "It is sunny in Paris today.";

function executorOn(llm: ScriptedChatModel, store: RunStore) {
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt }), tools: [search], store, maxIterations: 2 });
}

/** Streams `source` until the first token of iteration 1, then goes away (Ctrl-C). */
function cutOnFirstAnswerToken(source: ReturnType<AgentExecutor["stream"]>): Promise<void> {
  return new Promise<void>((resolve) => {
    const subscription = source.subscribe({
      next: (event: AgentStreamEvent) => {
        if (event.type === "token" && event.iteration === 1) setTimeout(() => (subscription.unsubscribe(), resolve()), 0);
      },
      error: () => resolve(),
      complete: () => resolve(),
    });
  });
}

async function traceOf(store: RunStore, runId: string, mode: "file" | "ui" = "file") {
  const data = JSON.parse(JSON.stringify(await readTracePage(store, runId, { mode, source: "test" }))) as TracePageData;
  const model = runtime.createTrace(data.run);
  runtime.applyEvents(model, data.events);
  return model;
}

describe("the trace of a run cut off while the model streamed its answer, then resumed", () => {
  it("shows the retried call in the same iteration, with its own streamed text only", async () => {
    const store = new MemoryRunStore();
    const first = new ScriptedChatModel({ streaming: true, tokenDelayMs: 5, responses: [{ toolCalls: [{ name: "search", args: { query: "Paris" } }] }, ANSWER] });
    await cutOnFirstAnswerToken(executorOn(first, store).stream({ input: "Weather in Paris?" }, { runId: "cut" }));
    await expect.poll(async () => (await store.getRun("cut"))?.status).toBe("cancelled");
    // Cut again on the resumed call's first token: the iteration holds the tokens of two segments, no model call.
    await cutOnFirstAnswerToken(executorOn(new ScriptedChatModel({ streaming: true, tokenDelayMs: 5, responses: [ANSWER] }), store).resume("cut"));
    await expect.poll(async () => (await store.getRun("cut"))?.status).toBe("cancelled");
    const twiceCut = await traceOf(store, "cut", "ui");
    const segmentTwo = twiceCut.segments[1]?.start as number;
    expect(twiceCut.iterations.map((iteration) => iteration.n)).toEqual([0, 1]);
    const pending = twiceCut.iterations[1];
    const recorded = (await store.readEvents("cut")).map((event) => event.data as { type: string; iteration?: number; text?: string });
    const streamedAfterResume = recorded.slice(recorded.map((event) => event.type).lastIndexOf("start")).filter((event) => event.type === "token" && event.iteration === 1);
    expect(streamedAfterResume.length).toBeGreaterThan(0);
    expect(pending?.pendingText).toBe(streamedAfterResume.map((event) => event.text).join(""));
    expect(pending?.pendingTokenChars).toBe(pending?.pendingText?.length);
    expect(pending?.pendingFirstTokenAt).toBeGreaterThanOrEqual(segmentTwo);

    const result = await executorOn(new ScriptedChatModel({ streaming: true, responses: [ANSWER] }), store).resume("cut");
    expect(result).toMatchObject({ output: ANSWER, stopReason: "finish" });
    const model = await traceOf(store, "cut");
    expect(model.segments).toHaveLength(3);
    expect(model.iterations.map((iteration) => iteration.n)).toEqual([0, 1]);
    const calls = model.iterations[1]?.modelCalls ?? [];
    expect(calls).toHaveLength(1);
    // Its own tokens: not glued to the cut-off calls' (which streamed before the resume's start).
    expect(calls[0]?.tokenChars).toBe(ANSWER.length);
    expect(calls[0]?.firstTokenAt).toBeGreaterThanOrEqual(model.segments[2]?.start as number);
    expect(
      layout
        .rows(model, Date.now())
        .filter((row) => row.kind === "iteration")
        .map((row) => row.label),
    ).toEqual(["iteration 1", "iteration 2"]);
  });
});
