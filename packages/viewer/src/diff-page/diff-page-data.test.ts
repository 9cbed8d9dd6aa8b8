// The diff page's data: the recorded prompts it shows next to each other carry no image as base64;
// the runs' costs say how many calls they leave out (docs/cost.md#calls-without-a-price).
import { MemoryRunStore, readRunRecord } from "@agentrx/runs";
import { diffPageData, formatRuntime } from "@agentrx/viewer/trace-page";
import { describe, expect, it, vi } from "vitest";
import { CHART_PNG, recordImageRun } from "../trace/trace-debugger-fixtures";
import { recordTripRun } from "../trace/trace-test-fixtures";
import { recordPartlyPricedRun, recordUnpricedRun } from "../trace/unpriced-cost-fixtures";

describe("the diff page's prompts", () => {
  it("show an image in a prompt message as a placeholder with its type and size, never as base64", async () => {
    const store = new MemoryRunStore();
    await recordImageRun(store, "a");
    await recordImageRun(store, "b");
    const data = diffPageData(await readRunRecord(store, "a"), await readRunRecord(store, "b"), { mode: "file", source: "memory" });
    const second = data.prompts.find((prompt) => prompt.iteration === 1);
    const tool = second?.a.find((message) => message.role === "tool");
    expect(tool?.text).toMatch(/\[image 1: image\/png, \d+ (B|KB)\]/);
    expect(tool?.text).not.toContain(CHART_PNG.slice(0, 40));
    expect(JSON.stringify(data.prompts)).not.toContain(CHART_PNG.slice(0, 40));
  });
});

describe("the diff page's costs", () => {
  it("add the calls the executor's prices could not price, and show them alone when none was priced, never as $0", async () => {
    const store = new MemoryRunStore();
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined); // the unpriced model's warning
    try {
      await recordPartlyPricedRun(store, "partly");
      await recordUnpricedRun(store, "local");
    } finally {
      warn.mockRestore();
    }
    const data = diffPageData(await readRunRecord(store, "partly"), await readRunRecord(store, "local"), { mode: "file", source: "memory" });
    const cost = (await store.getRun("partly"))?.usage?.cost?.total;
    expect(cost).toBeGreaterThan(0);
    expect(data.costText.a).toBe(`${formatRuntime().usd(cost ?? 0)} + 2 unpriced`);
    expect(data.costText.b).toBe("2 unpriced");
  });

  it("write a tiny cost as the trace page writes it, with its digits", async () => {
    const store = new MemoryRunStore();
    await recordTripRun(store, { runId: "cheap", scale: 0.01, prices: { "trip-model": { input: 0.01, output: 0.01 } } });
    await recordImageRun(store, "image");
    const data = diffPageData(await readRunRecord(store, "cheap"), await readRunRecord(store, "image"), { mode: "file", source: "memory" });
    const cost = (await store.getRun("cheap"))?.usage?.cost?.total as number;
    expect(cost).toBeLessThan(0.0001);
    expect(data.costText.a).toBe(formatRuntime().usd(cost));
    expect(data.costText.a).toMatch(/^\$0\.0000\d+$/);
  });

  it("are the cost alone when every call was priced, and absent without prices", async () => {
    const store = new MemoryRunStore();
    await recordTripRun(store, { runId: "trip", scale: 0.01, prices: { "trip-model": { input: 2.5, output: 10 } } });
    await recordImageRun(store, "image");
    const data = diffPageData(await readRunRecord(store, "trip"), await readRunRecord(store, "image"), { mode: "file", source: "memory" });
    expect(data.costText).toEqual({ a: expect.stringMatching(/^\$\d+\.\d{4}$/) });
  });
});
