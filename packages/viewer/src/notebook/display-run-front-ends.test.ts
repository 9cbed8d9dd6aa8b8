import { AgentExecutor, type AgentStreamEvent, RUN_MIME_TYPE } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { displayRun } from "@agentrx/viewer";
import { tool } from "@langchain/core/tools";
import { Observable } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { echoTool, finish, scriptedAgent, toolCall } from "../../../executors/src/executor/test-helpers";

// What the table and trace look like in real front ends: classic Notebook's and JupyterLab's own
// table styles, a notebook opened untrusted (no <style>, no <iframe>), a long run, a rejected call,
// and Deno's kernel ending a cell before its value is sent.

afterEach(() => {
  vi.unstubAllGlobals();
});

function refundExecutor(store: MemoryRunStore) {
  const refund = tool(async ({ order }: { order: string }) => `refunded ${order}`, { name: "refund", description: "Refunds.", schema: z.object({ order: z.string() }) });
  const { agent } = scriptedAgent([[toolCall("refund", { order: "A1" }, "c1")], finish("Not refunded.")]);
  return new AgentExecutor({ agent, tools: [withApproval(refund)], store });
}

function ofEvents(events: AgentStreamEvent[]): Observable<AgentStreamEvent> {
  return new Observable<AgentStreamEvent>((subscriber) => {
    for (const event of events) subscriber.next(event);
    subscriber.complete();
  });
}

