import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type TracePageData,
  type TraceRow,
  formatRuntime,
  readTracePage,
  readTraceText,
  traceLayoutRuntime,
  traceModelRuntime,
  traceSummaryRuntime,
} from "@agentrx/viewer/trace-page";
import { MemoryRunStore } from "@agentrx/runs";
import { recordTripRun, writeSyntheticRun } from "./trace-test-fixtures";
import { recordSupervisorRun } from "./trace-debugger-fixtures";

const layout = traceLayoutRuntime(formatRuntime());
const { summary: summaryOf, scale: scaleOf } = traceSummaryRuntime(formatRuntime(), layout);
const runtime = traceModelRuntime();

/** The page's model of a run, from its data as the page gets it (JSON). */
async function traceOf(store: RunStore, runId: string) {
  const data = JSON.parse(JSON.stringify(await readTracePage(store, runId, { mode: "file", source: "test" }))) as TracePageData;
  const model = runtime.createTrace(data.run);
  runtime.applyEvents(model, data.events);
  return { data, model };
}

const outline = (rows: TraceRow[]) => rows.map((row) => `${"  ".repeat(row.depth)}${row.id} ${row.label}${row.badges.length ? ` [${row.badges.join(", ")}]` : ""}`);

describe("the trace page's layout of a recorded run", () => {
  const store = new MemoryRunStore();
  let events: StoredRunEvent[] = [];
  beforeAll(async () => {
    await recordTripRun(store, { scale: 0.3 }); // the flights call stays the slowest, even on a busy machine (140 ms at 0.1 was not)
    events = await store.readEvents("trip-1");
  });

  it("has the tree run → iterations → model calls and tool calls → steps, with retries, timeouts and the slowest call", async () => {
    const { model } = await traceOf(store, "trip-1");
    const rows = layout.rows(model, Date.now());
    expect(outline(rows)).toEqual([
      "run-run [finished]",
      "  it-0 iteration 1",
      "    model-0-0 model",
      "    tool-0-0 search_flights [slowest]",
      "      step-0-0 result",
      "    tool-0-1 get_weather",
      "      step-0-1 result",
      "    tool-0-2 find_hotels [2 attempts]",
      "      step-0-2 result",
      "  it-1 iteration 2",
      "    model-1-0 model",
      "    tool-1-0 currency_rate [2 attempts, timed out]",
      "      step-1-0 result",
      "  it-2 iteration 3",
      "    model-2-0 model",
      "  answer answer [finish]",
    ].map((line) => line.replace("run-run", "run run")));
    expect(rows.find((row) => row.id === "tool-0-2")?.state).toBe("warn");
    expect(rows.find((row) => row.id === "tool-0-0")?.collapsed).toBe(true);
  });

  it("puts every bar where the record says: a tool call ends at its step, a model call at its model_call", async () => {
    const { model } = await traceOf(store, "trip-1");
    const rows = layout.rows(model, Date.now());
    const steps = events.filter((event) => event.type === "step");
    for (const step of steps) {
      const row = rows.find((candidate) => candidate.id === `tool-${step.data["iteration"]}-${step.data["index"]}`) as TraceRow;
      expect(row.end).toBe(step.at);
      expect(row.start).toBeCloseTo(step.at - (step.data["durationMs"] as number), 6);
    }
    const calls = events.filter((event) => event.type === "model_call");
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      const row = rows.find((candidate) => candidate.id === `model-${call.data["iteration"]}-0`) as TraceRow;
      expect([row.start, row.end]).toEqual([call.at - (call.data["durationMs"] as number), call.at]);
    }
    // The three tools of the first turn ran at once: each started before the others ended.
    const parallel = ["tool-0-0", "tool-0-1", "tool-0-2"].map((id) => rows.find((row) => row.id === id) as TraceRow);
    for (const a of parallel) for (const b of parallel) expect(a.start as number).toBeLessThan(b.end as number);
    // Streamed text: the first token comes inside its call.
    const answer = rows.find((row) => row.id === "model-2-0") as TraceRow;
    expect(answer.firstTokenAt).toBeGreaterThanOrEqual(answer.start as number);
    expect(answer.firstTokenAt).toBeLessThanOrEqual(answer.end as number);
  });

  it("sums up the run for the header", async () => {
    const { model } = await traceOf(store, "trip-1");
    const now = Date.now();
    const summary = summaryOf(model, layout.rows(model, now), now);
    const info = await store.getRun("trip-1");
    expect(summary).toMatchObject({ status: "finished", stopReason: "finish", live: false, iterations: 3, modelCalls: 3, toolCalls: 4, segments: 1 });
    expect(summary.tokens?.total).toBe(info?.usage?.total_tokens);
    expect(summary.slowest).toMatchObject({ id: "tool-0-0", tool: "search_flights" });
    const [start, end] = [events[0]?.at as number, events[events.length - 1]?.at as number];
    expect(summary.wallMs).toBe(info?.checkpoint?.elapsedMs);
    expect(summary.wallMs).toBeGreaterThanOrEqual(end - start - 5);
    expect(summary.modelMs + summary.toolMs + summary.otherMs).toBeCloseTo(summary.wallMs, 6);
  });

  it("infers model calls from the events around them when the run did not record them", async () => {
    const { data } = await traceOf(store, "trip-1");
    const model = runtime.createTrace(data.run);
    runtime.applyEvents(model, data.events.filter((event) => event.type !== "model_call"));
    const rows = layout.rows(model, Date.now());
    const calls = rows.filter((row) => row.kind === "model");
    expect(calls.map((row) => row.state)).toEqual(["inferred", "inferred", "inferred"]);
    const firstAction = events.find((event) => event.type === "action") as StoredRunEvent;
    expect([calls[0]?.start, calls[0]?.end]).toEqual([events[0]?.at, firstAction.at]);
    expect(summaryOf(model, rows, Date.now()).modelCalls).toBe(0);
  });
});

