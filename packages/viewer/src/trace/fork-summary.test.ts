// A fork's trace page: its header counts its own work, and its copied prefix apart (the run it was
// forked from made those calls). Checked on a real fork (AgentExecutor.fork) of a priced run.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type PriceTable, type RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { formatRuntime, readTracePage, type TracePageData, traceLayoutRuntime, traceModelRuntime, traceSummaryRuntime } from "@agentrx/viewer/trace-page";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

const layout = traceLayoutRuntime(formatRuntime());
const { summary: summaryOf } = traceSummaryRuntime(formatRuntime(), layout);
const runtime = traceModelRuntime();
const PRICES: PriceTable = { "weather-model": { input: 1000, output: 2000 } };

async function summaryOfRun(store: RunStore, runId: string) {
  const data = JSON.parse(JSON.stringify(await readTracePage(store, runId, { mode: "file", source: "test" }))) as TracePageData;
  const model = runtime.createTrace(data.run);
  runtime.applyEvents(model, data.events);
  return summaryOf(model, layout.rows(model, Date.now()), Date.now());
}

/** The usage events of `runId`'s record whose iteration is before `before`: tokens and dollars. */
async function usageBefore(store: RunStore, runId: string, before: number) {
  let tokens = 0;
  let cost = 0;
  for (const { data } of await store.readEvents(runId)) {
    if (data["type"] !== "usage" || (data["iteration"] as number) >= before) continue;
    const usage = data["usage"] as { total_tokens: number; cost: { total: number } };
    tokens += usage.total_tokens;
    cost += usage.cost.total;
  }
  return { tokens, cost };
}

describe("the header of a fork's trace page", () => {
  const store = new MemoryRunStore();
  beforeAll(async () => {
    const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}.`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executorOf = (responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"]) => {
      const llm = new ScriptedChatModel({ responses, model: "weather-model" });
      return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], store, prices: PRICES });
    };
    const call = (city: string) => ({ toolCalls: [{ name: "weather", args: { city }, id: `call-${city}` }] });
    await lastValueFrom(executorOf([call("Paris"), call("Rome"), "Sunny in both."]).stream({ input: "Paris, then Rome?" }, { runId: "source" }));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the forks start later than their source
    await lastValueFrom(executorOf([call("Oslo"), "Sunny in all three."]).fork("source", { at: 2, runId: "forked" }));
    await lastValueFrom(executorOf(["Ask me again."]).fork("source", { at: 0, runId: "from-start" }));
  });

  it("counts the fork's own iterations, calls, tokens and cost, not the copied prefix's", async () => {
    const summary = await summaryOfRun(store, "forked");
    // The fork ran iterations 3 and 4: two model calls and one tool call.
    expect([summary.iterations, summary.modelCalls, summary.toolCalls]).toEqual([2, 2, 1]);
    const record = (await store.getRun("forked"))?.usage;
    const copied = await usageBefore(store, "forked", 2);
    expect(copied.tokens).toBeGreaterThan(0);
    expect(summary.tokens?.total).toBe((record?.total_tokens ?? 0) - copied.tokens);
    expect(summary.cost).toBeCloseTo((record?.cost?.total ?? 0) - copied.cost, 9);
    // The same as the usage events the fork's own part recorded, after its copied prefix.
    const all = await usageBefore(store, "forked", Infinity);
    expect(summary.tokens?.total).toBe(all.tokens - copied.tokens);
  });

  it("names the copied prefix apart: the run it came from, its iterations, calls, tokens and cost", async () => {
    const summary = await summaryOfRun(store, "forked");
    const copied = await usageBefore(store, "source", 2); // the source spent them
    expect(summary.copied).toMatchObject({ runId: "source", iteration: 2, iterations: 2, modelCalls: 2, toolCalls: 2 });
    expect(summary.copied?.tokens?.total).toBe(copied.tokens);
    expect(summary.copied?.cost).toBeCloseTo(copied.cost, 9);
  });

  it("starts when the fork was made, not when the run it copies started (its copied prefix keeps that run's times)", async () => {
    for (const runId of ["forked", "from-start"]) {
      const data = JSON.parse(JSON.stringify(await readTracePage(store, runId, { mode: "file", source: "test" }))) as TracePageData;
      const model = runtime.createTrace(data.run);
      runtime.applyEvents(model, data.events);
      const createdAt = (await store.getRun(runId))?.createdAt ?? Number.NaN;
      expect(model.segments[0]?.start).toBeLessThan(createdAt); // the source's start, copied
      expect(layout.startedAt(model)).toBeGreaterThanOrEqual(createdAt);
    }
  });

  it("copies nothing for a fork at the start: every figure is its own", async () => {
    const summary = await summaryOfRun(store, "from-start");
    expect(summary.copied).toMatchObject({ runId: "source", iteration: 0, iterations: 0, modelCalls: 0, toolCalls: 0 });
    expect(summary.copied?.tokens).toBeUndefined();
    expect([summary.iterations, summary.modelCalls, summary.toolCalls]).toEqual([1, 1, 0]);
    expect(summary.tokens?.total).toBe((await store.getRun("from-start"))?.usage?.total_tokens);
  });

  it("leaves a run that is not a fork as it was: no copied prefix", async () => {
    const summary = await summaryOfRun(store, "source");
    expect(summary.copied).toBeUndefined();
    expect([summary.iterations, summary.modelCalls, summary.toolCalls]).toEqual([3, 3, 2]);
    expect(summary.tokens?.total).toBe((await store.getRun("source"))?.usage?.total_tokens);
  });
});
