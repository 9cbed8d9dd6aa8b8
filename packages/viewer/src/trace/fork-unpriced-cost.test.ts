// A fork's copied prefix on its trace page when some of the copied model calls had no price: its
// line says the copied cost leaves them out (`$0.0213 + 2 unpriced`, or `1 unpriced`), as the
// header says of the run's own cost (docs/cost.md#calls-without-a-price).
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { formatRuntime, readTracePage, type TracePageData, traceLayoutRuntime, traceModelRuntime, traceSummaryRuntime } from "@agentrx/viewer/trace-page";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { type MockInstance, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { recordPartlyPricedRun, recordUnpricedRun } from "./unpriced-cost-fixtures";

const layout = traceLayoutRuntime(formatRuntime());
const { summary: summaryOf, copiedText } = traceSummaryRuntime(formatRuntime(), layout);
const runtime = traceModelRuntime();

async function summaryOfRun(store: RunStore, runId: string, edit: (data: TracePageData) => void = () => {}) {
  const data = JSON.parse(JSON.stringify(await readTracePage(store, runId, { mode: "file", source: "test" }))) as TracePageData;
  edit(data);
  const model = runtime.createTrace(data.run);
  runtime.applyEvents(model, data.events);
  return summaryOf(model, layout.rows(model, Date.now()), Date.now());
}

/** Forks `source` after its first iteration with a priced model (`gpt-4o`) that answers at once. */
async function forkAfterFirstIteration(store: RunStore, source: string, tools: string[]): Promise<string> {
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const stubs = tools.map((name) => tool(async () => "unused", { name, description: "Not called by the fork.", schema: z.object({}) }));
  const llm = new ScriptedChatModel({ responses: ["Answered again."], model: "gpt-4o" });
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: stubs, prompt }), tools: stubs, store, prices: { "gpt-4o": { input: 2.5, output: 10 } } });
  const runId = `${source}-fork`;
  await lastValueFrom(executor.fork(source, { at: 1, runId }));
  return runId;
}

/** Removes `usage.unpricedCalls` everywhere: a record written before usage counted unpriced calls. */
function withoutUnpricedCounts(data: TracePageData): void {
  delete data.run.usage?.unpricedCalls;
  for (const event of data.events) {
    if (event.type === "usage" || event.type === "output") delete event.usage?.unpricedCalls;
    if (event.type === "sub_run" && (event.event.type === "usage" || event.event.type === "output")) delete event.event.usage?.unpricedCalls;
  }
}

describe("a fork's copied prefix whose model calls were not all priced", () => {
  let warn: MockInstance<typeof process.emitWarning>;
  beforeEach(() => {
    warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined); // the unpriced model's warning
  });
  afterEach(() => {
    warn.mockRestore();
  });

  it("counts the copied calls the copied cost leaves out (a sub-run's), names their model, and writes the cost as the header does", async () => {
    const store = new MemoryRunStore();
    await recordPartlyPricedRun(store, "source", { "gpt-4o": { input: 2.5, output: 10 } });
    const summary = await summaryOfRun(store, await forkAfterFirstIteration(store, "source", ["researcher"]));
    // Iteration 1 of the source: the supervisor's priced call, and the researcher's two unpriced ones.
    expect(summary.copied).toMatchObject({ iteration: 1, modelCalls: 1, toolCalls: 1, unpriced: { calls: 2, models: ["local-llama"] } });
    expect(summary.copied?.cost).toBeGreaterThan(0);
    expect(copiedText(summary.copied!)).toMatch(/^iteration 1 copied: 1 model call, 1 tool call, [\d,]+ tokens, \$0\.\d+ \+ 2 unpriced$/);
    // The fork's own call was priced: its own cost leaves nothing out.
    expect(summary.cost).toBeGreaterThan(0);
    expect(summary.unpriced).toBeUndefined();
  });

  it("counts them from the copied calls without a cost in a record without usage.unpricedCalls", async () => {
    const store = new MemoryRunStore();
    await recordPartlyPricedRun(store, "source", { "gpt-4o": { input: 2.5, output: 10 } });
    const summary = await summaryOfRun(store, await forkAfterFirstIteration(store, "source", ["researcher"]), withoutUnpricedCounts);
    expect(summary.copied?.unpriced).toEqual({ calls: 2, models: ["local-llama"] });
    expect(copiedText(summary.copied!)).toMatch(/ \$0\.\d+ \+ 2 unpriced$/);
    expect(summary.unpriced).toBeUndefined();
  });

  it("writes a copied prefix none of whose calls was priced as its unpriced calls", async () => {
    const store = new MemoryRunStore();
    await recordUnpricedRun(store, "source");
    const summary = await summaryOfRun(store, await forkAfterFirstIteration(store, "source", ["lookup"]));
    expect(summary.copied?.cost).toBeUndefined();
    expect(summary.copied?.unpriced).toEqual({ calls: 1, models: ["local-llama"] });
    expect(copiedText(summary.copied!)).toMatch(/^iteration 1 copied: 1 model call, 1 tool call, [\d,]+ tokens, 1 unpriced$/);
    expect(summary.cost).toBeGreaterThan(0);
    expect(summary.unpriced).toBeUndefined();
  });

  it("leaves a fully priced copied prefix's cost as it was", async () => {
    const store = new MemoryRunStore();
    await recordPartlyPricedRun(store, "source", { "local-llama": { input: 1, output: 2 } });
    const summary = await summaryOfRun(store, await forkAfterFirstIteration(store, "source", ["researcher"]));
    expect(summary.copied?.unpriced).toBeUndefined();
    expect(copiedText(summary.copied!)).toMatch(/^iteration 1 copied: 1 model call, 1 tool call, [\d,]+ tokens, \$0\.\d+$/);
  });
});