describe("the layout of a run in progress, and of a resumed one", () => {
  it("shows running tool calls and the model call being waited for, up to now", async () => {
    const store = new MemoryRunStore();
    const start = Date.now() - 10_000;
    const events = await writeSyntheticRun(store, { runId: "live", iterations: 1, toolsPerIteration: 2, running: true, start });
    const { data } = await traceOf(store, "live");
    // Only the first tool call has finished: the second is still running.
    const model = runtime.createTrace(data.run);
    runtime.applyEvents(model, data.events.slice(0, -1));
    const now = Date.now();
    let rows = layout.rows(model, now);
    expect(rows.find((row) => row.id === "tool-0-1")).toMatchObject({ state: "running", end: now, badges: ["slowest", "running"] });
    expect(summaryOf(model, rows, now)).toMatchObject({ live: true, status: "running" });
    // Both finished: the next model call is running.
    runtime.applyEvents(model, data.events);
    rows = layout.rows(model, now);
    expect(rows.find((row) => row.id === "model-1-0")).toMatchObject({ state: "running", start: events[events.length - 1]?.at, end: now });
    // Events already applied are skipped (a reconnecting stream sends them again).
    runtime.applyEvents(model, data.events);
    expect(model.iterations[0]?.tools).toHaveLength(2);
  });

  it("draws a long pause between the segments of a resumed run narrow, as a break", async () => {
    const store = new MemoryRunStore();
    await writeSyntheticRun(store, { runId: "resumed", iterations: 1, toolsPerIteration: 1, running: true, start: 1_000_000 });
    const { data } = await traceOf(store, "resumed");
    const model = runtime.createTrace(data.run);
    const later = 1_000_000 + 3_600_000;
    runtime.applyEvents(model, [
      ...data.events,
      { type: "start", seq: data.events.length + 1, at: later, runId: "resumed", inputs: "{}", resumed: true },
      { type: "output", seq: data.events.length + 2, at: later + 100, output: "done", stopReason: "finish" },
    ]);
    model.run.status = "finished";
    const scale = scaleOf(model, Date.now());
    expect(scale.breaks).toHaveLength(1);
    expect(scale.breaks[0]?.label).toMatch(/^paused 59 min 59 s$|^paused 1 h 00 min$/);
    expect(scale.x(later)).toBeLessThan(0.8); // the hour takes a sliver, not 99% of the width
    expect(scale.x(later + 100)).toBe(1);
    expect(layout.rows(model, Date.now()).map((row) => row.id)).toContain("seg-1");
    // `at` is `x`'s inverse, across the break too (a zoomed view keeps its times through it).
    for (const time of [1_000_000, 1_000_150, later - 1_800_000, later, later + 50]) expect(scale.at(scale.x(time))).toBeCloseTo(time, 3);
    for (const fraction of [0, 0.25, 0.5, 0.9, 1]) expect(scale.x(scale.at(fraction))).toBeCloseTo(fraction, 9);
  });
});

