import { AgentExecutor, type AgentStreamEvent, type MimeBundle, RUN_MIME_TYPE } from "@agentrx/executors";
import { MemoryRunStore, replayRun } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { displayRun } from "@agentrx/viewer";
import { tool } from "@langchain/core/tools";
import { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { echoTool, finish, scriptedAgent, toolCall } from "../../../executors/src/executor/test-helpers";

// What a notebook shows of runs recorded earlier, resumed, long, or shown twice.

function refundExecutor(store: MemoryRunStore) {
  const refund = tool(async ({ order }: { order: string }) => `refunded ${order}`, { name: "refund", description: "Refunds.", schema: z.object({ order: z.string() }) });
  const { agent } = scriptedAgent([[toolCall("refund", { order: "A1" }, "c1")], finish("Refunded.")]);
  return new AgentExecutor({ agent, tools: [withApproval(refund)], store });
}

function ofEvents(events: AgentStreamEvent[]): Observable<AgentStreamEvent> {
  return new Observable<AgentStreamEvent>((subscriber) => {
    for (const event of events) subscriber.next(event);
    subscriber.complete();
  });
}

describe("displayRun of a stored run", () => {
  it("shows a stored run that failed as failed, with its calls and the error its record gives", async () => {
    const store = new MemoryRunStore();
    const { agent } = scriptedAgent([[toolCall("echo", { text: "first" }, "c1")], new Error("model down")]);
    await expect(new AgentExecutor({ agent, tools: [echoTool], store }).invoke({ input: "x" }, { runId: "f1" })).rejects.toThrow("model down");
    expect((await store.getRun("f1"))?.status).toBe("failed");

    const bundle = await displayRun(replayRun(store, "f1"), { store, live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ runId: "f1", status: "failed", error: "Error: model down", actions: 1, steps: 1 });
    expect(bundle["text/plain"]).toMatch(/^Run failed: 1 tool call, \d+ ms f1/);
    expect(bundle["text/plain"]).toContain("Error: model down");
    expect(bundle["text/html"]).toContain('data-status="failed"');
    expect(bundle["text/html"]).toContain('<iframe class="agentrx-trace"');
  });

  it("shows a stored run that was cancelled as cancelled, its call in flight cancelled", async () => {
    const store = new MemoryRunStore();
    const controller = new AbortController();
    const hang = tool(
      (_input: { q: string }, config) =>
        new Promise<string>((_, reject) => {
          controller.abort();
          config?.signal?.addEventListener("abort", () => reject(config.signal?.reason), { once: true });
        }),
      { name: "lookup", description: "Looks up.", schema: z.object({ q: z.string() }) },
    );
    const { agent } = scriptedAgent([[toolCall("lookup", { q: "a" }, "c1")], finish("never")]);
    await expect(new AgentExecutor({ agent, tools: [hang], store }).invoke({ input: "go" }, { runId: "c1", signal: controller.signal })).rejects.toThrow(/abort/i);
    const info = await store.getRun("c1");
    expect(info?.status).toBe("cancelled");

    const bundle = await displayRun(replayRun(store, "c1"), { store, live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ runId: "c1", status: "cancelled", actions: 1, steps: 0 });
    if (info?.error !== undefined) expect(bundle[RUN_MIME_TYPE].error).toBe(info.error);
    expect(bundle["text/plain"]).toMatch(/^Run cancelled: 1 tool call/);
    expect(bundle["text/plain"]).toContain('lookup({"q":"a"}) (cancelled)');
  });

  it("shows a stored run still going (no end in its record) as running", async () => {
    const store = new MemoryRunStore();
    const events: AgentStreamEvent[] = [{ type: "start", runId: "r9", inputs: {}, resumed: false, at: 1 }];
    const bundle = await displayRun(ofEvents(events), { store, live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ runId: "r9", status: "running" });
  });
});

describe("displayRun of a resumed run", () => {
  it("replays a run paused then approved as finished: the approved call ran, nothing awaits", async () => {
    const store = new MemoryRunStore();
    const executor = refundExecutor(store);
    const paused = await executor.invoke({ input: "Refund A1" }, { runId: "r1" });
    await executor.resume("r1", { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } });

    const bundle = await displayRun(replayRun(store, "r1"), { store, live: false });
    const summary = bundle[RUN_MIME_TYPE];
    expect(summary).toMatchObject({ status: "finished", output: "Refunded.", actions: 1, steps: 1 });
    expect(summary.interrupts).toBeUndefined();
    expect(bundle["text/plain"]).not.toContain("awaiting approval");
    expect(bundle["text/plain"].split("\n").filter((line) => line.includes("refund("))).toEqual(['  [1] refund({"order":"A1"}) -> refunded A1']);
    const table = bundle["text/html"].slice(0, bundle["text/html"].indexOf("<iframe")); // the trace page's script has the words too
    expect(table).toContain("refunded A1");
    expect(table).not.toContain("awaiting approval");
  });

  it("times a run of several segments by the sum of their running times, not the pause between them", async () => {
    const action = toolCall("refund", { order: "A1" }, "c1");
    const pause = { id: "call-0-0", tool: "refund", toolInput: { order: "A1" }, iteration: 0, index: 0, reason: "approval" as const, toolCallId: "c1" };
    const events: AgentStreamEvent[] = [
      { type: "start", runId: "r2", inputs: {}, resumed: false, at: 1_000 },
      { type: "action", runId: "r2", action, iteration: 0, at: 1_050 },
      { type: "interrupt", runId: "r2", interrupts: [pause], at: 1_090 },
      { type: "output", runId: "r2", at: 1_100, output: "", returnValues: { output: "" }, messages: [], stopReason: "interrupted" },
      { type: "start", runId: "r2", inputs: {}, resumed: true, at: 3_600_000 },
      { type: "step", runId: "r2", step: { action, observation: "refunded A1" }, iteration: 0, durationMs: 20, at: 3_600_030 },
      { type: "output", runId: "r2", at: 3_600_050, output: "Refunded.", returnValues: { output: "Refunded." }, messages: [], stopReason: "finish" },
    ] as AgentStreamEvent[];
    const bundle = await displayRun(ofEvents(events), { live: false });
    expect(bundle["text/plain"]).toMatch(/^Run finished \(finish\): 1 tool call, 150 ms r2/);
    expect(bundle[RUN_MIME_TYPE].interrupts).toBeUndefined();
  });

  it("counts the calls a resume without decisions still waits for, as the rows show them", async () => {
    const store = new MemoryRunStore();
    const executor = refundExecutor(store);
    await executor.invoke({ input: "Refund A1" }, { runId: "r3" });
    const states: string[] = [];
    const keep = (bundle: MimeBundle) => void states.push(bundle["text/plain"] as string);
    const bundle = await displayRun(executor.resume("r3", { decisions: {} }), { live: { show: keep, update: keep } });
    for (const text of [states.at(-1) as string, bundle["text/plain"]]) {
      expect(text).toMatch(/^Run paused for approval: 1 tool call/);
      expect(text).toContain('refund({"order":"A1"}) awaiting approval (call-0-0)');
    }
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "interrupted", actions: 1, steps: 0 });
  });
});

