// A call in doubt (started before a crash or a cancellation, no recorded result) that pauses the
// run (`inDoubt: "interrupt"`) may have run: the trace page and the notebook table say so, instead
// of calling it a call awaiting approval that did not run.
import { displayRun } from "@agentrx/viewer";
import { type TracePageData, formatRuntime, readTracePage, traceLayoutRuntime, traceModelRuntime } from "@agentrx/viewer/trace-page";
import { describe, expect, it } from "vitest";
import { inDoubtRun } from "./in-doubt-fixtures";

describe("a call in doubt", () => {
  it("is marked in doubt on the trace page, its pause too, not awaiting approval", async () => {
    const { store, executor } = await inDoubtRun();
    await executor.resume("pay");
    const data = JSON.parse(JSON.stringify(await readTracePage(store, "pay", { mode: "file", source: "test" }))) as TracePageData;
    const runtime = traceModelRuntime();
    const model = runtime.createTrace(data.run);
    runtime.applyEvents(model, data.events);
    const rows = traceLayoutRuntime(formatRuntime()).rows(model, Date.now());
    expect(rows.find((row) => row.id === "tool-0-0")?.badges).toEqual(["in doubt"]);
    const pause = rows.find((row) => row.kind === "event" && row.label === "interrupt");
    expect(pause?.note).toBe("in doubt (started, no recorded result: it may have run), waiting for a decision: charge");
  });

  it("is marked in doubt in the notebook's table", async () => {
    const { executor } = await inDoubtRun();
    const bundle = await displayRun(executor.resume("pay"), { live: false });
    expect(bundle["text/plain"]).toContain("Run paused for a decision");
    expect(bundle["text/plain"]).toMatch(/charge\(\{"cents":5\}\) in doubt, may have run: awaiting a decision \(call-0-0\)/);
    expect(bundle["text/plain"]).not.toContain("awaiting approval (call-0-0)");
  });
});