describe("time to first token", () => {
  /** Records a two-turn run (a tool call, then a text answer) with `invoke` or `stream`. */
  async function recordTwoTurns(store: RunStore, runId: string, how: "invoke" | "stream") {
    const lookup = tool(async ({ q }) => `found ${q}`, { name: "lookup", description: "Looks up.", schema: z.object({ q: z.string() }) });
    const llm = new ScriptedChatModel({ streaming: true, latencyMs: 5, tokenDelayMs: 1, responses: [{ toolCalls: [{ name: "lookup", args: { q: "x" } }] }, "The answer is 42."] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store });
    if (how === "invoke") await executor.invoke({ input: "q?" }, { runId });
    else await lastValueFrom(executor.stream({ input: "q?" }, { runId }));
  }

  it("says an invoke run's model calls were not streamed, and gives a streamed text's first token", async () => {
    const store = new MemoryRunStore();
    await recordTwoTurns(store, "invoked", "invoke");
    await recordTwoTurns(store, "streamed", "stream");
    const invoked = (await traceOf(store, "invoked")).model;
    expect(invoked.tokenEvents).toBe(0);
    const invokedRows = layout.rows(invoked, Date.now()).filter((row) => row.kind === "model");
    expect(invokedRows.map((row) => layout.firstToken(invoked, row.modelCall as NonNullable<TraceRow["modelCall"]>))).toEqual([
      { known: false, text: "not streamed" },
      { known: false, text: "not streamed" },
    ]);
    expect(invokedRows.map((row) => row.note)).toEqual([expect.stringMatching(/^→ lookup · not streamed · \d+ tokens$/), expect.stringMatching(/^The answer is 42\. · not streamed · \d+ tokens$/)]);
    const streamed = (await traceOf(store, "streamed")).model;
    const streamedRows = layout.rows(streamed, Date.now()).filter((row) => row.kind === "model");
    const [tools, answer] = streamedRows.map((row) => layout.firstToken(streamed, row.modelCall as NonNullable<TraceRow["modelCall"]>));
    expect(tools).toEqual({ known: false, text: "no text streamed" });
    expect(answer?.known).toBe(true);
    expect(streamedRows[1]?.note).toMatch(/ · first token \d/);
  });

  it("never waits for a reply that has arrived: a live run whose last model call answered, or whose tool calls are not recorded yet", async () => {
    const store = new MemoryRunStore();
    const start = Date.now() - 10_000;
    await writeSyntheticRun(store, { runId: "answering", iterations: 1, toolsPerIteration: 1, running: true, start });
    const { data } = await traceOf(store, "answering");
    const model = runtime.createTrace(data.run);
    runtime.applyEvents(model, data.events);
    const next = data.events.length + 1;
    // The next model call answered with text; its output is not recorded yet.
    runtime.applyEvents(model, [
      { type: "model_call", seq: next, at: start + 500, iteration: 1, call: 1, durationMs: 100, inputCount: 4, inputDigest: "0", reply: { role: "ai", content: "All done." } },
    ]);
    let rows = layout.rows(model, Date.now());
    expect(rows.filter((row) => row.kind === "model").map((row) => [row.id, row.state])).toEqual([
      ["model-0-0", "ok"],
      ["model-1-0", "ok"],
    ]);
    // A reply asking for a tool call whose action is not recorded yet: no new model call either.
    runtime.applyEvents(model, [
      { type: "model_call", seq: next + 1, at: start + 700, iteration: 2, call: 2, durationMs: 100, inputCount: 6, inputDigest: "0", reply: { role: "ai", content: "", toolCalls: [{ name: "lookup", args: "{}" }] } },
    ]);
    rows = layout.rows(model, Date.now());
    expect(rows.some((row) => row.kind === "model" && row.state === "running")).toBe(false);
    expect(rows.map((row) => row.id)).not.toContain("model-3-0");
  });
});

