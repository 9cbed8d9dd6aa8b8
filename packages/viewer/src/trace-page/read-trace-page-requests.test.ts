import { MemoryRunStore } from "@agentrx/runs";
import { describe, expect, it } from "vitest";
import { expectedRequests, recordLongPromptRun } from "../trace/long-prompt-fixtures";
import { traceModelRuntime, traceRequestOf } from "./page/trace-model";
import { readTracePage } from "./read-trace-page";
import type { TracePageData, TraceText, TraceTextCut } from "./trace-data";

const TOOL_CALLS = 200;

describe("readTracePage with recorded requests (recordPrompts)", () => {
  it("embeds each distinct request message once, so a run of 200 tool calls stays small, and every request rebuilds whole", async () => {
    const store = new MemoryRunStore();
    await recordLongPromptRun(store, "long", TOOL_CALLS);
    const json = JSON.stringify(await readTracePage(store, "long", { mode: "file", source: "test" }));
    // Each request embedded whole repeats the conversation so far: about 4.9 MB for this run. Each message once: about 0.25 MB.
    expect(json.length).toBeLessThan(1_000_000);

    const data = JSON.parse(json) as TracePageData;
    const model = traceModelRuntime().createTrace(data.run, data.requestParts);
    const calls = data.events.filter((event) => event.type === "model_call");
    expect(calls).toHaveLength(TOOL_CALLS + 1);
    const shown = (value: TraceText | undefined) => (typeof value === "string" ? (value === "" ? "(empty)" : value) : { cut: value });
    const rebuilt = calls.map((call) =>
      traceRequestOf(model, call)?.messages.flatMap((message) => [
        { role: message.role, text: shown(message.content) },
        ...(message.toolCalls ?? []).map((toolCall) => ({ role: `tool call · ${toolCall.name}${toolCall.id ? ` · ${toolCall.id}` : ""}`, text: shown(toolCall.args) })),
      ]),
    );
    // Every call's request, every text whole: as readPrompts reads them from the record.
    expect(rebuilt).toEqual(await expectedRequests(store, "long"));
    expect(rebuilt[TOOL_CALLS]).toHaveLength(2 + 3 * TOOL_CALLS);
  });

  it("keeps a long message whole, once, on a page; a smaller request budget (a notebook's) cuts it", async () => {
    const store = new MemoryRunStore();
    const input = `Read this: ${"x".repeat(150_000)}`;
    await recordLongPromptRun(store, "long-input", 3, input);
    const read = async (requestBudget?: number) => {
      const data = JSON.parse(JSON.stringify(await readTracePage(store, "long-input", { mode: "file", source: "test", ...(requestBudget === undefined ? {} : { requestBudget }) }))) as TracePageData;
      const model = traceModelRuntime().createTrace(data.run, data.requestParts);
      const requests = data.events.filter((event) => event.type === "model_call").map((call) => traceRequestOf(model, call));
      return { size: JSON.stringify(data).length, human: requests.map((request) => request?.messages[1]?.content) };
    };
    const page = await read();
    expect(page.human).toEqual([input, input, input, input]);
    // The run's inputs and the request message, each once: not once per model call.
    expect(page.size).toBeLessThan(2.5 * input.length);
    const notebook = await read(100_000);
    const [cut] = notebook.human as TraceTextCut[];
    expect(notebook.human).toEqual([cut, cut, cut, cut]);
    expect(cut?.length).toBe(input.length);
    expect(input.startsWith(cut?.head ?? "-")).toBe(true);
    expect(cut?.head.length).toBeGreaterThan(90_000); // one copy: it has the budget (100,000) nearly to itself
  });
});
