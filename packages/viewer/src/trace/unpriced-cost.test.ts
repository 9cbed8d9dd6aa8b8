// A run's cost on the trace page when some of its model calls had no price: the header says the
// cost leaves them out, instead of passing a part for the whole; how many is the run's recorded
// usage's `unpricedCalls`, or, for a record without it, its calls without a cost
// (docs/cost.md#calls-without-a-price).
import { MemoryRunStore } from "@agentrx/runs";
import { formatRuntime, readTracePage, type TracePageData, traceLayoutRuntime, traceModelRuntime, traceSummaryRuntime } from "@agentrx/viewer/trace-page";
import { type MockInstance, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { recordTripRun } from "./trace-test-fixtures";
import { recordPartlyPricedRun, recordUnpricedRun } from "./unpriced-cost-fixtures";

const layout = traceLayoutRuntime(formatRuntime());
const { summary: summaryOf } = traceSummaryRuntime(formatRuntime(), layout);
const runtime = traceModelRuntime();

async function summaryOfRun(store: MemoryRunStore, runId: string, edit: (data: TracePageData) => void = () => {}) {
  const data = JSON.parse(JSON.stringify(await readTracePage(store, runId, { mode: "file", source: "test" }))) as TracePageData;
  edit(data);
  const model = runtime.createTrace(data.run);
  runtime.applyEvents(model, data.events);
  return summaryOf(model, layout.rows(model, Date.now()), Date.now());
}

describe("the header's cost when some model calls had no price", () => {
  it("of a record without usage.unpricedCalls counts the calls the cost leaves out (a sub-run's model without a price) and names their model", async () => {
    const store = new MemoryRunStore();
    await recordPartlyPricedRun(store);
    // As a record written before usage counted unpriced calls: no count on the run or its events.
    const summary = await summaryOfRun(store, "partly-priced", (data) => {
      delete data.run.usage?.unpricedCalls;
      for (const event of data.events) {
        if (event.type === "usage" || event.type === "output") delete event.usage?.unpricedCalls;
        if (event.type === "sub_run" && (event.event.type === "usage" || event.event.type === "output")) delete event.event.usage?.unpricedCalls;
      }
    });
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

describe("the header's cost from the run's recorded unpriced calls (usage.unpricedCalls)", () => {
  let warn: MockInstance<typeof process.emitWarning>;
  beforeEach(() => {
    warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined); // the unpriced model's warning
  });
  afterEach(() => {
    warn.mockRestore();
  });

  it("counts the calls the run's usage says were unpriced, and names their model", async () => {
    const store = new MemoryRunStore();
    await recordPartlyPricedRun(store, "counted", { "gpt-4o": { input: 2.5, output: 10 } });
    expect((await store.getRun("counted"))?.usage?.unpricedCalls).toBe(2);
    const summary = await summaryOfRun(store, "counted");
    expect(summary.cost).toBeGreaterThan(0);
    expect(summary.unpriced).toEqual({ calls: 2, models: ["local-llama"] });
  });

  it("says so when no call was priced: no cost, but the calls it leaves out", async () => {
    const store = new MemoryRunStore();
    await recordUnpricedRun(store, "none-priced");
    const summary = await summaryOfRun(store, "none-priced");
    expect(summary.cost).toBeUndefined();
    expect(summary.unpriced).toEqual({ calls: 2, models: ["local-llama"] });
  });

  it("takes the count from the run's recorded usage, as agentrx runs does, not from its calls", async () => {
    const store = new MemoryRunStore();
    await recordPartlyPricedRun(store, "counted", { "gpt-4o": { input: 2.5, output: 10 } });
    const summary = await summaryOfRun(store, "counted", (data) => {
      (data.run.usage as NonNullable<typeof data.run.usage>).unpricedCalls = 3;
    });
    expect(summary.unpriced?.calls).toBe(3);
  });
});