describe("sub-runs", () => {
  it("draws an executor called as a tool as a tree under the tool call that started it", async () => {
    const store = new MemoryRunStore();
    await recordSupervisorRun(store, "supervisor", { delayMs: 2 });
    const { model } = await traceOf(store, "supervisor");
    const rows = layout.rows(model, Date.now());
    const sub = "tool-0-0/sub0";
    expect(outline(rows)).toEqual([
      "run run [finished]",
      "  it-0 iteration 1",
      "    model-0-0 model",
      "    tool-0-0 researcher [slowest]",
      `      ${sub}/run researcher`,
      `        ${sub}/it-0 iteration 1`,
      `          ${sub}/model-0-0 model`,
      `          ${sub}/tool-0-0 lookup`,
      `            ${sub}/step-0-0 result`,
      `        ${sub}/it-1 iteration 2`,
      `          ${sub}/model-1-0 model`,
      `          ${sub}/tool-1-0 lookup`,
      `            ${sub}/step-1-0 result`,
      `        ${sub}/it-2 iteration 3`,
      `          ${sub}/model-2-0 model`,
      `        ${sub}/answer answer [finish]`,
      "      step-0-0 result",
      "  it-1 iteration 2",
      "    model-1-0 model",
      "  answer answer [finish]",
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(`${sub}/run`)).toMatchObject({ kind: "subrun", parentId: "tool-0-0", depth: 3 });
    expect(byId.get("tool-0-0")?.collapsed).toBe(false); // open: its sub-run shows
    expect(byId.get("tool-0-0")?.childIds).toEqual([`${sub}/run`, "step-0-0"]);
    expect(byId.get(`${sub}/tool-1-0`)?.toolCall?.input).toBe('{\n  "q": "spring tides"\n}');
    // Its model calls are recorded (in the caller's record): real calls, with their replies and usage.
    expect(byId.get(`${sub}/model-0-0`)).toMatchObject({ state: "ok", badges: [], note: "→ lookup · 150 tokens" });
    expect(byId.get(`${sub}/model-2-0`)?.modelCall).toMatchObject({ call: 2, usage: { total: 150 }, reply: { content: "Tides follow the moon; spring tides come at new and full moon." } });
    // The sub-run's bars are inside its tool call's.
    const tool = byId.get("tool-0-0") as TraceRow;
    for (const row of rows.filter((row) => row.trace !== undefined && row.start !== undefined)) {
      expect(row.start as number).toBeGreaterThanOrEqual((tool.start as number) - 1);
      expect(row.end as number).toBeLessThanOrEqual((tool.end as number) + 1);
    }
    // The header counts the run's own calls.
    expect(summaryOf(model, rows, Date.now())).toMatchObject({ modelCalls: 2, toolCalls: 1 });
    expect(rows.some((row) => row.kind === "event")).toBe(false);
  });

  it("shows each of a sub-run's parallel tool calls once, with its own result", async () => {
    const store = new MemoryRunStore();
    const lookup = tool(async ({ q }: { q: string }) => `found ${q}`, { name: "lookup", description: "Looks up.", schema: z.object({ q: z.string() }) });
    const inner = RunnableLambda.from((input: { steps: unknown[] }) =>
      input.steps.length === 0
        ? [
            { tool: "lookup", toolInput: { q: "a" }, log: "" },
            { tool: "lookup", toolInput: { q: "b" }, log: "" },
          ]
        : { returnValues: { output: "done" }, log: "" },
    );
    const researcher = new AgentExecutor({ agent: inner, tools: [lookup] }).asTool({ name: "researcher", description: "Researches." });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "c1", name: "researcher", args: { input: "t" } }] }, "ok"] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [researcher], prompt }), tools: [researcher], store }).invoke({ input: "go" }, { runId: "parallel-sub" });
    const { model } = await traceOf(store, "parallel-sub");
    const rows = layout.rows(model, Date.now());
    const calls = rows.filter((row) => row.kind === "tool" && row.label === "lookup");
    expect(calls.map((row) => [row.id, row.toolCall?.input, row.toolCall?.observation])).toEqual([
      ["tool-0-0/sub0/tool-0-0", '{\n  "q": "a"\n}', "found a"],
      ["tool-0-0/sub0/tool-0-1", '{\n  "q": "b"\n}', "found b"],
    ]);
    expect(calls.map((row) => row.state)).toEqual(["ok", "ok"]);
  });

  it("nests a sub-run's own sub-run under its tool call, by the path of tool names", () => {
    const model = runtime.createTrace({ runId: "top", status: "finished", createdAt: 0, updatedAt: 100, eventCount: 12 });
    let seq = 0;
    const sub = (path: string[], event: Record<string, unknown>) => ({ type: "sub_run", seq: ++seq, at: Number(event["at"]), path, event: { ...event, seq } }) as never;
    const own = (event: Record<string, unknown>) => ({ ...event, seq: ++seq }) as never;
    runtime.applyEvents(model, [
      own({ type: "start", at: 0, runId: "top", inputs: "{}", resumed: false }),
      own({ type: "action", at: 10, iteration: 0, index: 0, tool: "manager", toolCallId: "m1", toolInput: "plan", log: "" }),
      sub(["manager"], { type: "start", at: 11, runId: "mgr", inputs: "plan", resumed: false }),
      sub(["manager"], { type: "action", at: 12, iteration: 0, index: 0, tool: "checker", toolCallId: "c1", toolInput: "check", log: "" }),
      sub(["manager", "checker"], { type: "start", at: 13, runId: "chk", inputs: "check", resumed: false }),
      sub(["manager", "checker"], { type: "action", at: 14, iteration: 0, index: 0, tool: "lookup", toolCallId: "l1", toolInput: "q", log: "" }),
      sub(["manager", "checker"], { type: "step", at: 20, iteration: 0, index: null, tool: "lookup", toolCallId: "l1", toolInput: "q", observation: "found", durationMs: 6 }),
      sub(["manager", "checker"], { type: "output", at: 22, output: "checked", stopReason: "finish" }),
      sub(["manager"], { type: "step", at: 23, iteration: 0, index: null, tool: "checker", toolCallId: "c1", toolInput: "check", observation: "checked", durationMs: 11 }),
      sub(["manager"], { type: "output", at: 25, output: "planned", stopReason: "finish" }),
      own({ type: "step", at: 26, iteration: 0, index: 0, tool: "manager", toolCallId: "m1", observation: "planned", durationMs: 16 }),
      own({ type: "output", at: 30, output: "done", stopReason: "finish" }),
    ]);
    const rows = layout.rows(model, 100);
    const nested = "tool-0-0/sub0/tool-0-0/sub0";
    expect(rows.find((row) => row.id === `${nested}/run`)).toMatchObject({ kind: "subrun", label: "manager › checker", parentId: "tool-0-0/sub0/tool-0-0" });
    expect(rows.find((row) => row.id === `${nested}/tool-0-0`)).toMatchObject({ label: "lookup", start: 14, end: 20 });
    expect(rows.find((row) => row.id === `${nested}/answer`)?.note).toMatch(/^checked/);
    expect(rows.find((row) => row.id === "tool-0-0/sub0/tool-0-0")?.toolCall?.observation).toBe("checked");
    expect(summaryOf(model, rows, 100)).toMatchObject({ toolCalls: 1 });
  });
});

