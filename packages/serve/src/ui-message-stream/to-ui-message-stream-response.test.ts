import { InvalidArgumentError } from "@agentrx/core";
import { MemoryRunStore, replayRun } from "@agentrx/runs";
import type { UIMessage } from "ai";
import type { AgentStreamEvent, RunUsage } from "@agentrx/executors";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { readUIMessage } from "../test-helpers/read-ui-message";
import { ANSWER, weatherExecutor } from "../test-helpers/weather-executor";
import { followRecordedRun } from "../runs/follow-recorded-run";
import { toUIMessageChunks } from "./to-ui-message-chunks";
import { toUIMessageStreamResponse } from "./to-ui-message-stream-response";
import { uiApprovalDecisions, type UIMessageLike } from "./ui-approval-decisions";

/** Reads a response the way useChat does, after checking its headers (see `readUIMessage`). */
async function readMessage(response: Response, message?: UIMessage, validate = true): Promise<UIMessage> {
  expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  return readUIMessage(response, message, validate);
}

const textOf = (message: UIMessage) => message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");

describe("toUIMessageStreamResponse, read by the ai package", () => {
  it("streams text parts, two tool parts with input and output, steps and the run's metadata", async () => {
    const executor = weatherExecutor();
    const message = await readMessage(toUIMessageStreamResponse(executor.stream({ input: "Weather and time in Paris?" }, { runId: "run-1" })));
    expect(message.role).toBe("assistant");
    expect(message.parts.map((part) => part.type)).toEqual(["step-start", "text", "dynamic-tool", "dynamic-tool", "step-start", "text"]);
    const tools = message.parts.filter((part) => part.type === "dynamic-tool");
    expect(tools).toMatchObject([
      { toolName: "get_weather", state: "output-available", input: { city: "Paris" }, output: "sunny in Paris" },
      { toolName: "get_time", state: "output-available", input: { city: "Paris" }, output: "14:05 in Paris" },
    ]);
    expect(textOf(message)).toBe(`Let me check. ${ANSWER}`);
    expect(message.metadata).toMatchObject({ runId: "run-1", stopReason: "finish", usage: { total_tokens: expect.any(Number) } });
  });

  it("maps the run's events to chunks in this order", async () => {
    const chunks = await lastValueFrom(weatherExecutor().stream({ input: "Weather and time in Paris?" }).pipe(toUIMessageChunks(), toArray()));
    expect(chunks.map((chunk) => chunk.type)).toMatchInlineSnapshot(`
      [
        "start",
        "start-step",
        "text-start",
        "text-delta",
        "text-delta",
        "text-delta",
        "message-metadata",
        "text-end",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-output-available",
        "tool-output-available",
        "finish-step",
        "start-step",
        "text-start",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-delta",
        "message-metadata",
        "text-end",
        "finish-step",
        "finish",
      ]
    `);
  });

  it("asks for approval the way the AI SDK's tool approval expects, and the decisions resume the run", async () => {
    const store = new MemoryRunStore();
    const executor = weatherExecutor({ approval: true, store });
    const paused = await readMessage(toUIMessageStreamResponse(executor.stream({ input: "Weather and time in Paris?" }, { runId: "run-2" })));
    const [weather, time] = paused.parts.filter((part) => part.type === "dynamic-tool");
    expect(weather).toMatchObject({ state: "output-available", output: "sunny in Paris" });
    expect(time).toMatchObject({ toolName: "get_time", state: "approval-requested", approval: { id: expect.any(String) } });
    expect(paused.metadata).toMatchObject({ runId: "run-2", stopReason: "interrupted" });

    // What useChat sends after addToolApprovalResponse({ id, approved: true }).
    const approved: UIMessage = { ...paused, parts: paused.parts.map((part) => (part === time && part.type === "dynamic-tool" && part.state === "approval-requested" ? { ...part, state: "approval-responded", approval: { ...part.approval, approved: true } } : part)) };
    const approvals = uiApprovalDecisions([{ id: "u1", role: "user", parts: [{ type: "text", text: "Weather and time in Paris?" }] }, approved]);
    expect(approvals).toEqual({ runId: "run-2", decisions: { [(time as { approval: { id: string } }).approval.id]: "approve" } });
    const resumed = await readMessage(toUIMessageStreamResponse(executor.resume(approvals!.runId, { decisions: approvals!.decisions })), approved);
    expect(resumed.parts.filter((part) => part.type === "dynamic-tool")).toMatchObject([
      { toolName: "get_weather", state: "output-available" },
      { toolName: "get_time", state: "output-available", output: "14:05 in Paris" },
    ]);
    expect(textOf(resumed)).toBe(`Let me check. ${ANSWER}`);
    expect(resumed.metadata).toMatchObject({ runId: "run-2", stopReason: "finish" });
    // The answer to the shown call joins its step: no empty step before the next one.
    expect(resumed.parts.map((part) => part.type)).toEqual(["step-start", "text", "dynamic-tool", "dynamic-tool", "step-start", "text"]);
  });

  it("shows a rejected call as denied (state output-denied) live, and as an error the AI SDK accepts when replayed", async () => {
    const store = new MemoryRunStore();
    const executor = weatherExecutor({ approval: true, store });
    const paused = await readMessage(toUIMessageStreamResponse(executor.stream({ input: "Weather and time in Paris?" }, { runId: "run-3" })));
    // What useChat sends after addToolApprovalResponse({ id, approved: false, reason: "no" }).
    const rejected: UIMessage = {
      ...paused,
      parts: paused.parts.map((part) => (part.type === "dynamic-tool" && part.state === "approval-requested" ? { ...part, state: "approval-responded", approval: { ...part.approval, approved: false, reason: "no" } } : part)),
    };
    const approvals = uiApprovalDecisions([rejected]);
    const resumed = await readMessage(toUIMessageStreamResponse(executor.resume(approvals!.runId, { decisions: approvals!.decisions })), rejected);
    expect(resumed.parts.filter((part) => part.type === "dynamic-tool").map((part) => [part.toolName, part.state])).toEqual([
      ["get_weather", "output-available"],
      ["get_time", "output-denied"],
    ]);
    // Replayed from the record: no chunk carries the person's answer (`approval.approved`), which the
    // `output-denied` state needs; the call is not asked again but ends as an error, and the message validates.
    const replayed = await readMessage(toUIMessageStreamResponse(replayRun(store, "run-3")));
    expect(replayed.parts.map((part) => part.type)).toEqual(["step-start", "text", "dynamic-tool", "dynamic-tool", "step-start", "text"]);
    expect(replayed.parts.filter((part) => part.type === "dynamic-tool").map((part) => [part.toolName, part.state, "errorText" in part ? part.errorText : undefined, "approval" in part ? part.approval : undefined])).toEqual([
      ["get_weather", "output-available", undefined, undefined],
      ["get_time", "output-error", "no", undefined],
    ]);
  });

  it("replays a run approved after a pause as one valid message, the call not asked again; a record that ends paused still asks", async () => {
    const store = new MemoryRunStore();
    const executor = weatherExecutor({ approval: true, store });
    const paused = await readMessage(toUIMessageStreamResponse(executor.stream({ input: "Weather and time in Paris?" }, { runId: "run-4" })));
    const replayedPause = await readMessage(toUIMessageStreamResponse(followRecordedRun(store, "run-4")));
    expect(replayedPause.parts).toEqual(paused.parts);
    const approvalId = (paused.parts.find((part) => part.type === "dynamic-tool" && part.state === "approval-requested") as { approval: { id: string } }).approval.id;
    await lastValueFrom(executor.resume("run-4", { decisions: { [approvalId]: "approve" } }).pipe(toArray()));
    for (const replayed of [await readMessage(toUIMessageStreamResponse(followRecordedRun(store, "run-4"))), await readMessage(toUIMessageStreamResponse(replayRun(store, "run-4")))]) {
      expect(replayed.parts.map((part) => part.type)).toEqual(["step-start", "text", "dynamic-tool", "dynamic-tool", "step-start", "text"]);
      expect(replayed.parts.filter((part) => part.type === "dynamic-tool")).toEqual([
        expect.objectContaining({ toolName: "get_weather", state: "output-available", output: "sunny in Paris" }),
        expect.not.objectContaining({ approval: expect.anything() }),
      ]);
      expect(replayed.parts[3]).toMatchObject({ toolName: "get_time", state: "output-available", output: "14:05 in Paris" });
      expect(textOf(replayed)).toBe(`Let me check. ${ANSWER}`);
    }
  });

  it("counts the earlier segments' usage in a resumed stream's metadata (earlierUsage), so the usage shown never drops", async () => {
    const store = new MemoryRunStore();
    const executor = weatherExecutor({ approval: true, store });
    const first = await lastValueFrom(executor.stream({ input: "Weather and time in Paris?" }, { runId: "run-5" }).pipe(toArray()));
    const interrupt = first.find((event) => event.type === "interrupt");
    const earlierUsage = (await store.getRun("run-5"))?.usage;
    expect(earlierUsage?.total_tokens).toBeGreaterThan(0);
    const decisions = { [interrupt?.type === "interrupt" ? (interrupt.interrupts[0]?.id as string) : ""]: "approve" as const };
    const chunks = await lastValueFrom(executor.resume("run-5", { decisions }).pipe(toUIMessageChunks({ earlierUsage }), toArray()));
    const totals = chunks.flatMap((chunk) => (chunk.type === "message-metadata" || chunk.type === "finish" ? [chunk.messageMetadata?.usage?.total_tokens] : []));
    const whole = (await store.getRun("run-5"))?.usage?.total_tokens;
    // Every count is the whole run's so far: above the paused run's, and the last one the run's total.
    expect(totals.length).toBeGreaterThan(1);
    for (const total of totals) expect(total).toBeGreaterThan(earlierUsage?.total_tokens as number);
    expect(totals.at(-2)).toBe(whole);
    expect(totals.at(-1)).toBe(whole);
    // Not a usage: refused at once, not summed into NaN.
    expect(() => toUIMessageChunks({ earlierUsage: { total_tokens: 5 } as never })).toThrow(
      "toUIMessageChunks: `earlierUsage` must be a usage with numbers `input_tokens`, `output_tokens` and `total_tokens` (a run's `usage`), got {\"total_tokens\":5}.",
    );
    expect(() => toUIMessageStreamResponse(executor.resume("run-5"), { earlierUsage: null as never })).toThrow(InvalidArgumentError);
  });

  it("keeps the whole usage, earlierUsage's and the events': token details and cost are summed, not dropped", async () => {
    const call = (input: number, cached: number, reasoning: number, dollars: number): RunUsage => ({
      input_tokens: input,
      output_tokens: 5,
      total_tokens: input + 5,
      input_token_details: { cache_read: cached },
      output_token_details: { reasoning },
      cost: { input: dollars, output: dollars, total: 2 * dollars, currency: "USD" },
    });
    const events = [
      { type: "start", runId: "run-u", at: 0, resumed: true },
      { type: "usage", iteration: 1, at: 1, usage: call(10, 4, 2, 0.01) },
      { type: "token", iteration: 1, at: 2, text: "Done." },
      { type: "output", runId: "run-u", at: 3, output: "Done.", stopReason: "finish" },
    ] as AgentStreamEvent[];
    const earlierUsage = call(20, 8, 3, 0.02);
    const chunks = await lastValueFrom(from(events).pipe(toUIMessageChunks({ earlierUsage }), toArray()));
    const shown = chunks.flatMap((chunk) => (chunk.type === "message-metadata" ? [chunk.messageMetadata.usage] : []));
    expect(shown).toEqual([
      {
        input_tokens: 30,
        output_tokens: 10,
        total_tokens: 40,
        input_token_details: { cache_read: 12 },
        output_token_details: { reasoning: 5 },
        cost: { input: 0.03, output: 0.03, total: 0.06, currency: "USD" },
      },
    ]);
    // The caller's usage is not changed by the sum.
    expect(earlierUsage.input_token_details).toEqual({ cache_read: 8 });
  });

  it("a rejection becomes a reject decision with the reason", () => {
    const decisions = uiApprovalDecisions([{ role: "assistant", metadata: { runId: "r" }, parts: [{ type: "dynamic-tool", state: "approval-responded", approval: { id: "call-0-1", approved: false, reason: "not now" } }] }]);
    expect(decisions).toEqual({ runId: "r", decisions: { "call-0-1": { type: "reject", message: "not now" } } });
    expect(uiApprovalDecisions([{ role: "user", parts: [] }])).toBeUndefined();
    expect(uiApprovalDecisions([])).toBeUndefined();
  });

  it("keeps an answer whose approval id is __proto__, for the run to refuse as one it never paused on, rather than dropping it", () => {
    const answer = (id: string) => ({ type: "dynamic-tool", state: "approval-responded", approval: { id, approved: true } });
    const decisions = uiApprovalDecisions([{ role: "assistant", metadata: { runId: "r" }, parts: [answer("__proto__"), answer("call-0-0")] }]);
    expect(Object.keys(decisions?.decisions ?? {})).toEqual(["__proto__", "call-0-0"]);
    expect(Object.getPrototypeOf(decisions?.decisions)).toBe(Object.prototype);
    expect(Object.keys(uiApprovalDecisions([{ role: "assistant", metadata: { runId: "r" }, parts: [answer("__proto__")] }])?.decisions ?? {})).toEqual(["__proto__"]);
  });

  it("uiApprovalDecisions refuses a body that is not a list of UI messages with an InvalidArgumentError naming what is wrong", () => {
    const read = (messages: unknown) => () => uiApprovalDecisions(messages as UIMessageLike[]);
    expect(read({ messages: [] })).toThrow("uiApprovalDecisions: `messages` must be an array of UI messages, got object.");
    expect(read([null])).toThrow("uiApprovalDecisions: the last message must be an object, got null.");
    expect(read([{ role: "assistant", metadata: { runId: "r" } }])).toThrow("uiApprovalDecisions: the last message's `parts` must be an array, got undefined.");
    expect(read([{ role: "assistant", metadata: { runId: "r" }, parts: [{ type: "dynamic-tool", state: "approval-responded", approval: { approved: true } }] }])).toThrow(
      "uiApprovalDecisions: the last message's part 0 answers an approval without an `approval.id` (a non-empty string).",
    );
    // An answer that is neither yes nor no is refused, not taken as a no.
    expect(read([{ role: "assistant", metadata: { runId: "r" }, parts: [{ type: "dynamic-tool", state: "approval-responded", approval: { id: "call-0-1" } }] }])).toThrow(
      "uiApprovalDecisions: the last message's part 0 answers approval call-0-1 without `approval.approved` (true or false), got undefined.",
    );
    expect(read([{ role: "assistant", metadata: { runId: "r" }, parts: [{ type: "dynamic-tool", state: "approval-responded", approval: { id: "call-0-1", approved: false, reason: 7 } }] }])).toThrow(
      "uiApprovalDecisions: the last message's part 0 gives approval call-0-1 a `reason` that is not a string (number).",
    );
    expect(read([{ role: "assistant", metadata: { runId: "r" }, parts: [null] }])).toThrow("uiApprovalDecisions: the last message's part 0 must be an object, got null.");
    // A user's last message too (its text is read next): `parts` that are not a list of objects are refused, not left to throw a TypeError.
    expect(read([{ id: "u1", role: "user", parts: "Refund order A1" }])).toThrow("uiApprovalDecisions: the last message's `parts` must be an array, got string.");
    expect(read([{ id: "u1", role: "user" }])).toThrow("uiApprovalDecisions: the last message's `parts` must be an array, got undefined.");
    expect(read([{ id: "u1", role: "user", parts: ["Refund order A1"] }])).toThrow("uiApprovalDecisions: the last message's part 0 must be an object, got string.");
    expect(read([{ role: "assistant", parts: [{ type: "text", text: "Hi" }] }, { id: "u1", role: "user", parts: [{ type: "text", text: "Refund order A1" }] }])).not.toThrow();
    expect(read([null])).toThrow(InvalidArgumentError);
  });

  it("ends a failing run with tool-output-error for the open calls and an error chunk", async () => {
    const chunks = await lastValueFrom(weatherExecutor({ failTool: true }).stream({ input: "Weather?" }).pipe(toUIMessageChunks({ onError: () => "The agent failed." }), toArray()));
    // get_weather failed, get_time was cancelled with it: both calls end in an error.
    expect(chunks.filter((chunk) => chunk.type === "tool-output-error")).toEqual([
      expect.objectContaining({ type: "tool-output-error", errorText: "The agent failed." }),
      expect.objectContaining({ type: "tool-output-error", errorText: "The agent failed." }),
    ]);
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: "The agent failed." });
    const response = toUIMessageStreamResponse(weatherExecutor({ failTool: true }).stream({ input: "Weather?" }));
    await expect(readMessage(response)).rejects.toThrow(/weather service down/);
    // A hook that throws (or gives no text) does not leave the stream open: the error's own text goes out.
    const broken = () => {
      throw new Error("hook broke");
    };
    const ended = await lastValueFrom(weatherExecutor({ failTool: true }).stream({ input: "Weather?" }).pipe(toUIMessageChunks({ onError: broken }), toArray()));
    expect(ended.at(-1)).toEqual({ type: "error", errorText: expect.stringMatching(/weather service down/) });
    const response2 = toUIMessageStreamResponse(weatherExecutor({ failTool: true }).stream({ input: "Weather?" }), { onError: () => undefined as unknown as string });
    await expect(readMessage(response2)).rejects.toThrow(/weather service down/);
    expect(() => toUIMessageChunks({ onError: "The agent failed." as never })).toThrow("toUIMessageChunks: `onError` must be a function `(error) => string`.");
  });

  it("ends a stream nobody reads with an error chunk once maxBufferedChunks are waiting", async () => {
    const response = toUIMessageStreamResponse(weatherExecutor({ answer: "word ".repeat(500) }).stream({ input: "Talk" }), { maxBufferedChunks: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const text = await response.text();
    const frames = text.split("\n\n").filter(Boolean);
    expect(frames.length).toBeLessThan(80);
    expect(frames.at(-2)).toContain("The client did not read the stream");
    expect(frames.at(-1)).toBe("data: [DONE]");
  });
});
