// A tool call that failed (it threw, its input did not fit its schema, or no tool has its name) is
// marked `failed` in its step's metadata: the trace page and the notebook table show it failed,
// apart from a call a person rejected and from a failed run.
import { displayRun } from "@agentrx/viewer";
import { type TracePageData, type TraceRow, formatRuntime, readTracePage, traceLayoutRuntime, traceModelRuntime } from "@agentrx/viewer/trace-page";
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "@agentrx/runs";
import { APOLOGY, failingExecutor, recordFailingRun } from "./failed-call-fixtures";

async function rowsOf(store: MemoryRunStore, runId: string): Promise<TraceRow[]> {
  const data = JSON.parse(JSON.stringify(await readTracePage(store, runId, { mode: "file", source: "test" }))) as TracePageData;
  const runtime = traceModelRuntime();
  const model = runtime.createTrace(data.run);
  runtime.applyEvents(model, data.events);
  return traceLayoutRuntime(formatRuntime()).rows(model, Date.now());
}

describe("a failed tool call", () => {
  it("is marked failed on the trace page by its step's metadata, whatever its observation says; a rejected call is marked rejected", async () => {
    const rows = await rowsOf(await recordFailingRun(), "failing");
    const row = (id: string) => rows.find((candidate) => candidate.id === id) as TraceRow;
    expect(row("tool-0-0").toolCall?.observation).toBe(APOLOGY); // not the default "Tool ... failed with error:"
    for (const id of ["tool-0-0", "tool-0-1", "tool-0-2", "step-0-0", "step-0-1", "step-0-2"]) expect(row(id).state, id).toBe("failed");
    for (const id of ["tool-0-0", "tool-0-1", "tool-0-2"]) expect(row(id).badges, id).toContain("failed");
    expect(row("tool-0-3")).toMatchObject({ state: "ok" });
    expect(row("tool-0-3").badges).not.toContain("failed");
    expect(row("tool-1-0")).toMatchObject({ state: "none", badges: ["rejected"] });
    expect(row("run").state).not.toBe("failed"); // the run finished: its calls failed, not the run
  });

  it("is marked failed in the notebook's table, a rejected call as rejected", async () => {
    const executor = failingExecutor();
    const paused = await executor.invoke({ input: "go" }, { runId: "failing" });
    const bundle = await displayRun(executor.resume("failing", { decisions: { [paused.interrupts?.[0]?.id as string]: { type: "reject", message: "Not today." } } }), { live: false });
    expect(bundle["text/plain"]).toContain(`guarded({}) rejected -> Not today.`);
    const first = await displayRun(failingExecutor().invoke({ input: "go" }), { live: false });
    const text = first["text/plain"] as string;
    expect(text).toContain(`lookup({"q":"x"}) failed -> ${APOLOGY}`);
    expect(text).toMatch(/strict\(\{"n":"not a number"\}\) failed -> /);
    expect(text).toMatch(/nope\(\{\}\) failed -> /);
    expect(text).toContain("ok({}) -> fine");
    const live: string[] = [];
    await displayRun(failingExecutor().invoke({ input: "go" }), { live: { show: (b) => void live.push(b["text/html"] as string), update: (b) => void live.push(b["text/html"] as string) } });
    const html = live.at(-1) as string;
    expect(html.match(/<tr class="agentrx-failed"[\s>]/g)).toHaveLength(3);
    expect(html).toMatch(new RegExp(`<pre\\b[^>]*>${APOLOGY.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}</pre>`));
    expect(html).toContain('data-status="interrupted"'); // the run paused; only its calls failed
  });
});
