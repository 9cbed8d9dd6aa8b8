import { encodeRunEvent, type StoredRunEvent } from "@agentrx/executors";
import { AIMessage, HumanMessage, mapChatMessagesToStoredMessages } from "@langchain/core/messages";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { MemoryRunStore, readPrompts } from "@agentrx/runs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { readTracePage } from "./read-trace-page";
import type { TracePageData } from "./trace-data";
import { traceModelRuntime, traceRequestOf } from "./page/trace-model";
import { TraceEventConverter } from "./trace-event-converter";

const stored = (seq: number, data: Record<string, unknown>): StoredRunEvent => ({ seq, type: String(data["type"]), at: 1000 + seq, data: { at: 1000 + seq, ...data } as StoredRunEvent["data"] });
const json = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("TraceEventConverter", () => {
  it("reads messages in the inputs as role and text, and a step without a turn with its own input", () => {
    const converter = new TraceEventConverter("r1");
    const inputs = { input: "hi", chat_history: [new HumanMessage("earlier"), new AIMessage("reply")] };
    const start = converter.convert(stored(1, encodeRunEvent({ type: "start", runId: "r1", inputs, resumed: false, at: 1001 })));
    expect(json(start)).toMatchObject({ type: "start", seq: 1, at: 1001, runId: "r1", resumed: false });
    expect(JSON.parse(json(start).inputs)).toEqual({ input: "hi", chat_history: [{ role: "human", content: "earlier" }, { role: "ai", content: "reply" }] });
    const step = converter.convert(stored(2, { type: "step", iteration: 0, observation: "Invalid or incomplete response", durationMs: 0, action: { tool: "_Exception", toolInput: "Invalid or incomplete response", log: "garbage" } }));
    expect(json(step)).toEqual({ type: "step", seq: 2, at: 1002, iteration: 0, index: null, tool: "_Exception", toolInput: "Invalid or incomplete response", observation: "Invalid or incomplete response", durationMs: 0 });
  });

  it("shows an output event of a damaged record without its stop reason or output as not recorded, not as undefined", () => {
    const converter = new TraceEventConverter("r1");
    const output = json(converter.convert(stored(1, { type: "output", runId: "r1" })));
    expect(output).toMatchObject({ type: "output", output: "", stopReason: "(not recorded)" });
  });

  it("shows a model reply's reasoning apart from its text, without the blocks that repeat its tool calls", () => {
    const converter = new TraceEventConverter("r1");
    converter.convert(stored(1, { type: "start", runId: "r1", resumed: false, inputs: {} }));
    // A model call as the recorder stores it: the reply in @langchain/core's stored form.
    const reply = (seq: number, message: AIMessage) =>
      json(converter.convert(stored(seq, { type: "model_call", iteration: 0, call: seq, durationMs: 1, inputCount: 1, inputDigest: "d", message: mapChatMessagesToStoredMessages([message])[0] }))).reply;
    // Anthropic with extended thinking (Gemini's thoughts come as the same blocks).
    const anthropic = new AIMessage({
      content: [
        { type: "thinking", thinking: "Two cities.", signature: "c2lnbmVk" },
        { type: "text", text: "Checking both." },
        { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
      ],
      tool_calls: [{ id: "toolu_1", name: "weather", args: { city: "Paris" } }],
    });
    expect(reply(2, anthropic)).toEqual({ role: "ai", content: "Checking both.", reasoning: "Two cities.", toolCalls: [{ id: "toolu_1", name: "weather", args: '{\n  "city": "Paris"\n}' }] });
    const redacted = new AIMessage({ content: [{ type: "redacted_thinking", data: "opaque" }, { type: "thinking", thinking: "Done.", signature: "s" }, { type: "text", text: "Sunny." }] });
    expect(reply(3, redacted)).toEqual({ role: "ai", content: "Sunny.", reasoning: "[redacted thinking]\n\nDone." });
    // The Responses API's summary, and a Chat Completions server's reasoning_content.
    expect(reply(4, new AIMessage({ content: [{ type: "reasoning", reasoning: "Look it up." }, { type: "text", text: "Sunny." }] }))).toEqual({ role: "ai", content: "Sunny.", reasoning: "Look it up." });
    expect(reply(5, new AIMessage({ content: "", additional_kwargs: { reasoning: { type: "reasoning", summary: [{ type: "summary_text", text: "Summed up." }] } } }))).toEqual({ role: "ai", content: "", reasoning: "Summed up." });
    expect(reply(6, new AIMessage({ content: "Sunny.", additional_kwargs: { reasoning_content: "Think first." } }))).toEqual({ role: "ai", content: "Sunny.", reasoning: "Think first." });
    // No reasoning: no field; a tool_use block without a tool call to stand for it stays in the text.
    expect(reply(7, new AIMessage({ content: [{ type: "tool_use", id: "x", name: "weather", input: {} }] }))).toEqual({ role: "ai", content: '{\n  "type": "tool_use",\n  "id": "x",\n  "name": "weather",\n  "input": {}\n}' });
  });

  it("reads a sub-run's event and model call with their path and call ids", () => {
    const converter = new TraceEventConverter("r1");
    converter.convert(stored(1, { type: "start", runId: "r1", resumed: false, inputs: {} }));
    const action = json(converter.convert(stored(2, encodeRunEvent({ type: "action", iteration: 0, at: 1002, action: { tool: "lookup", toolInput: { q: "x" }, log: "" }, messages: [], subRun: ["researcher"], subRunCallIds: ["call_a"] }))));
    expect(action).toMatchObject({ type: "sub_run", seq: 2, path: ["researcher"], callIds: ["call_a"], event: { type: "action", tool: "lookup" } });
    const call = json(
      converter.convert(stored(3, { type: "model_call", iteration: 1, call: 1, durationMs: 4, inputCount: 3, inputDigest: "d", message: mapChatMessagesToStoredMessages([new AIMessage("found")])[0], subRun: ["researcher"], subRunCallIds: ["call_a"] })),
    );
    expect(call).toEqual({
      type: "sub_run",
      seq: 3,
      at: 1003,
      path: ["researcher"],
      callIds: ["call_a"],
      event: { type: "model_call", seq: 3, at: 1003, iteration: 1, call: 1, durationMs: 4, inputCount: 3, inputDigest: "d", reply: { role: "ai", content: "found" } },
    });
    // An older record: no call ids.
    const old = json(converter.convert(stored(4, encodeRunEvent({ type: "token", iteration: 0, text: "x", at: 1004, subRun: ["researcher"] }))));
    expect(old).toMatchObject({ type: "sub_run", path: ["researcher"] });
    expect(old).not.toHaveProperty("callIds");
  });

  it("keeps events it has no view for (with their data) and events it cannot read (saying why)", () => {
    const converter = new TraceEventConverter("r1");
    converter.convert(stored(1, { type: "start", runId: "r1", resumed: false, inputs: {} }));
    const interrupt = json(converter.convert(stored(2, { type: "interrupt", runId: "r1", interrupts: [{ id: "i1", tool: "delete_file", toolInput: { path: "/tmp/x" }, iteration: 0 }] })));
    expect(interrupt).toMatchObject({ type: "other", seq: 2, name: "interrupt" });
    expect(JSON.parse(interrupt.summary)).toMatchObject({ interrupts: [{ tool: "delete_file" }] });
    const corrupt = json(converter.convert(stored(3, { type: "step", iteration: 4, index: 1, observation: "x", durationMs: 1 })));
    expect(corrupt).toEqual({ type: "other", seq: 3, at: 1003, name: "step", error: "step 3 refers to action 1 of iteration 4, which is not recorded" });
  });

  it("shows a compaction with its summary, and what a middleware reported", () => {
    const converter = new TraceEventConverter("r1");
    converter.convert(stored(1, { type: "start", runId: "r1", resumed: false, inputs: {} }));
    const compaction = json(converter.convert(stored(2, encodeRunEvent({ type: "compaction", iteration: 3, middleware: "compactSteps", steps: 2, summary: "Read pages 0 and 1.", at: 1002 }))));
    expect(compaction).toEqual({ type: "other", seq: 2, at: 1002, name: "compaction", note: "compactSteps summarized the first 2 steps (iteration 3)", summary: "Read pages 0 and 1." });
    const reported = json(converter.convert(stored(3, encodeRunEvent({ type: "middleware", name: "modelFallback", iteration: 0, data: { fallback: 1 }, at: 1003 }))));
    expect(reported).toMatchObject({ type: "other", seq: 3, name: "middleware: modelFallback" });
    expect(JSON.parse(reported.note)).toEqual({ fallback: 1 });
  });

  it("notes a message sent to the run, and one that came as the run was ending", () => {
    const converter = new TraceEventConverter("r1");
    converter.convert(stored(1, { type: "start", runId: "r1", resumed: false, inputs: {} }));
    const joined = json(converter.convert(stored(2, encodeRunEvent({ type: "message", message: new HumanMessage("Also Rome."), iteration: 1, inboxSeq: 1, at: 1002 }))));
    expect(joined).toMatchObject({ type: "other", seq: 2, name: "message", note: "message sent to the run before iteration 2: Also Rome." });
    const late = json(converter.convert(stored(3, encodeRunEvent({ type: "message", message: new HumanMessage("And Oslo?"), iteration: 2, inboxSeq: 2, unanswered: true, at: 1003 }))));
    expect(late).toMatchObject({ type: "other", seq: 3, name: "message", note: "message sent to the run as it was ending (unanswered): And Oslo?" });
  });

  it("shows the images of a message sent to the run and of a paused call's input as images, never as base64", () => {
    const converter = new TraceEventConverter("r1");
    converter.convert(stored(1, { type: "start", runId: "r1", resumed: false, inputs: {} }));
    const png = `iVBORw0KGgo${"A".repeat(2000)}`;
    const image = { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } };
    const message = json(converter.convert(stored(2, encodeRunEvent({ type: "message", message: new HumanMessage({ content: [{ type: "text", text: "Look: " }, image] }), iteration: 1, inboxSeq: 1, at: 1002 }))));
    expect(message.note).toBe("message sent to the run before iteration 2: Look: [image 1: image/png, 1 KB]");
    expect(message.summary).toBe("Look: [image 1: image/png, 1 KB]");
    expect(message.images).toEqual([{ mime: "image/png", bytes: 1508, dataUrl: `data:image/png;base64,${png}` }]);
    const pause = json(converter.convert(stored(3, encodeRunEvent({ type: "interrupt", runId: "r1", interrupts: [{ id: "call-0-0", tool: "describe", toolInput: { picture: [image] }, iteration: 0, index: 0, reason: "approval" }], at: 1003 } as never))));
    expect(pause.note).toBe("waiting for approval of describe");
    expect(pause.paused).toEqual([{ iteration: 0, index: 0, reason: "approval" }]);
    expect(pause.summary).toContain("[image 1: image/png, 1 KB]");
    expect(JSON.stringify(pause.summary)).not.toContain(png);
    expect(pause.images).toHaveLength(1);
  });

  it("marks an event the store could not give, and a later event that depends on an unreadable one", () => {
    const converter = new TraceEventConverter("r1");
    converter.convert(stored(1, { type: "start", runId: "r1", resumed: false, inputs: {} }));
    expect(json(converter.convert({ seq: 2, at: 1001, error: "its data is not valid JSON (Unexpected token)" }))).toEqual({ type: "other", seq: 2, at: 1001, name: "event 2", error: "its data is not valid JSON (Unexpected token)" });
    const action = json(converter.convert(stored(3, { type: "action", iteration: 0, index: 0, action: "garbage" })));
    expect(action).toMatchObject({ type: "other", seq: 3, name: "action", error: "expected an encoded action" });
    const step = json(converter.convert(stored(4, { type: "step", iteration: 0, index: 0, observation: "x", durationMs: 1 })));
    expect(step).toMatchObject({ type: "other", seq: 4, name: "step", error: "step 4 refers to action 0 of iteration 0, which is not recorded" });
    expect(json(converter.convert(stored(5, { type: "token", iteration: 1, text: "go on" })))).toMatchObject({ type: "token", seq: 5, chars: 5 });
  });

  it("carries each priced call's cost, its model's name and, with recordPrompts, its exact request", async () => {
    const store = new MemoryRunStore();
    const lookup = tool(async ({ q }) => `found ${q}`, { name: "lookup", description: "Looks up.", schema: z.object({ q: z.string() }) });
    const llm = new ScriptedChatModel({
      model: "scripted-1",
      responses: [{ toolCalls: [{ name: "lookup", args: { q: "x" } }], usage: { inputTokens: 1000, outputTokens: 100 } }, { content: "42.", usage: { inputTokens: 2000, outputTokens: 10 } }],
    });
    const prompt = ChatPromptTemplate.fromMessages([["system", "Be brief."], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store, prices: { "scripted-1": { input: 2, output: 10 } } });
    await lastValueFrom(executor.stream({ input: "What?" }, { runId: "priced" }));
    const data = json(await readTracePage(store, "priced", { mode: "file", source: "test" }));
    const usages = data.events.filter((event: { type: string }) => event.type === "usage");
    expect(usages.map((event: { usage: { cost?: number }; model?: string }) => [event.usage.cost, event.model])).toEqual([
      [0.003, "scripted-1"], // 1,000 × $2 + 100 × $10 per million
      [0.0041, "scripted-1"],
    ]);
    // The requests, as readPrompts gives them: the messages (the system one too), the tools, the settings.
    // The page embeds each request by its parts (`requestRef`); the page's script rebuilds it.
    const prompts = await readPrompts(store, "priced");
    const withRequest = (page: TracePageData) => {
      const model = traceModelRuntime().createTrace(page.run, page.requestParts);
      return json(page.events.filter((event) => event.type === "model_call").map((event) => ({ ...event, request: traceRequestOf(model, event) })));
    };
    const calls = withRequest(data);
    expect(calls).toHaveLength(2);
    calls.forEach((call: { request: { hash: string; messages: { role: string; content: string }[]; tools: string; toolCount: number; settings: string } }, index: number) => {
      const recorded = prompts[index]!;
      expect(call.request.hash).toBe(recorded.hash);
      expect(call.request.messages.map((message) => message.role)).toEqual(recorded.messages.map((message) => (message as { type: string }).type));
      expect(JSON.parse(call.request.tools)).toEqual(recorded.tools);
      expect(call.request.toolCount).toBe(1);
      expect(call.request.settings === undefined ? undefined : JSON.parse(call.request.settings)).toEqual(recorded.settings); // this model reports none
    });
    expect(calls[0].request.messages.slice(0, 2)).toEqual([
      { role: "system", content: "Be brief." },
      { role: "human", content: "What?" },
    ]);
    expect(calls[1].request.messages.map((message: { role: string }) => message.role)).toEqual(["system", "human", "ai", "tool"]);
    // The requests have a budget of their own: a small one cuts them, not the run's other texts.
    const small = json(await readTracePage(store, "priced", { mode: "file", source: "test", requestBudget: 40 }));
    const cut = withRequest(small)[0].request.tools;
    expect(cut).toMatchObject({ length: calls[0].request.tools.length });
    expect(small.events.find((event: { type: string }) => event.type === "start").inputs).toBe(data.events[0].inputs);
  });
});