describe("sub-runs of parallel calls of one tool", () => {
  /** Two researcher calls at once whose sub-runs' events interleave; `ids` says whether the record has their call ids. */
  function parallel(ids: boolean) {
    const model = runtime.createTrace({ runId: "top", status: "finished", createdAt: 0, updatedAt: 100, eventCount: 20 });
    let seq = 0;
    const sub = (callId: string, event: Record<string, unknown>) => ({ type: "sub_run", seq: ++seq, at: Number(event["at"]), path: ["researcher"], ...(ids ? { callIds: [callId] } : {}), event: { ...event, seq } }) as never;
    const own = (event: Record<string, unknown>) => ({ ...event, seq: ++seq }) as never;
    const reply = (text: string) => ({ role: "ai", content: text });
    runtime.applyEvents(model, [
      own({ type: "start", at: 0, runId: "top", inputs: "{}", resumed: false }),
      own({ type: "action", at: 10, iteration: 0, index: 0, tool: "researcher", toolCallId: "a", toolInput: "tides", log: "" }),
      own({ type: "action", at: 10, iteration: 0, index: 1, tool: "researcher", toolCallId: "b", toolInput: "waves", log: "" }),
      sub("a", { type: "start", at: 11, runId: "ra", inputs: "tides", resumed: false }),
      sub("b", { type: "start", at: 12, runId: "rb", inputs: "waves", resumed: false }),
      sub("a", { type: "model_call", at: 20, iteration: 0, call: 0, durationMs: 8, inputCount: 1, inputDigest: "d", reply: reply("about tides") }),
      sub("b", { type: "model_call", at: 21, iteration: 0, call: 0, durationMs: 8, inputCount: 1, inputDigest: "d", reply: reply("about waves") }),
      sub("a", { type: "output", at: 22, output: "tides answer", stopReason: "finish" }),
      own({ type: "step", at: 23, iteration: 0, index: 0, tool: "researcher", toolCallId: "a", observation: "tides answer", durationMs: 13 }),
      sub("b", { type: "output", at: 24, output: "waves answer", stopReason: "finish" }),
      own({ type: "step", at: 25, iteration: 0, index: 1, tool: "researcher", toolCallId: "b", observation: "waves answer", durationMs: 15 }),
      own({ type: "output", at: 30, output: "done", stopReason: "finish" }),
    ]);
    const tools = model.iterations[0]?.tools ?? [];
    const answers = (callId: string) => tools.find((tool) => tool.toolCallId === callId)?.subRuns?.map((run) => run.output?.text);
    return { model, answers, rows: layout.rows(model, 100) };
  }

  it("puts each sub-run's events and model calls under the call that started it, by the recorded call ids", () => {
    const { answers, rows } = parallel(true);
    expect(answers("a")).toEqual(["tides answer"]);
    expect(answers("b")).toEqual(["waves answer"]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get("tool-0-0/sub0/model-0-0")).toMatchObject({ state: "ok", badges: [], note: "about tides", start: 12, end: 20 });
    expect(byId.get("tool-0-1/sub0/model-0-0")).toMatchObject({ state: "ok", badges: [], note: "about waves", start: 13, end: 21 });
    expect(byId.get("tool-0-0/sub0/answer")?.note).toMatch(/^tides answer/);
    expect(byId.get("tool-0-1/sub0/answer")?.note).toMatch(/^waves answer/);
  });

  it("without call ids (an older record), guesses: the later call takes the events after its sub-run starts", () => {
    const { answers, model } = parallel(false);
    // The second sub-run's start makes it the tool's active one: the first sub-run's later events land there too.
    expect(answers("a")).toEqual([undefined]);
    expect(answers("b")).toEqual(["waves answer"]);
    const second = model.iterations[0]?.tools[1]?.subRuns?.[0];
    expect(second?.iterations[0]?.modelCalls.map((call) => call.reply?.content)).toEqual(["about tides", "about waves"]);
  });

  // A call started early (eagerTools) starts its sub-run while the model still streams; its events
  // are recorded once the action that names the call is (an older release recorded them before it:
  // the next test's case). A call streamed without an id has the call id `<iteration>:early-<n>`,
  // known from its recorded idempotency key.
  it.each([
    ["with ids", undefined],
    ["streamed without ids", ""],
  ])("puts the sub-runs of calls started early (eagerTools, %s) under their calls, not apart", async (_label, id) => {
    const store = new MemoryRunStore();
    const researcher = new AgentExecutor({
      agent: RunnableLambda.from((input: { input: string }) => ({ returnValues: { output: `about ${input.input}` }, log: "" })),
      tools: [],
    });
    const research = researcher.asTool({ name: "researcher", description: "Researches." });
    const call = (input: string) => ({ name: "researcher", args: { input }, ...(id === undefined ? {} : { id }) });
    const llm = new ScriptedChatModel({ tokenDelayMs: 10, responses: [{ toolCalls: [call("tides"), call("waves")] }, "done"] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const supervisor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [research], prompt }), tools: [research], store, eagerTools: true });
    await lastValueFrom(supervisor.stream({ input: "go" }, { runId: "eager" }));
    const { data, model } = await traceOf(store, "eager");
    // The record has the sub-runs' events after the actions of their calls.
    const firstSubRun = data.events.findIndex((event) => event.type === "sub_run");
    expect(firstSubRun).toBeGreaterThan(data.events.findIndex((event) => event.type === "action"));
    const tools = model.iterations[0]?.tools ?? [];
    expect(tools.map((tool) => tool.subRuns?.map((sub) => sub.output?.text))).toEqual([["about tides"], ["about waves"]]);
    expect(model.strayRuns).toBeUndefined();
    const rows = layout.rows(model, Date.now());
    expect(rows.find((row) => row.id === "tool-0-1/sub0/run")).toMatchObject({ kind: "subrun", parentId: "tool-0-1" });
    // Each call is marked as started early: its bar starts before its model call ends.
    expect(tools.map((tool) => tool.early)).toEqual([true, true]);
    expect(rows.filter((row) => row.kind === "tool").map((row) => row.badges.includes("early"))).toEqual([true, true]);
    expect(rows.some((row) => row.id.includes("stray"))).toBe(false);
  });

  it("keeps a sub-run whose call is never recorded apart, as a stray, and adopts one whose call comes later", () => {
    const model = runtime.createTrace({ runId: "top", status: "finished", createdAt: 0, updatedAt: 100, eventCount: 6 });
    const start = (seq: number, callId: string) => ({ type: "sub_run", seq, at: seq, path: ["researcher"], callIds: [callId], event: { type: "start", seq, at: seq, runId: `r${seq}`, inputs: "x", resumed: false } }) as never;
    runtime.applyEvents(model, [{ type: "start", seq: 1, at: 0, runId: "top", inputs: "{}", resumed: false }, start(2, "0:early-0"), start(3, "0:early-1")]);
    expect(model.strayRuns?.map((sub) => sub.run.runId)).toEqual(["r2", "r3"]);
    runtime.applyEvents(model, [{ type: "action", seq: 4, at: 4, iteration: 0, index: 0, tool: "researcher", toolInput: "x", log: "", idempotencyKey: "top:0:early-1" }]);
    expect(model.iterations[0]?.tools[0]?.subRuns?.map((sub) => sub.run.runId)).toEqual(["r3"]);
    expect(model.strayRuns?.map((sub) => sub.run.runId)).toEqual(["r2"]);
  });

  it("matches a call id of an action without a toolCallId by its iteration and index", () => {
    const model = runtime.createTrace({ runId: "top", status: "finished", createdAt: 0, updatedAt: 100, eventCount: 8 });
    runtime.applyEvents(model, [
      { type: "start", seq: 1, at: 0, runId: "top", inputs: "{}", resumed: false },
      { type: "action", seq: 2, at: 10, iteration: 0, index: 0, tool: "researcher", toolInput: "x", log: "" },
      { type: "action", seq: 3, at: 10, iteration: 0, index: 1, tool: "researcher", toolInput: "y", log: "" },
      { type: "sub_run", seq: 4, at: 11, path: ["researcher"], callIds: ["0:1"], event: { type: "start", seq: 4, at: 11, runId: "r", inputs: "y", resumed: false } },
    ]);
    expect(model.iterations[0]?.tools.map((tool) => tool.subRuns?.length ?? 0)).toEqual([0, 1]);
  });
});

