import { AgentExecutor, type AgentStreamEvent, type MimeBundle, RUN_MIME_TYPE } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { displayRun } from "@agentrx/viewer";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { Observable } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { echoTool, finish, scriptedAgent, toolCall } from "../../../executors/src/executor/test-helpers";
import { longPromptExecutor } from "../trace/long-prompt-fixtures";

/** A live display that keeps every bundle it was given, in order. */
function recordingDisplay() {
  const shown: { kind: "show" | "update"; bundle: MimeBundle }[] = [];
  return {
    shown,
    live: {
      show: (bundle: MimeBundle) => void shown.push({ kind: "show", bundle }),
      update: (bundle: MimeBundle) => void shown.push({ kind: "update", bundle }),
    },
    html: () => shown.map(({ bundle }) => withoutInlineStyles(bundle["text/html"] as string)),
  };
}

/** `html` without its inline `style` attributes (the layout an untrusted notebook keeps), to read its structure. */
function withoutInlineStyles(html: string): string {
  return html.replace(/ style="[^"]*"/g, "");
}

function twoCallExecutor(observation = "sunny") {
  const weather = tool(async () => observation, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
  const { agent, inputs } = scriptedAgent([[toolCall("weather", { city: "Oslo" }, "c1"), toolCall("echo", { text: "hi" }, "c2")], finish("Sunny in Oslo.")]);
  return { executor: new AgentExecutor({ agent, tools: [weather, echoTool] }), inputs };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("displayRun", () => {
  it("shows a live table that gains the actions, their observations and the answer, then the trace", async () => {
    const { executor } = twoCallExecutor();
    const display = recordingDisplay();
    // throttleMs 0: every change is sent at once, so the state before the observations came is seen.
    const bundle = await displayRun(executor.invoke({ input: "Weather in Oslo?" }), { live: display.live, throttleMs: 0 });

    expect(display.shown[0]?.kind).toBe("show");
    expect(display.html()[0]).toContain("No tool calls yet");
    const running = display.html().find((html) => html.includes("running…"));
    expect(running).toContain("weather"); // an action shown before its observation came
    const last = display.html().at(-1) as string;
    expect(last).toContain('class="agentrx-run" data-status="finished"');
    expect(last).toContain("<pre>sunny</pre>");
    expect(last).toContain("Sunny in Oslo.");
    expect(display.shown.slice(1).every(({ kind }) => kind === "update")).toBe(true);

    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "finished", stopReason: "finish", output: "Sunny in Oslo.", actions: 2, steps: 2 });
    expect(bundle["text/html"]).toMatch(/^<p class="agentrx-trace-note"[^>]*>.*<\/p><iframe class="agentrx-trace"[^>]* sandbox="allow-scripts"/);
    expect(bundle["text/html"]).toContain('srcdoc="&#60;!doctype html&#62;'); // the trace page, escaped into the attribute
    expect(bundle["text/plain"]).toContain("weather({\"city\":\"Oslo\"}) -> sunny");
  });

  it("makes the displayed run's result the awaited one: awaiting does not run the agent again", async () => {
    const { executor, inputs } = twoCallExecutor();
    const run = executor.invoke({ input: "Weather in Oslo?" });
    await displayRun(run, { live: false });
    expect(inputs).toHaveLength(2);
    const result = await run;
    expect(result.output).toBe("Sunny in Oslo.");
    expect(inputs).toHaveLength(2);
  });

  it("shows a run awaited before, without running it again", async () => {
    const { executor, inputs } = twoCallExecutor();
    const run = executor.invoke({ input: "Weather in Oslo?" });
    const result = await run;
    const bundle = await displayRun(run, { live: false });
    expect(inputs).toHaveLength(2);
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "finished", output: "Sunny in Oslo.", runId: result.runId });
  });

  it("shows a paused run awaited before as paused, from its record: its pause, its calls and the trace", async () => {
    const refund = tool(async ({ order }: { order: string }) => `refunded ${order}`, { name: "refund", description: "Refunds.", schema: z.object({ order: z.string() }) });
    const { agent } = scriptedAgent([[toolCall("refund", { order: "A1" }, "c1")], finish("Refunded.")]);
    const store = new MemoryRunStore();
    const executor = new AgentExecutor({ agent, tools: [withApproval(refund)], store });
    const run = executor.invoke({ input: "Refund A1" });
    const result = await run;
    expect(result.stopReason).toBe("interrupted");

    const bundle = await displayRun(run, { live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ runId: result.runId, status: "interrupted", stopReason: "interrupted", output: "", actions: 1, steps: 0, interrupts: [{ tool: "refund", toolInput: { order: "A1" } }] });
    expect(bundle["text/plain"]).toMatch(/^Run paused for approval: 1 tool call/);
    expect(bundle["text/plain"]).toMatch(/refund\(\{"order":"A1"\}\) awaiting approval/);
    expect(bundle["text/html"]).toContain('data-status="interrupted"');
    expect(bundle["text/html"]).toContain('<iframe class="agentrx-trace"');

    // Resumed and awaited, then shown: the resumed segment, as a live display of the resume shows it.
    const id = result.interrupts?.[0]?.id as string;
    const resumed = executor.resume(result.runId, { decisions: { [id]: { type: "approve" } } });
    expect((await resumed).output).toBe("Refunded.");
    const after = await displayRun(resumed, { live: false });
    expect(after[RUN_MIME_TYPE]).toMatchObject({ runId: result.runId, status: "finished", stopReason: "finish", output: "Refunded.", actions: 1, steps: 1 });
    expect(after[RUN_MIME_TYPE].interrupts).toBeUndefined();
    expect(after["text/plain"]).toContain('refund({"order":"A1"}) -> refunded A1');
    expect(after["text/plain"]).not.toContain("awaiting approval");
  });

  it("shows a run awaited before with no record from its result: stop reason, pauses, usage and steps", async () => {
    const { agent } = scriptedAgent([[toolCall("echo", { text: "small" }, "c1"), toolCall("echo", { text: "big" }, "c2")]]);
    const needsApproval = (action: { toolInput: unknown }) => (action.toolInput as { text: string }).text !== "small";
    const executor = new AgentExecutor({ agent, tools: [echoTool], needsApproval, returnIntermediateSteps: true });
    const run = executor.invoke({ input: "pay" });
    const result = await run;
    const bundle = await displayRun(run, { live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({
      runId: result.runId,
      status: "interrupted",
      stopReason: "interrupted",
      output: "",
      actions: 2,
      steps: 1,
      interrupts: [{ tool: "echo", toolInput: { text: "big" } }],
    });
    expect(bundle["text/plain"]).toMatch(/^Run paused for approval: 2 tool calls/);
  });

  it("escapes what tools return: recorded text is data, never markup", async () => {
    const { executor } = twoCallExecutor("<img src=x onerror=alert(1)>");
    const display = recordingDisplay();
    const bundle = await displayRun(executor.stream({ input: "x" }), { live: display.live });
    const last = display.html().at(-1) as string;
    expect(last).not.toContain("<img");
    expect(last).toContain("&#60;img src=x onerror=alert(1)&#62;");
    expect(bundle["text/html"]).not.toContain("<img");
  });

  it("shows a failed run's error, resolves, and awaiting the run rejects with that error", async () => {
    const { agent } = scriptedAgent([new Error("model unreachable")]);
    const run = new AgentExecutor({ agent, tools: [] }).invoke({ input: "x" });
    const bundle = await displayRun(run, { live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "failed", error: "Error: model unreachable" });
    expect(bundle["text/html"]).toContain('data-status="failed"');
    await expect(Promise.resolve(run)).rejects.toThrow("model unreachable");
  });

  it.each([
    ["invoke", (executor: AgentExecutor) => executor.invoke({ input: "x" }, { runId: "failing-run" })],
    ["stream", (executor: AgentExecutor) => executor.stream({ input: "x" }, { runId: "failing-run" })],
  ] as const)("shows a failed run awaited before (%s) from its record: its calls, its error and the trace", async (_method, start) => {
    const { agent, inputs } = scriptedAgent([[toolCall("echo", { text: "first" }, "c1")], new Error("model unreachable")]);
    const store = new MemoryRunStore();
    const run = start(new AgentExecutor({ agent, tools: [echoTool], store }));
    await expect(Promise.resolve(run)).rejects.toThrow("model unreachable");

    const bundle = await displayRun(run, { live: false });
    expect(inputs).toHaveLength(2); // shown from the record, not run again
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ runId: "failing-run", status: "failed", error: "Error: model unreachable", actions: 1, steps: 1 });
    expect(bundle["text/plain"]).toMatch(/^Run failed: 1 tool call/);
    expect(bundle["text/plain"]).toContain('echo({"text":"first"}) -> first');
    expect(bundle["text/html"]).toContain('data-status="failed"');
    expect(bundle["text/html"]).toContain('<iframe class="agentrx-trace" title="Trace of run failing-run"');
  });

  it("shows a failed run awaited before without a record as its error, with its id", async () => {
    const { agent } = scriptedAgent([new Error("model unreachable")]);
    const run = new AgentExecutor({ agent, tools: [] }).invoke({ input: "x" }, { runId: "unrecorded" });
    await run.catch(() => undefined);
    const bundle = await displayRun(run, { live: false });
    expect(bundle[RUN_MIME_TYPE]).toEqual({ runId: "unrecorded", status: "failed", error: "Error: model unreachable", actions: 0, steps: 0 });
    expect(bundle["text/html"]).toContain('data-status="failed"');
    expect(bundle["text/html"]).not.toContain("<iframe");
  });

  it("runs a run displayed and awaited at once a single time", async () => {
    const { executor, inputs } = twoCallExecutor();
    const run = executor.invoke({ input: "Weather in Oslo?" });
    const shown = displayRun(run, { live: false });
    const result = await run;
    const bundle = await shown;
    expect(inputs).toHaveLength(2);
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ runId: result.runId, status: "finished" });
  });

  it("shows a run whose signal aborted as cancelled, as its record says, with the call in flight cancelled", async () => {
    const store = new MemoryRunStore();
    const controller = new AbortController();
    const hang = tool(
      (_input: { q: string }, config) =>
        new Promise<string>((_, reject) => {
          controller.abort(); // the person stops the run (e.g. from a later cell) while this call runs
          config?.signal?.addEventListener("abort", () => reject(config.signal?.reason), { once: true });
        }),
      { name: "lookup", description: "Looks up.", schema: z.object({ q: z.string() }) },
    );
    const { agent } = scriptedAgent([[toolCall("lookup", { q: "a" }, "c1")], finish("never")]);
    const run = new AgentExecutor({ agent, tools: [hang], store }).invoke({ input: "go" }, { signal: controller.signal });
    const bundle = await displayRun(run, { live: false });

    const summary = bundle[RUN_MIME_TYPE];
    expect(summary).toMatchObject({ status: "cancelled", actions: 1, steps: 0, error: expect.stringMatching(/^AbortError: /) });
    expect((await store.getRun(summary.runId as string))?.status).toBe("cancelled");
    expect(bundle["text/plain"]).toMatch(/^Run cancelled: 1 tool call/);
    expect(bundle["text/plain"]).toContain('lookup({"q":"a"}) (cancelled)');
    expect(bundle["text/html"]).toContain('data-status="cancelled"');
    await expect(Promise.resolve(run)).rejects.toThrow(/aborted/);
  });

  it("shows a run paused for approval with what it waits for", async () => {
    const { agent } = scriptedAgent([[toolCall("echo", { text: "wire $5" }, "c1")]]);
    const executor = new AgentExecutor({ agent, tools: [echoTool], needsApproval: () => true });
    const bundle = await displayRun(executor.invoke({ input: "pay" }), { live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "interrupted", stopReason: "interrupted", output: "", interrupts: [{ tool: "echo", toolInput: { text: "wire $5" } }] });
    expect(bundle["text/html"]).toContain("awaiting approval");
  });

  it("shows each call of a paused turn once: run, or awaiting approval", async () => {
    const { agent } = scriptedAgent([[toolCall("echo", { text: "small" }, "c1"), toolCall("echo", { text: "big" }, "c2"), toolCall("echo", { text: "huge" }, "c3")]]);
    const needsApproval = (action: { toolInput: unknown }) => (action.toolInput as { text: string }).text !== "small";
    const executor = new AgentExecutor({ agent, tools: [echoTool], needsApproval });
    const bundle = await displayRun(executor.invoke({ input: "pay" }), { live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ actions: 3, steps: 1 });
    const text = bundle["text/plain"];
    expect(text.split("\n").filter((line) => line.includes("echo("))).toHaveLength(3);
    expect(text).toContain('echo({"text":"small"}) -> small');
    expect(text).toMatch(/echo\(\{"text":"big"\}\) awaiting approval \(call-0-1\)/);
    expect(text).toMatch(/echo\(\{"text":"huge"\}\) awaiting approval \(call-0-2\)/);
    expect(text).not.toContain("(running)");
  });

  it("shows any observable of run events, with a table but no trace when there is no record", async () => {
    const events = new Observable<AgentStreamEvent>((subscriber) => {
      subscriber.next({ type: "start", runId: "r1", inputs: {}, resumed: false, at: 1 });
      subscriber.next({ type: "output", runId: "r1", at: 2, output: "done", returnValues: { output: "done" }, messages: [], stopReason: "finish" });
      subscriber.complete();
    });
    const bundle = await displayRun(events, { live: false });
    expect(bundle[RUN_MIME_TYPE]).toEqual({ runId: "r1", status: "finished", stopReason: "finish", output: "done", actions: 0, steps: 0 });
    expect(bundle["text/html"]).not.toContain("<iframe");
    expect(bundle["text/html"]).toContain("done");
  });

  it("in Deno's kernel, a run displays itself: display_data, then updates under the same display id", async () => {
    const broadcast = vi.fn(async (_type: string, _content: Record<string, unknown>) => undefined);
    vi.stubGlobal("Deno", { jupyter: { broadcast } });
    const { executor } = twoCallExecutor();
    const run = executor.invoke({ input: "Weather in Oslo?" }) as unknown as Record<symbol, () => Promise<MimeBundle>>;
    const bundle = await run[Symbol.for("Jupyter.display")]!();

    const types = broadcast.mock.calls.map(([type]) => type);
    expect(types[0]).toBe("display_data");
    expect(types.slice(1).every((type) => type === "update_display_data")).toBe(true);
    const ids = new Set(broadcast.mock.calls.map(([, content]) => (content["transient"] as { display_id: string }).display_id));
    expect(ids.size).toBe(1);
    expect((bundle[RUN_MIME_TYPE] as { status: string }).status).toBe("finished");
    // The bundle itself displays as the picture when it is a cell's last value.
    const again = (bundle as unknown as Record<symbol, () => MimeBundle>)[Symbol.for("Jupyter.display")]!();
    expect(again["text/html"]).toBe(bundle["text/html"]);
  });

  it("paces live updates of a run of hundreds of calls, and its table shows the latest 100 calls", async () => {
    const events = new Observable<AgentStreamEvent>((subscriber) => {
      subscriber.next({ type: "start", runId: "big", inputs: {}, resumed: false, at: 0 });
      for (let i = 0; i < 300; i++) {
        const action = { tool: "lookup", toolInput: { i }, log: "", toolCallId: `c${i}` };
        subscriber.next({ type: "action", iteration: i, action, messages: [], at: i });
        subscriber.next({ type: "step", iteration: i, step: { action, observation: `found ${i}` }, messages: [], durationMs: 1, at: i });
      }
      subscriber.next({ type: "output", runId: "big", at: 300, output: "done", returnValues: { output: "done" }, messages: [], stopReason: "finish" });
      subscriber.complete();
    });
    const display = recordingDisplay();
    const bundle = await displayRun(events, { live: display.live });

    // 601 events in one go: the first draw, the final one, not one per event.
    expect(display.shown.length).toBeLessThan(10);
    const last = display.html().at(-1) as string;
    expect(last).toContain("… 200 earlier tool calls, not shown here: the run's trace has every one");
    expect(last.match(/<tr><td>/g)).toHaveLength(100);
    expect(last).toContain("<pre>found 299</pre>");
    expect(last).not.toContain("<pre>found 199</pre>");
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "finished", actions: 300, steps: 300 });
  });

  it("bounds the text/plain table as the HTML one, and writes control characters in it as escapes", async () => {
    const events = new Observable<AgentStreamEvent>((subscriber) => {
      subscriber.next({ type: "start", runId: "big", inputs: {}, resumed: false, at: 0 });
      for (let i = 0; i < 300; i++) {
        const action = { tool: i === 299 ? "look\x1b]0;T\x07up" : "lookup", toolInput: { i }, log: "", toolCallId: `c${i}` };
        subscriber.next({ type: "action", iteration: i, action, messages: [], at: i });
        subscriber.next({ type: "step", iteration: i, step: { action, observation: `found\x1b[2J ${i}` }, messages: [], durationMs: 1, at: i });
      }
      subscriber.next({ type: "output", runId: "big", at: 300, output: "done\x1b[31m\u202e", returnValues: { output: "done" }, messages: [], stopReason: "finish" });
      subscriber.complete();
    });
    const text = (await displayRun(events, { live: false }))["text/plain"] as string;
    const lines = text.split("\n");
    expect(lines).toHaveLength(1 + 1 + 100 + 1);
    expect(lines[1]).toBe("  … 200 earlier tool calls, not shown here: the run's trace has every one");
    expect(lines[2]).toBe('  [201] lookup({"i":200}) -> found\\u001b[2J 200');
    expect(lines.at(-2)).toBe('  [300] look\\u001b]0;T\\u0007up({"i":299}) -> found\\u001b[2J 299');
    expect(lines.at(-1)).toBe("  Answer: done\\u001b[31m\\u202e");
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  });

  it("shows a failure that is not an Error by its message, else its JSON, never [object Object]", async () => {
    const quota = { message: "quota exceeded", status: 429 };
    const agent = RunnableLambda.from(() => {
      throw quota;
    });
    const bundle = await displayRun(new AgentExecutor({ agent, tools: [] }).invoke({ input: "x" }), { live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "failed", error: "quota exceeded" });
    expect(bundle["text/plain"]).toContain("quota exceeded");
    expect(JSON.stringify(bundle)).not.toContain("[object Object]");
  });

  it("refuses what is not a run and options of the wrong kind before the run starts, naming them", async () => {
    const { executor, inputs } = twoCallExecutor();
    const run = executor.invoke({ input: "x" });
    await expect(displayRun({} as never)).rejects.toThrow("displayRun: `run` must be a run: executor.invoke(...), stream(...) or resume(...), or an observable of run events; got an object.");
    await expect(displayRun(Promise.resolve(1) as never)).rejects.toThrow(/got a promise \(pass the run itself/);
    await expect(displayRun(undefined as never)).rejects.toThrow(/`run` must be a run/);
    await expect(displayRun(run, null as never)).rejects.toThrow("displayRun: `options` must be an object such as { live: false }, got null.");
    await expect(displayRun(run, { live: true as never })).rejects.toThrow("displayRun: `live` must be false or a display target { show(bundle), update(bundle) } (tslab: newDisplay()), got true.");
    await expect(displayRun(run, { live: {} as never })).rejects.toThrow(/`live` must be false or a display target/);
    for (const throttleMs of [Number.NaN, -1, "fast"]) await expect(displayRun(run, { live: false, throttleMs: throttleMs as never })).rejects.toThrow(/`throttleMs` must be a number of milliseconds >= 0/);
    for (const traceHeight of [0, -5, "1px\" onload=\"alert(1)", Infinity]) await expect(displayRun(run, { live: false, traceHeight: traceHeight as never })).rejects.toThrow(/`traceHeight` must be a number of CSS pixels > 0/);
    await expect(displayRun(run, { live: false, store: "runs.db" as never })).rejects.toThrow(/`store` must be a RunStore/);
    // None of them ran the run.
    expect(inputs).toHaveLength(0);
    expect((await displayRun(run, { live: false }))[RUN_MIME_TYPE]).toMatchObject({ status: "finished" });
  });

  it("rejects when the live display fails, naming its error", async () => {
    const { executor } = twoCallExecutor();
    const live = { show: () => undefined, update: () => Promise.reject(new Error("kernel gone")) };
    await expect(displayRun(executor.invoke({ input: "x" }), { live })).rejects.toThrow("kernel gone");
  });

  it("rejects when the live display cannot show the table, and awaiting the run gives the run that display ran", async () => {
    const { executor, inputs } = twoCallExecutor();
    const live = { show: () => Promise.reject(new Error("kernel gone")), update: () => undefined };
    const run = executor.invoke({ input: "x" });
    await expect(displayRun(run, { live })).rejects.toThrow("kernel gone");
    expect((await run).output).toBe("Sunny in Oslo.");
    expect(inputs).toHaveLength(2);
  });

  it("embeds each message of a long run's requests (recordPrompts) once: the trace of 200 tool calls stays small", async () => {
    const bundle = await displayRun(longPromptExecutor(new MemoryRunStore(), 200).stream({ input: "Go." }, { runId: "long" }), { live: false });
    const html = bundle["text/html"] as string;
    expect(html).toContain('<iframe class="agentrx-trace"');
    // Each request embedded whole repeats the conversation so far: about 7.5 MB of cell for this run.
    expect(html.length).toBeLessThan(1_500_000);
    // Every model call's request is in it, by the parts it had (the page rebuilds a request when it is shown).
    expect(html.match(/&#34;requestRef&#34;:/g)).toHaveLength(201);
  });

  it("shows an observation's images as placeholders with their type and size, never as base64", async () => {
    const data = `iVBORw0KGgo${"A".repeat(4000)}`;
    const chart = tool(async () => [{ type: "text", text: "The chart:" }, { type: "image", mimeType: "image/png", data }], { name: "chart", description: "Charts.", schema: z.object({}) });
    const { agent } = scriptedAgent([[toolCall("chart", {}, "c1")], finish("Done.")]);
    const display = recordingDisplay();
    const bundle = await displayRun(new AgentExecutor({ agent, tools: [chart] }).invoke({ input: "Chart it." }), { live: display.live });
    const table = display.html().at(-1) as string;
    expect(table).toContain("<pre>The chart:\n[image 1: image/png, 3 KB]</pre>");
    expect(table).not.toContain("AAAAAAAA");
    expect(bundle["text/plain"]).toContain("chart({}) -> The chart: [image 1: image/png, 3 KB]");
    expect(bundle["text/plain"]).not.toContain("AAAAAAAA");
  });

  it("cuts a long observation of emoji in its cell and its text line without splitting an emoji", async () => {
    // An odd start: the cuts (400 characters in the cell, 120 in the text line) fall inside an emoji.
    const { executor } = twoCallExecutor(`a${"😀".repeat(300)}`);
    const display = recordingDisplay();
    const bundle = await displayRun(executor.invoke({ input: "Weather in Oslo?" }), { live: display.live, throttleMs: 0 });
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    const html = display.html().at(-1) as string;
    const text = bundle["text/plain"] as string;
    expect(loneSurrogate.test(html)).toBe(false);
    expect(loneSurrogate.test(text)).toBe(false);
    expect(html).toContain(`<pre>a${"😀".repeat(199)}… (601 characters)</pre>`);
    expect(text).toContain(`-> a${"😀".repeat(59)}…`);
  });
});
