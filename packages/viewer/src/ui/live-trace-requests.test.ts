// A live trace page's stream of a run recorded with recordPrompts: each model call's request
// repeats the conversation so far, and the stream sends each of its parts once (as the page's
// embedded data holds them), so its bytes grow with the run's calls, not with their square.
import { MemoryRunStore } from "@agentrx/runs";
import { afterEach, describe, expect, it } from "vitest";
import { traceModelRuntime, traceRequestOf, type TraceModel } from "../trace-page/page/trace-model";
import { readTracePage } from "../trace-page/read-trace-page";
import type { TracePageData, TraceText, TraceUpdate } from "../trace-page/trace-data";
import { expectedRequests, recordLongPromptRun, revealedStepByStep, type ShownMessage } from "../trace/long-prompt-fixtures";
import { type UiServer, startUiServer } from "./start-ui-server";

let server: UiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The whole stream of run `runId`'s live events after `after`, followed one model call per poll until it ends. */
async function streamOf(store: MemoryRunStore, runId: string, after = 0, view?: Awaited<ReturnType<typeof revealedStepByStep>>): Promise<{ text: string; updates: TraceUpdate[] }> {
  server = await startUiServer({ store: view ?? (await revealedStepByStep(store, runId)), source: "memory", port: 0, pollMs: 1 });
  const text = await (await fetch(`${server.url}/api/runs/${runId}/events?after=${after}`)).text();
  await server.close();
  server = undefined;
  expect(text).toMatch(/event: end\n/);
  const updates = text
    .split("\n\n")
    .filter((frame) => /^event: update$/m.test(frame))
    .map((frame) => JSON.parse((/^data: (.*)$/m.exec(frame) as RegExpExecArray)[1] as string) as TraceUpdate);
  return { text, updates };
}

/** Each model call's request as the detail pane lists it (as `expectedRequests` reads it from the record). */
function shownRequests(model: TraceModel, events: TracePageData["events"]): (ShownMessage[] | undefined)[] {
  const shown = (value: TraceText | undefined) => (typeof value === "string" ? (value === "" ? "(empty)" : value) : JSON.stringify(value));
  return events
    .filter((event) => event.type === "model_call")
    .map((call) =>
      traceRequestOf(model, call)?.messages.flatMap((message) => [
        { role: message.role, text: shown(message.content) },
        ...(message.toolCalls ?? []).map((toolCall) => ({ role: `tool call · ${toolCall.name}${toolCall.id ? ` · ${toolCall.id}` : ""}`, text: shown(toolCall.args) })),
      ]),
    );
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("agentrx ui: a live run's stream with recorded requests (recordPrompts)", () => {
  it("sends each request part once: the stream grows with the run's model calls, not with their square", async () => {
    const store = new MemoryRunStore();
    await recordLongPromptRun(store, "r20", 20);
    await recordLongPromptRun(store, "r40", 40);
    const short = await streamOf(store, "r20");
    const long = await streamOf(store, "r40");
    expect(short.updates.length).toBeGreaterThanOrEqual(20); // a model call or two per update
    // Each request sent whole: about 4 times the bytes for twice the calls (each call's request repeats the ones before).
    expect(Buffer.byteLength(long.text)).toBeLessThan(2.5 * Buffer.byteLength(short.text));
    // An early turn's message is sent as often in a long run as in a short one: not again with each later request.
    expect(occurrences(long.text, "Step 3: checking.")).toBe(occurrences(short.text, "Step 3: checking."));
    expect(occurrences(long.text, "Be brief.")).toBe(1);
  });

  it("rebuilds every request whole from the stream alone, and from a page read partway and the stream after it", async () => {
    const store = new MemoryRunStore();
    await recordLongPromptRun(store, "run", 12);
    const expected = await expectedRequests(store, "run");

    const { updates } = await streamOf(store, "run");
    const model = traceModelRuntime().createTrace((updates[0] as TraceUpdate).run);
    for (const update of updates) traceModelRuntime().applyUpdate(model, update);
    const events = updates.flatMap((update) => update.events);
    expect(events.filter((event) => event.type === "model_call")).toHaveLength(13);
    expect(events.some((event) => event.type === "model_call" && event.request !== undefined)).toBe(false);
    expect(shownRequests(model, events)).toEqual(expected);

    // The page is read with some calls recorded; its stream goes on from its last event, with the parts it lacks.
    const view = await revealedStepByStep(store, "run");
    for (let i = 0; i < 4; i++) await view.getRun("run");
    const page = JSON.parse(JSON.stringify(await readTracePage(view, "run", { mode: "ui", source: "memory" }))) as TracePageData;
    const partway = traceModelRuntime().createTrace(page.run, page.requestParts);
    traceModelRuntime().applyEvents(partway, page.events);
    const shownCalls = page.events.filter((event) => event.type === "model_call").length;
    expect(shownCalls).toBeGreaterThan(3);
    expect(shownCalls).toBeLessThan(10);
    const rest = await streamOf(store, "run", partway.lastSeq, view);
    expect(rest.updates[0]?.requestParts).toMatchObject({ messagesFrom: page.requestParts?.messages.length, textsFrom: page.requestParts?.texts.length });
    for (const update of rest.updates) traceModelRuntime().applyUpdate(partway, update);
    expect(shownRequests(partway, [...page.events, ...rest.updates.flatMap((update) => update.events)])).toEqual(expected);
  });
});