describe("a sub-run's parallel tool calls", () => {
  /** A researcher sub-run whose one turn calls lookup twice; `actionIndex`/`stepIndex` give each event's recorded position (`null`: none). */
  function subRunTurn(actionIndex: (i: number) => number | null, stepIndex: (i: number) => number | null, options: { ids: boolean; stepOrder: number[] }) {
    const model = runtime.createTrace({ runId: "top", status: "finished", createdAt: 0, updatedAt: 100, eventCount: 12 });
    let seq = 0;
    const sub = (event: Record<string, unknown>) => ({ type: "sub_run", seq: ++seq, at: Number(event["at"]), path: ["researcher"], callIds: ["r1"], event: { ...event, seq } }) as never;
    const own = (event: Record<string, unknown>) => ({ ...event, seq: ++seq }) as never;
    const queries = ["a", "b"];
    const id = (i: number) => (options.ids ? { toolCallId: `l${i}` } : {});
    runtime.applyEvents(model, [
      own({ type: "start", at: 0, runId: "top", inputs: "{}", resumed: false }),
      own({ type: "action", at: 10, iteration: 0, index: 0, tool: "researcher", toolCallId: "r1", toolInput: "t", log: "" }),
      sub({ type: "start", at: 11, runId: "sub", inputs: "t", resumed: false }),
      ...queries.map((q, i) => sub({ type: "action", at: 12, iteration: 0, index: actionIndex(i), tool: "lookup", ...id(i), toolInput: q, log: "" })),
      ...options.stepOrder.map((i) => {
        const index = stepIndex(i);
        return sub({ type: "step", at: 20 + i, iteration: 0, index, tool: "lookup", ...id(i), ...(index === null ? { toolInput: queries[i] } : {}), observation: `found ${queries[i]}`, durationMs: 8 + i });
      }),
      sub({ type: "output", at: 25, output: "done", stopReason: "finish" }),
      own({ type: "step", at: 26, iteration: 0, index: 0, tool: "researcher", toolCallId: "r1", observation: "done", durationMs: 16 }),
      own({ type: "output", at: 30, output: "ok", stopReason: "finish" }),
    ]);
    const calls = layout.rows(model, 100).filter((row) => row.kind === "tool" && row.label === "lookup");
    return calls.map((row) => [row.id, row.toolCall?.input, row.toolCall?.observation]);
  }

  const expected = [
    ["tool-0-0/sub0/tool-0-0", "a", "found a"],
    ["tool-0-0/sub0/tool-0-1", "b", "found b"],
  ];

  it("places the calls by their own positions when the record has them", () => {
    expect(subRunTurn((i) => i, (i) => i, { ids: false, stepOrder: [1, 0] })).toEqual(expected);
  });

  it.each([
    ["without positions, with tool call ids, results in reverse order", () => null, { ids: true, stepOrder: [1, 0] }],
    ["without positions or ids, results in order", () => null, { ids: false, stepOrder: [0, 1] }],
    ["with every action at 0 (an older record), with ids", () => 0, { ids: true, stepOrder: [1, 0] }],
    ["with every action at 0 (an older record), without ids", () => 0, { ids: false, stepOrder: [0, 1] }],
  ])("never merges the calls of an older record (%s)", (_label, actionIndex, options) => {
    expect(subRunTurn(actionIndex, () => null, options)).toEqual(expected);
  });
});

