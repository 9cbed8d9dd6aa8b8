import { EventSchemas } from "@ag-ui/core/schemas";
import { AbortError } from "@agentrx/core";
import { MemoryRunStore } from "@agentrx/runs";
import type { AgentStreamEvent } from "@agentrx/executors";
import { type Observable, concat, lastValueFrom, of, throwError, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { ANSWER, weatherExecutor } from "../test-helpers/weather-executor";
import { workExecutor, workTool } from "../test-helpers/work-executor";
import type { AGUIEvent, BaseEvent } from "./ag-ui-event";
import { toAGUIEvents } from "./to-ag-ui-events";

/** Every event must pass @ag-ui/core's own schema. */
function validated(events: BaseEvent[]): AGUIEvent[] {
  for (const event of events) EventSchemas.parse(event);
  return events as AGUIEvent[];
}

describe("toAGUIEvents", () => {
  it("maps a run with two tool calls to valid AG-UI events", async () => {
    const run$ = weatherExecutor().stream({ input: "Weather and time in Paris?" }, { runId: "run-1" });
    const events = validated(await lastValueFrom(toAGUIEvents(run$, { threadId: "t1", runId: "r1" }).pipe(toArray())));
    expect(events.map((event) => event.type)).toMatchInlineSnapshot(`
      [
        "RUN_STARTED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TOOL_CALL_RESULT",
        "STEP_FINISHED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "RUN_FINISHED",
      ]
    `);
    const text = events.flatMap((event) => (event.type === "TEXT_MESSAGE_CONTENT" ? [event.delta] : [])).join("");
    expect(text).toBe(`Let me check. ${ANSWER}`);
    expect(events.filter((event) => event.type === "TOOL_CALL_START")).toMatchObject([{ toolCallName: "get_weather" }, { toolCallName: "get_time" }]);
    expect(events.find((event) => event.type === "TOOL_CALL_ARGS")).toMatchObject({ delta: '{"city":"Paris"}' });
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", threadId: "t1", runId: "r1", result: ANSWER, outcome: { type: "success" }, usage: [{ totalTokens: expect.any(Number) }] });
  });

  it("reports a pause as a state snapshot and an interrupt outcome", async () => {
    const run$ = weatherExecutor({ approval: true, store: new MemoryRunStore() }).stream({ input: "Weather and time in Paris?" }, { runId: "run-2" });
    const events = validated(await lastValueFrom(toAGUIEvents(run$, { threadId: "t1", runId: "r2" }).pipe(toArray())));
    const snapshot = events.find((event) => event.type === "STATE_SNAPSHOT");
    expect(snapshot).toMatchObject({ snapshot: { agentrx: { runId: "run-2", status: "interrupted", interrupts: [{ tool: "get_time", toolInput: { city: "Paris" } }] } } });
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt", interrupts: [{ reason: "approval", toolCallId: expect.any(String), metadata: { tool: "get_time" } }] } });
    expect(events.at(-1)).not.toHaveProperty("result");
  });

  it("asks about a call in doubt (it may have run) differently from an approval", async () => {
    const interrupt = (reason: string, index: number) => ({ id: `call-0-${index}`, tool: "charge", toolInput: { cents: 5 }, iteration: 0, index, reason });
    const run$ = of(
      { type: "start", runId: "paid", inputs: {}, resumed: true, at: 1 },
      { type: "interrupt", runId: "paid", interrupts: [interrupt("approval", 0), interrupt("in_doubt", 1)], at: 2 },
      { type: "output", runId: "paid", output: "", returnValues: {}, stopReason: "interrupted", at: 3 },
    ) as unknown as Observable<AgentStreamEvent>;
    const events = validated(await lastValueFrom(toAGUIEvents(run$, { threadId: "t1", runId: "r3" }).pipe(toArray())));
    const finished = events.at(-1) as Extract<AGUIEvent, { type: "RUN_FINISHED" }>;
    const [approval, doubt] = (finished.outcome as { interrupts: { reason: string; message: string }[] }).interrupts;
    expect(approval).toMatchObject({ reason: "approval", message: 'Approve the call of charge with {"cents":5}?' });
    expect(doubt?.reason).toBe("in_doubt");
    expect(doubt?.message).toMatch(/may have run.*run it again.*reject.*result/);
  });

  it("ends a failed run with RUN_ERROR", async () => {
    const events = validated(await lastValueFrom(toAGUIEvents(throwError(() => new TypeError("boom")), { threadId: "t", runId: "r" }).pipe(toArray())));
    expect(events).toMatchObject([{ type: "RUN_STARTED" }, { type: "RUN_ERROR", message: "boom", code: "TypeError" }]);
  });

  it("gives RUN_ERROR the message of a thrown object that is not an Error (what HTTP and SDK clients throw)", async () => {
    const events = validated(await lastValueFrom(toAGUIEvents(throwError(() => ({ message: "quota exceeded", status: 429 })), { threadId: "t", runId: "r" }).pipe(toArray())));
    expect(events).toEqual([expect.objectContaining({ type: "RUN_STARTED" }), { type: "RUN_ERROR", message: "quota exceeded", timestamp: expect.any(Number) }]);
  });

  it("ends a failed run with RUN_ERROR even when onError throws, gives no text or rejects (the error's own text then, and no unhandled rejection)", async () => {
    const rejecting = (async () => {
      throw new Error("hook broke");
    }) as unknown as () => string;
    const hooks = [() => { throw new Error("hook broke"); }, () => undefined as unknown as string, () => "", rejecting];
    for (const onError of hooks) {
      const events = validated(await lastValueFrom(toAGUIEvents(throwError(() => new TypeError("boom")), { threadId: "t", runId: "r", onError }).pipe(toArray())));
      expect(events).toMatchObject([{ type: "RUN_STARTED" }, { type: "RUN_ERROR", message: "boom", code: "TypeError" }]);
    }
  });

  it("ends a cancelled run with RUN_FINISHED and a cancelled outcome, not RUN_ERROR", async () => {
    const controller = new AbortController();
    const run$ = weatherExecutor({ toolMs: 2_000 }).stream({ input: "Weather and time in Paris?" }, { runId: "run-c", signal: controller.signal });
    const events$ = toAGUIEvents(run$, { threadId: "t", runId: "r" });
    const all = lastValueFrom(events$.pipe(toArray()));
    setTimeout(() => controller.abort(), 200); // while the tools run
    const events = validated(await all);
    expect(events.some((event) => event.type === "TOOL_CALL_START")).toBe(true);
    expect(events.filter((event) => event.type === "RUN_ERROR")).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "cancelled" } });
    expect(events.at(-1)).not.toHaveProperty("result");
    expect(EventSchemas.parse(events.at(-1))).toMatchObject({ outcome: { type: "cancelled" } }); // @ag-ui/core reads it as cancelled
  });

  it("ends a run another process cancelled (store.cancelRun, agentrx ui's Cancel) the same way, as the record says", async () => {
    const store = new MemoryRunStore();
    const run$ = workExecutor(workTool({ slowMs: 5_000 }), [{ toolCalls: [{ name: "work", args: { name: "a" } }] }], { store, leaseMs: 300 }).stream({ input: "go" }, { runId: "run-x" });
    setTimeout(() => void store.cancelRun("run-x", { reason: "Cancelled by an operator.", at: Date.now() }), 100);
    const events = validated(await lastValueFrom(toAGUIEvents(run$, { threadId: "t", runId: "r" }).pipe(toArray())));
    expect(events.filter((event) => event.type === "RUN_ERROR")).toEqual([]);
    expect(events.find((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject({ content: "The run was cancelled before this call finished." });
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "cancelled" } });
    expect(await store.getRun("run-x")).toMatchObject({ status: "cancelled", error: "Cancelled by an operator." });
  });

  it("sums the cached and reasoning tokens of the usage events for a run that ends without the executor's total (cancelled)", async () => {
    const usage = (cached: number) => ({ input_tokens: 10, output_tokens: 4, total_tokens: 14, input_token_details: { cache_read: cached, cache_creation: 1 }, output_token_details: { reasoning: 2 } });
    const run$ = concat(
      of(
        { type: "start", runId: "run-u", inputs: {}, resumed: false, at: 1 },
        { type: "usage", iteration: 0, at: 2, usage: usage(3) },
        { type: "usage", iteration: 0, at: 3, subRun: ["researcher"], usage: usage(5) },
      ) as unknown as Observable<AgentStreamEvent>,
      throwError(() => new AbortError({ message: "stopped" })),
    );
    const events = validated(await lastValueFrom(toAGUIEvents(run$, { threadId: "t", runId: "r" }).pipe(toArray())));
    expect(events.at(-1)).toMatchObject({
      type: "RUN_FINISHED",
      outcome: { type: "cancelled" },
      usage: [{ inputTokens: 20, outputTokens: 8, totalTokens: 28, cachedInputTokens: 8, cacheWriteInputTokens: 2, reasoningTokens: 4 }],
    });
  });

  it("sends a text agent's string input as JSON, as every other input, so a client parses the arguments back", async () => {
    const action = { type: "action", iteration: 0, at: 0, action: { tool: "search", toolInput: 'Paris "centre"', log: "Action: search" } } as unknown as AgentStreamEvent;
    const events = validated(await lastValueFrom(toAGUIEvents(of(action), { threadId: "t", runId: "r" }).pipe(toArray())));
    const args = events.find((event) => event.type === "TOOL_CALL_ARGS") as { delta: string } | undefined;
    expect(JSON.parse(args?.delta ?? "")).toBe('Paris "centre"');
  });
});