describe("displayRun of a long answer", () => {
  it("cuts the answer in the table (HTML and text, live and final) saying its length; the JSON keeps it whole", async () => {
    const answer = "word ".repeat(100_000); // 500,000 characters
    const { agent } = scriptedAgent([finish(answer)]);
    const shown: MimeBundle[] = [];
    const keep = (bundle: MimeBundle) => void shown.push(bundle);
    const bundle = await displayRun(new AgentExecutor({ agent, tools: [] }).invoke({ input: "x" }), { live: { show: keep, update: keep } });

    expect(bundle[RUN_MIME_TYPE].output).toBe(answer);
    expect(bundle["text/plain"].length).toBeLessThan(20_000);
    expect(bundle["text/plain"]).toContain("(500,000 characters: the run's JSON has the whole answer)");
    const live = shown.at(-1) as MimeBundle;
    expect((live["text/html"] as string).length).toBeLessThan(30_000);
    expect(live["text/html"]).toContain("500,000 characters");
    expect((live["text/plain"] as string).length).toBeLessThan(20_000);

    const quiet = await displayRun(new AgentExecutor({ agent: scriptedAgent([finish(answer)]).agent, tools: [] }).invoke({ input: "x" }), { live: false });
    // The table (cut) above the trace (its own 400,000-character budget): one whole copy at most, in the JSON.
    expect(quiet["text/html"].length).toBeLessThan(answer.length);
  });
});

describe("displayRun of a run shown twice", () => {
  it("shows it again from the first display's record: its table and trace, and says it ran before", async () => {
    const weather = tool(async () => "sunny", { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
    const { agent, inputs } = scriptedAgent([[toolCall("weather", { city: "Oslo" }, "c1")], finish("Sunny in Oslo.")]);
    const run = new AgentExecutor({ agent, tools: [weather] }).invoke({ input: "Weather in Oslo?" });
    const first = await displayRun(run, { live: false });
    const second = await displayRun(run, { live: false });

    expect(inputs).toHaveLength(2);
    expect(second[RUN_MIME_TYPE]).toMatchObject({ runId: first[RUN_MIME_TYPE].runId, status: "finished", output: "Sunny in Oslo.", actions: 1, steps: 1 });
    expect(second["text/plain"]).not.toContain("awaited before");
    expect(second["text/plain"]).toContain('weather({"city":"Oslo"}) -> sunny');
    expect(second["text/html"]).toContain('<iframe class="agentrx-trace"');
  });

  it("says a run shown again without a record ran before this display, not that it was awaited", async () => {
    const { agent } = scriptedAgent([finish("hi")]);
    const run = new AgentExecutor({ agent, tools: [] }).invoke({ input: "x" });
    await run;
    const bundle = await displayRun(run, { live: false });
    expect(bundle["text/plain"]).toMatch(/^Run finished \(finish\) \S+ \(it ran before this display\): hi$/);
  });
});