describe("usage per model call", () => {
  it("gives a model call every usage event reported before it, not only the last", () => {
    const model = runtime.createTrace({ runId: "top", status: "finished", createdAt: 0, updatedAt: 100, eventCount: 5 });
    const reply = { role: "ai", content: "hi" };
    runtime.applyEvents(model, [
      { type: "start", seq: 1, at: 0, runId: "top", inputs: "{}", resumed: false },
      { type: "usage", seq: 2, at: 5, iteration: 0, usage: { input: 80, output: 20, total: 100, cost: 0.002 }, model: "m" },
      { type: "usage", seq: 3, at: 8, iteration: 0, usage: { input: 40, output: 10, total: 50, cost: 0.001 }, model: "m" },
      { type: "model_call", seq: 4, at: 10, iteration: 0, call: 0, durationMs: 10, inputCount: 1, inputDigest: "d", reply },
      { type: "output", seq: 5, at: 12, output: "hi", stopReason: "finish" },
    ]);
    const call = model.iterations[0]?.modelCalls[0];
    expect(call?.usage).toEqual({ input: 120, output: 30, total: 150, cost: 0.003 });
    expect(model.usage.total).toBe(150);
    expect(layout.rows(model, 100).find((row) => row.id === "model-0-0")?.note).toContain("150 tokens");
  });
});

describe("the layout of a run paused for approval", () => {
  it("shows the pause, the tool call waiting for a decision, and the paused answer", async () => {
    const store = new MemoryRunStore();
    const remove = withApproval(
      tool(async ({ path }) => `removed ${path}`, { name: "delete_file", description: "Deletes a file.", schema: z.object({ path: z.string() }) }),
    );
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "delete_file", args: { path: "/tmp/x" } }] }, "Deleted."] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [remove], prompt }), tools: [remove], store });
    await lastValueFrom(executor.stream({ input: "Delete /tmp/x" }, { runId: "paused" }));
    const { model } = await traceOf(store, "paused");
    const rows = layout.rows(model, Date.now());
    expect(rows.find((row) => row.kind === "event")).toMatchObject({ label: "interrupt", note: "waiting for approval of delete_file" });
    expect(rows.find((row) => row.id === "tool-0-0")).toMatchObject({ state: "none", badges: ["awaiting approval"] });
    expect(rows.find((row) => row.id === "answer")).toMatchObject({ label: "paused", badges: ["interrupted"] });
  });

  it("shows an edited call with the input it ran with, and the input the model asked for", async () => {
    const store = new MemoryRunStore();
    const remove = withApproval(
      tool(async ({ path }) => `removed ${path}`, { name: "delete_file", description: "Deletes a file.", schema: z.object({ path: z.string() }) }),
    );
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "delete_file", args: { path: "/tmp/x" } }, { name: "delete_file", args: { path: "/etc" } }] }, "Deleted."] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [remove], prompt }), tools: [remove], store });
    const paused = await executor.invoke({ input: "Delete /tmp/x and /etc" }, { runId: "edited" });
    const [first, second] = paused.interrupts ?? [];
    await lastValueFrom(executor.resume("edited", { decisions: { [first?.id as string]: { type: "edit", toolInput: { path: "/tmp/y" } }, [second?.id as string]: "approve" } }));
    const { model } = await traceOf(store, "edited");
    const rows = layout.rows(model, Date.now());
    const edited = rows.find((row) => row.id === "tool-0-0") as TraceRow;
    // The call ran with the edited input: its row, its detail's input and its result agree.
    expect(edited).toMatchObject({ note: expect.stringContaining("/tmp/y"), badges: expect.arrayContaining(["edited"]) });
    expect(JSON.parse(String(edited.toolCall?.input))).toEqual({ path: "/tmp/y" });
    expect(JSON.parse(String(edited.toolCall?.askedInput))).toEqual({ path: "/tmp/x" });
    expect(edited.toolCall?.observation).toBe("removed /tmp/y");
    // Show all fetches the edited input from the store, where the decision recorded it.
    const whole = await readTraceText(store, "edited", edited.toolCall?.inputSeq as number, edited.toolCall?.inputField as string);
    expect(JSON.parse(whole as string)).toEqual({ path: "/tmp/y" });
    // The approved call is as the model asked for it.
    const approved = rows.find((row) => row.id === "tool-0-1") as TraceRow;
    expect(approved.badges).not.toContain("edited");
    expect(JSON.parse(String(approved.toolCall?.input))).toEqual({ path: "/etc" });
    expect(approved.toolCall?.askedInput).toBeUndefined();
  });

  it("labels the axis of a run of a few milliseconds without repeating a label", async () => {
    const store = new MemoryRunStore();
    await writeSyntheticRun(store, { runId: "quick", iterations: 1, toolsPerIteration: 1, start: 2_000_000 });
    const { data } = await traceOf(store, "quick");
    const model = runtime.createTrace(data.run);
    // The same run squeezed into 3 ms: the events keep their order.
    runtime.applyEvents(model, data.events.map((event) => ({ ...event, at: 2_000_000 + Math.min(3, (event.at - 2_000_000) / 100) }) as typeof event));
    const labels = scaleOf(model, Date.now()).ticks.map((tick) => tick.label);
    expect(labels.length).toBeGreaterThan(2);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toContain("0.5 ms");
  });

  it("labels a zoomed axis without repeating a label, at every zoom and place", async () => {
    const store = new MemoryRunStore();
    await writeSyntheticRun(store, { runId: "zoom", iterations: 40, toolsPerIteration: 3, start: 3_000_000 });
    const { model } = await traceOf(store, "zoom");
    const scale = scaleOf(model, Date.now());
    for (let span = 1; span > 1e-5; span /= 3) {
      for (const from of [0, 0.123456, 0.5 - span / 2, 1 - span]) {
        const ticks = scale.ticksIn(Math.max(0, from), Math.max(0, from) + span);
        const labels = ticks.map((tick) => tick.label);
        expect(labels.length, `span ${span} from ${from}`).toBeGreaterThan(2);
        expect(new Set(labels).size, `span ${span} from ${from}: ${labels.join(" ")}`).toBe(labels.length);
        for (const tick of ticks) expect(tick.x).toBeGreaterThanOrEqual(Math.max(0, from) - 1e-9);
      }
    }
    expect(scale.ticksIn(0, 1)).toEqual(scale.ticks);
  });

  it("gives a running run no stop reason", async () => {
    const store = new MemoryRunStore();
    await writeSyntheticRun(store, { runId: "busy", iterations: 1, toolsPerIteration: 1, running: true });
    const { model } = await traceOf(store, "busy");
    expect(model.run.status).toBe("running");
    expect(summaryOf(model, layout.rows(model, Date.now()), Date.now()).stopReason).toBeUndefined();
  });
});