describe("displayRun in notebook front ends", () => {
  it("names the run next to its trace frame in plain HTML, which says how to see a trace an untrusted notebook strips", async () => {
    const { agent } = scriptedAgent([finish("hi")]);
    const bundle = await displayRun(new AgentExecutor({ agent, tools: [] }).invoke({ input: "x" }, { runId: "shared-1" }), { live: false });
    const html = bundle["text/html"];
    const note = /<p class="agentrx-trace-note"[^>]*>(.*?)<\/p>/.exec(html)?.[1];
    expect(note).toBe("Trace of run <code>shared-1</code>. Nothing below? The notebook is not trusted: File &gt; Trust Notebook shows the trace, or run <code>npx agentrx trace shared-1</code>.");
    expect(html.indexOf("agentrx-trace-note")).toBeLessThan(html.indexOf("<iframe"));
  });

  it("gives the table its layout in style attributes, which an untrusted notebook keeps", async () => {
    const { agent } = scriptedAgent([[toolCall("echo", { text: "a" }, "c1")], finish("done")]);
    const bundle = await displayRun(new AgentExecutor({ agent, tools: [echoTool], needsApproval: () => true }).invoke({ input: "x" }), { live: false });
    const html = bundle["text/html"];
    expect(html).toMatch(/<div class="agentrx-run" data-status="interrupted" style="[^"]*text-align:left/);
    expect(html).toMatch(/<table style="border-collapse:collapse;[^"]*width:100%"/);
    expect(html).toMatch(/<th style="[^"]*padding:3px 6px;text-align:left;vertical-align:top">tool<\/th>/);
    expect(html).toMatch(/<pre style="margin:0;[^"]*white-space:pre-wrap[^"]*">\{&#34;text&#34;:&#34;a&#34;\}<\/pre>/);
    // The row waiting for approval has its tint in each cell, not only in the stylesheet.
    const pauseRow = /<tr class="agentrx-pause"[^>]*>(.*?)<\/tr>/.exec(html)?.[1] ?? "";
    expect(pauseRow.match(/<td style="[^"]*background:rgba\(255,191,0,\.18\)"/g)).toHaveLength(5);
  });

  it("styles rows with selectors that beat classic Notebook's and JupyterLab's stripes", async () => {
    const { agent } = scriptedAgent([finish("hi")]);
    const bundle = await displayRun(new AgentExecutor({ agent, tools: [] }).invoke({ input: "x" }), { live: false });
    const css = /<style>(.*?)<\/style>/.exec(bundle["text/html"])?.[1] ?? "";
    // `.rendered_html tbody tr:nth-child(odd)` (0,2,2) and JupyterLab's hover: an important transparent background wins.
    expect(css).toContain("div.agentrx-run table tbody tr:nth-child(odd),div.agentrx-run table tbody tr:nth-child(even),div.agentrx-run table tbody tr:hover");
    expect(css).toMatch(/tr:hover,div\.agentrx-run table thead tr\{background:transparent!important\}/);
    expect(css).toContain("div.agentrx-run table tr.agentrx-pause td{background:rgba(255,191,0,.18)!important}");
    expect(css).toContain("@media (prefers-color-scheme:dark){div.agentrx-run table tr.agentrx-failed .agentrx-outcome,div.agentrx-run .agentrx-error{color:#ef9a9a!important}}");
  });

  it("bounds the height of a long run's rows: they scroll in their box", async () => {
    const events: AgentStreamEvent[] = [{ type: "start", runId: "long", inputs: {}, resumed: false, at: 0 } as AgentStreamEvent];
    for (let i = 0; i < 150; i++) {
      const action = toolCall("echo", { text: `${i}` }, `c${i}`);
      events.push({ type: "action", action, iteration: i, messages: [], at: i });
      events.push({ type: "step", step: { action, observation: "x".repeat(500) }, iteration: i, messages: [], durationMs: 1, at: i });
    }
    const bundle = await displayRun(ofEvents(events), { live: false });
    expect(bundle["text/html"]).toContain('<div class="agentrx-rows" style="max-height:480px;overflow:auto"><table');
    expect(bundle["text/html"]).toContain("div.agentrx-run div.agentrx-rows{max-height:480px;overflow:auto}");
  });

  it("says a rejected call was not run, and times the run as its record and the trace page's header do", async () => {
    const store = new MemoryRunStore();
    const executor = refundExecutor(store);
    const paused = await executor.invoke({ input: "Refund A1" }, { runId: "rj" });
    const bundle = await displayRun(executor.resume("rj", { decisions: { [paused.interrupts?.[0]?.id as string]: { type: "reject", message: "no" } } }), { live: false });
    const html = bundle["text/html"];
    const row = /<tr class="agentrx-rejected"[^>]*>(.*?)<\/tr>/.exec(html)?.[1] ?? "";
    expect(row).toMatch(/<td[^>]*>not run<\/td>$/);
    expect(row).not.toContain(" ms<");
    const elapsedMs = (await store.getRun("rj"))?.checkpoint?.elapsedMs as number;
    expect(typeof elapsedMs).toBe("number");
    expect(bundle["text/plain"].split("\n")[0]).toBe(`Run finished (finish): 1 tool call, ${Math.round(elapsedMs)} ms rj`);
  });

  it("in Deno's kernel, sends the final table and trace to the live display by its id, and leaves the cell's value one hidden line", async () => {
    const broadcast = vi.fn(async (_type: string, _content: Record<string, unknown>) => undefined);
    vi.stubGlobal("Deno", { jupyter: { broadcast } });
    const { agent } = scriptedAgent([[toolCall("echo", { text: "hi" }, "c1")], finish("done")]);
    const bundle = await displayRun(new AgentExecutor({ agent, tools: [echoTool] }).invoke({ input: "x" }, { runId: "deno-1" }));

    const calls = broadcast.mock.calls.map(([type, content]) => ({ type, id: (content["transient"] as { display_id: string }).display_id, data: content["data"] as Record<string, string> }));
    expect(calls.map(({ type }) => type)).toEqual(["display_data", ...calls.slice(1).map(() => "update_display_data")]);
    const id = calls[0]?.id as string;
    expect(calls.every((call) => call.id === id)).toBe(true);
    const last = calls.at(-1)?.data ?? {};
    // The final state of the live display: the table, then the trace, in the cell that made them.
    expect(last["text/html"]).toMatch(/^<div class="agentrx-run" data-status="finished"/);
    expect(last["text/html"]).toMatch(/<p class="agentrx-trace-note"[^>]*>Trace of run <code>deno-1<\/code>.*<iframe class="agentrx-trace"[^>]* srcdoc="/);
    expect(last["text/html"]).toContain(`<style>div.agentrx-result[data-agentrx-display="${id}"]{display:none!important}</style>`);
    expect(last["text/plain"]).toBe(bundle["text/plain"]);
    // The cell's value is one line (the trace is not stored twice), hidden by that style wherever it lands.
    expect(bundle["text/html"]).toBe(
      `<div class="agentrx-result" data-agentrx-display="${id}"><p class="agentrx-result-line">${bundle["text/plain"].split("\n")[0]}: the table and the trace are in the display above.</p></div>`,
    );
    expect(bundle["text/html"]).not.toContain("<iframe");
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ runId: "deno-1", status: "finished", output: "done" });
  });
});
