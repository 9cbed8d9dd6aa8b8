// A run's cost on the trace page when some of its model calls had no price: the header says the
// cost leaves them out, instead of passing a part for the whole.
import { MemoryRunStore } from "@agentrx/runs";
import { formatRuntime, readTracePage, type TracePageData, traceLayoutRuntime, traceModelRuntime, traceSummaryRuntime } from "@agentrx/viewer/trace-page";
import { describe, expect, it } from "vitest";
import { recordTripRun } from "./trace-test-fixtures";
import { recordPartlyPricedRun } from "./unpriced-cost-fixtures";

const layout = traceLayoutRuntime(formatRuntime());
const { summary: summaryOf } = traceSummaryRuntime(formatRuntime(), layout);
const runtime = traceModelRuntime();

async function summaryOfRun(store: MemoryRunStore, runId: string) {
  const data = JSON.parse(JSON.stringify(await readTracePage(store, runId, { mode: "file", source: "test" }))) as TracePageData;
  const model = runtime.createTrace(data.run);
  runtime.applyEvents(model, data.events);
  return summaryOf(model, layout.rows(model, Date.now()), Date.now());
}

describe("the header's cost when some model calls had no price", () => {
  it("counts the calls the cost leaves out (a sub-run's model without a price) and names their model", async () => {
    const store = new MemoryRunStore();
    await recordPartlyPricedRun(store);
    const summary = await summaryOfRun(store, "partly-priced");
    expect(summary.cost).toBeGreaterThan(0);
    expect(summary.unpriced).toEqual({ calls: 2, models: ["local-llama"] });
  });

  it("says nothing of the kind when every call was priced, or when none was (the run has no cost then)", async () => {
    const store = new MemoryRunStore();
    await recordTripRun(store, { runId: "priced", scale: 0.01, prices: { "trip-model": { input: 2.5, output: 10 } } });
    await recordTripRun(store, { runId: "unpriced", scale: 0.01 });
    const priced = await summaryOfRun(store, "priced");
    expect(priced.cost).toBeGreaterThan(0);
    expect(priced.unpriced).toBeUndefined();
    const unpriced = await summaryOfRun(store, "unpriced");
    expect(unpriced.cost).toBeUndefined();
    expect(unpriced.unpriced).toBeUndefined();
  });
});