describe("the layout of a fork", () => {
  const DAY = 24 * 3_600_000;

  /**
   * A run of three iterations (two slow tool calls, then the answer) and its fork after two
   * iterations, as if forked three days later: the copied prefix keeps the source's times.
   */
  async function forkedTrace() {
    const store = new MemoryRunStore();
    const slow = tool(
      async ({ city }: { city: string }) => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        return `Sunny in ${city}.`;
      },
      { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) },
    );
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executorOf = (responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"]) => {
      const llm = new ScriptedChatModel({ responses });
      return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [slow], prompt }), tools: [slow], store });
    };
    const call = (city: string) => ({ toolCalls: [{ name: "weather", args: { city }, id: `call-${city}` }] });
    await lastValueFrom(executorOf([call("Paris"), call("Rome"), "Sunny in both."]).stream({ input: "Paris, then Rome?" }, { runId: "source" }));
    await lastValueFrom(executorOf(["Sunny in both, really."]).fork("source", { at: 2, runId: "forked" }));
    const data = JSON.parse(JSON.stringify(await readTracePage(store, "forked", { mode: "file", source: "test" }))) as TracePageData;
    // The source ran three days before the fork: the copied events (up to the fork's own start) keep its times.
    const ownStart = data.events.findIndex((event, index) => index > 0 && event.type === "start");
    expect(ownStart).toBeGreaterThan(0);
    for (const event of data.events.slice(0, ownStart)) event.at -= 3 * DAY;
    const model = runtime.createTrace(data.run);
    runtime.applyEvents(model, data.events);
    return { data, model, ownStartAt: (data.events[ownStart] as { at: number }).at };
  }

  it("says the fork's own part was forked from the source after iteration N, not resumed after a pause", async () => {
    const { model } = await forkedTrace();
    const rows = layout.rows(model, Date.now());
    const segment = rows.find((row) => row.kind === "segment") as TraceRow;
    expect(segment).toMatchObject({ label: "forked", note: "from source after iteration 2" });
    expect(rows.map((row) => `${row.label} ${row.note}`).join("\n")).not.toMatch(/pause/);
    // The copied iterations say they are copied; the fork's own is not.
    expect(rows.find((row) => row.id === "it-0")?.badges).toEqual(["copied"]);
    expect(rows.find((row) => row.id === "it-1")?.badges).toEqual(["copied"]);
    expect(rows.find((row) => row.id === "it-2")?.badges).toEqual([]);
  });

  it("draws no pause on the time axis for the time between the source's run and the fork", async () => {
    const { model, ownStartAt } = await forkedTrace();
    const scale = scaleOf(model, Date.now());
    expect(scale.breaks.map((gap) => gap.label)).toEqual(["forked 3 d 0 h later"]);
    // The three days take a sliver, not 99.99% of the width; the fork's own part is after it.
    expect(scale.breaks[0]?.width).toBeLessThan(0.1);
    expect(scale.x(ownStartAt)).toBeCloseTo((scale.breaks[0]?.x ?? 0) + (scale.breaks[0]?.width ?? 0), 9);
  });

  it("counts the fork's own work in the header's times: the copied calls' times are the source's", async () => {
    const { model } = await forkedTrace();
    const rows = layout.rows(model, Date.now());
    const summary = summaryOf(model, rows, Date.now());
    // The fork made one model call and no tool call; the copied prefix's two slow tool calls are not its time.
    expect(summary.toolMs).toBe(0);
    expect(summary.modelMs + summary.toolMs).toBeLessThanOrEqual(summary.wallMs);
    expect(summary.slowest).toBeUndefined();
    // A live fork's wall time, before the executor's own measure, is its own segment's too.
    const running = { ...model, run: { ...model.run, status: "running", elapsedMs: undefined } } as typeof model;
    delete running.output;
    const own = model.segments[model.segments.length - 1] as { start: number; end: number };
    expect(summaryOf(running, layout.rows(running, own.end), own.end).wallMs).toBe(own.end - own.start);
  });
});
