import { HttpAgent, verifyEvents } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, deferred } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { type Observable, lastValueFrom, tap, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { createAGUIHandler } from "./create-ag-ui-handler";
import type { AGUIEvent, BaseEvent } from "./ag-ui-event";
import { toAGUIEvents } from "./to-ag-ui-events";
import { inDoubtWorkExecutor, untaggedTurnExecutor, workExecutor, workPrompt, workTool } from "../test-helpers/work-executor";

afterEach(closeLoopback);

/** @ag-ui/client's HttpAgent on the executor's AG-UI endpoint: what a client sees of a run. */
async function clientOf(executor: AgentExecutor) {
  const url = await startLoopback(createAGUIHandler(executor));
  const agent = new HttpAgent({ url, threadId: "t1", initialMessages: [{ id: "u1", role: "user", content: "go" }] });
  const events: { type: string }[] = [];
  return { agent, events };
}

/** Runs the agent; returns what the client holds after it: its messages, the run's result and the tool calls it must answer itself. */
async function runClient(executor: AgentExecutor) {
  const { agent, events } = await clientOf(executor);
  let pending: string[] | undefined;
  const { result } = await agent.runAgent(
    { runId: "r1" },
    {
      onEvent: ({ event }) => void events.push(EventSchemas.parse(event)),
      onRunFinishedEvent: (params) => void (pending = params.outcome === "success" ? params.pendingToolCallIds : undefined),
    },
  );
  const assistantText = agent.messages.flatMap((message) => (message.role === "assistant" && typeof message.content === "string" ? [message.content] : [])).join("");
  const toolCalls = agent.messages.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []) : []));
  const toolResults = agent.messages.flatMap((message) => (message.role === "tool" ? [message] : []));
  return { result, pending, assistantText, toolCalls, toolResults, types: events.map((event) => event.type) };
}

describe("toAGUIEvents, with the executor's other features", () => {
  it("sends the answer of a returnDirect tool, or of force early stopping, as a text message after text the model wrote before its calls", async () => {
    const direct = await runClient(workExecutor(workTool({ returnDirect: true }), [{ content: "Working on it. ", toolCalls: [{ name: "work", args: { name: "a" } }] }]));
    expect(direct.result).toBe("a done");
    expect(direct.assistantText).toBe("Working on it. a done");

    const forced = workExecutor(workTool(), [{ content: "Working on it. ", toolCalls: [{ name: "work", args: { name: "a" } }] }], { maxIterations: 1, earlyStoppingMethod: "force", earlyStopOutput: "Stopped: too many steps." });
    expect((await runClient(forced)).assistantText).toBe("Working on it. Stopped: too many steps.");
  });

  it("answers the calls a run stopped before they finished (maxExecutionTime): the client is not left to answer them", async () => {
    const slow = workExecutor(workTool({ slowMs: 2_000 }), [{ toolCalls: [{ name: "work", args: { name: "a" } }, { name: "work", args: { name: "b" } }] }], { maxExecutionTime: 100 });
    const { pending, toolCalls, toolResults } = await runClient(slow);
    expect(toolCalls).toHaveLength(2);
    expect(pending).toEqual([]);
    expect(toolResults.map((message) => message.toolCallId)).toEqual(toolCalls.map((call) => call.id));
    expect(toolResults[0]?.content).toContain("max_execution_time");
  });

  it("shows a handled parsing error as a tool call with its result, not a result for an unknown call", async () => {
    const parsing = workExecutor(workTool(), [{ toolCalls: [{ name: "work", args: "{not json" }] }, "Done."], { handleParsingErrors: true });
    const { result, toolCalls, toolResults, types } = await runClient(parsing);
    expect(result).toBe("Done.");
    expect(toolResults).toHaveLength(1);
    expect(toolCalls.map((call) => call.id)).toEqual([toolResults[0]?.toolCallId]);
    expect(types.indexOf("TOOL_CALL_START")).toBeGreaterThan(-1);
    expect(types.indexOf("TOOL_CALL_START")).toBeLessThan(types.indexOf("TOOL_CALL_RESULT"));
  });
});

/**
 * An executor whose model calls `work` for `a` and `b` in one turn; each call waits for its
 * cancellation, but `b` throws `throws` (when given) once both have started. `started` resolves
 * when both calls run.
 */
function parallelWorkExecutor(throws?: unknown) {
  const started = deferred<void>();
  let running = 0;
  const work = tool(
    async ({ name }: { name: string }, config) => {
      if (++running === 2) started.resolve();
      await started.promise;
      if (name === "b" && throws !== undefined) throw throws;
      return new Promise<string>((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    },
    { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
  );
  const executor = workExecutor(work, [{ content: "Working. ", toolCalls: [{ name: "work", args: { name: "a" } }, { name: "work", args: { name: "b" } }] }, "Done."], { handleToolRuntimeErrors: false });
  return { executor, started: started.promise };
}

/** The events, checked by @ag-ui/core's schemas and @ag-ui/client's order rules (verifyEvents, on its own copy of rxjs). */
async function verified(events$: Observable<BaseEvent>): Promise<AGUIEvent[]> {
  const checked = verifyEvents(false)(events$ as never) as unknown as Observable<BaseEvent>;
  return (await lastValueFrom(checked.pipe(toArray()))).map((event) => EventSchemas.parse(event)) as AGUIEvent[];
}

describe("toAGUIEvents, a run cancelled or failed while its calls run", () => {
  it("answers each call a cancel cut off, before the step ends and the run finishes as cancelled", async () => {
    const { executor, started } = parallelWorkExecutor();
    const controller = new AbortController();
    const events = verified(toAGUIEvents(executor.stream({ input: "go" }, { signal: controller.signal }), { threadId: "t", runId: "r" }));
    await started;
    controller.abort();
    const all = await events;
    const calls = all.flatMap((event) => (event.type === "TOOL_CALL_START" ? [event.toolCallId] : []));
    expect(calls).toHaveLength(2);
    expect(all.slice(-4)).toMatchObject([
      ...calls.map((toolCallId) => ({ type: "TOOL_CALL_RESULT", toolCallId, messageId: `${toolCallId}-unfinished`, content: "The run was cancelled before this call finished.", role: "tool" })),
      { type: "STEP_FINISHED" },
      { type: "RUN_FINISHED", outcome: { type: "cancelled" } },
    ]);
  });

  it("answers each call a failure cut off with onError's text, before the step ends and RUN_ERROR", async () => {
    const { executor } = parallelWorkExecutor(new Error("quota exceeded"));
    const all = await verified(toAGUIEvents(executor.stream({ input: "go" }), { threadId: "t", runId: "r", onError: (error) => `Failed: ${(error as Error).message}` }));
    const calls = all.flatMap((event) => (event.type === "TOOL_CALL_START" ? [event.toolCallId] : []));
    expect(calls).toHaveLength(2);
    expect(all.slice(-4)).toMatchObject([
      ...calls.map((toolCallId) => ({ type: "TOOL_CALL_RESULT", toolCallId, content: "Failed: quota exceeded" })),
      { type: "STEP_FINISHED" },
      { type: "RUN_ERROR", message: "Failed: quota exceeded" },
    ]);
  });
});

describe("toAGUIEvents, with an executor as a tool (sub-runs)", () => {
  it("counts the sub-run's model calls in the usage of a run cancelled while the sub-run's tool runs", async () => {
    const usage = { inputTokens: 10, outputTokens: 5 };
    const slow = workTool({ slowMs: 2_000 });
    const researcherLlm = new ScriptedChatModel({ streaming: true, responses: [{ toolCalls: [{ name: "work", args: { name: "s" } }], usage }, { content: "Sub answer.", usage }] });
    const researcher = new AgentExecutor({ agent: createToolCallingAgent({ llm: researcherLlm, tools: [slow], prompt: workPrompt }), tools: [slow] });
    const supervisor = workExecutor(researcher.asTool({ name: "researcher", description: "Researches." }), [{ toolCalls: [{ name: "researcher", args: { input: "x" } }], usage }, "Top answer."]);
    const controller = new AbortController();
    const run$ = supervisor.stream({ input: "go" }, { signal: controller.signal });
    const all = lastValueFrom(toAGUIEvents(run$.pipe(tap((event) => event.type === "action" && event.subRun !== undefined && controller.abort())), { threadId: "t", runId: "r" }).pipe(toArray()));
    const events = await all;
    for (const event of events) EventSchemas.parse(event);
    // The supervisor's model call and the researcher's: 15 tokens each.
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" }, usage: [{ totalTokens: 30 }] });
  });
});

describe("toAGUIEvents, a resumed run", () => {
  it("shows a parsing error of a later turn as a call: only the paused turn's steps answer calls the client already has", async () => {
    const resumable = workExecutor(withApproval(workTool()), [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, { toolCalls: [{ name: "work", args: "{not json" }] }, "Done."], { store: new MemoryRunStore(), handleParsingErrors: true });
    const events$ = (run$: Observable<AgentStreamEvent>, runId: string) => lastValueFrom(toAGUIEvents(run$, { threadId: "t1", runId }).pipe(toArray<BaseEvent>())) as Promise<AGUIEvent[]>;
    const paused = await events$(resumable.stream({ input: "go" }, { runId: "paused" }), "r1");
    const finished = paused.at(-1) as unknown as { outcome: { type: string; interrupts: { id: string }[] } };
    expect(finished.outcome.type).toBe("interrupt");
    const decisions = { [finished.outcome.interrupts[0]?.id as string]: "approve" as const };
    const events = await events$(resumable.resume("paused", { decisions }), "r2");
    for (const event of events) EventSchemas.parse(event);
    const startedBefore = new Set(paused.flatMap((event) => (event.type === "TOOL_CALL_START" ? [event.toolCallId] : [])));
    const started = events.flatMap((event) => (event.type === "TOOL_CALL_START" ? [event.toolCallId] : []));
    const results = events.flatMap((event) => (event.type === "TOOL_CALL_RESULT" ? [event.toolCallId] : []));
    expect(results).toHaveLength(2);
    expect(startedBefore.has(results[0] as string)).toBe(true); // the approved call: the client has it
    expect(started).toEqual([results[1]]); // the parsing error's call is shown before its result
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", result: "Done." });
  });
});


describe("toAGUIEvents, a resumed run with a call in doubt (inDoubt: \"interrupt\")", () => {
  it("pauses about the call the client has, then answers it, with steps and tool calls in an order @ag-ui/client accepts", async () => {
    // A run cancelled while its one `work` call runs: the call has no recorded result, it is in doubt.
    const { executor, started, calls } = inDoubtWorkExecutor();
    const events$ = (run$: Observable<AgentStreamEvent>, runId: string) => lastValueFrom(toAGUIEvents(run$, { threadId: "t1", runId }).pipe(toArray<BaseEvent>()));
    // @ag-ui/client's HttpAgent, answered with each run's events as the handler sends them: it
    // verifies their order (verifyEvents) and builds the conversation from them.
    let next: BaseEvent[] = [];
    const fetch = async () => new Response(next.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });
    const agent = new HttpAgent({ url: "http://localhost/agui", threadId: "t1", initialMessages: [{ id: "u1", role: "user", content: "go" }], fetch });
    const run = async (events: BaseEvent[], params: Parameters<HttpAgent["runAgent"]>[0]) => {
      next = events;
      const seen: string[] = [];
      await agent.runAgent(params, { onEvent: ({ event }) => void seen.push(EventSchemas.parse(event).type) });
      return seen;
    };

    const controller = new AbortController();
    const live = events$(executor.stream({ input: "go" }, { runId: "pay", signal: controller.signal }), "r1");
    await started;
    controller.abort();
    const cancelled = (await live) as AGUIEvent[];
    // The cancel answers the call it cut off (the client has nothing left to answer).
    expect(await run(cancelled, { runId: "r1" })).toEqual(["RUN_STARTED", "STEP_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "STEP_FINISHED", "RUN_FINISHED"]);
    expect(cancelled.at(-1)).toMatchObject({ outcome: { type: "cancelled" } });
    const toolCallId = (cancelled.find((event) => event.type === "TOOL_CALL_START") as { toolCallId: string }).toolCallId;

    // Resumed, the run pauses at once about the call (no action in its stream): no step, no tool
    // call events, only the pause, which names the call the client has.
    const paused = (await events$(executor.resume("pay"), "r2")) as AGUIEvent[];
    expect(await run(paused, { runId: "r2" })).toEqual(["RUN_STARTED", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    expect(paused.at(-1)).toMatchObject({ outcome: { type: "interrupt", interrupts: [{ id: "call-0-0", reason: "in_doubt", toolCallId, metadata: { tool: "work", toolInput: { name: "a" } } }] } });
    expect(paused[1]).toMatchObject({ snapshot: { agentrx: { runId: "pay", status: "interrupted", interrupts: [{ id: "call-0-0", toolCallId }] } } });

    // Approved, the call runs first (its step, no action in this stream): its result answers the
    // client's call inside the paused agent call's step, and the next agent call has its own.
    const answered = (await events$(executor.resume("pay", { decisions: { "call-0-0": "approve" } }), "r3")) as AGUIEvent[];
    const types = await run(answered, { runId: "r3", resume: [{ interruptId: "call-0-0", status: "resolved", payload: "approve" }] });
    expect(types).toEqual(["RUN_STARTED", "STEP_STARTED", "TOOL_CALL_RESULT", "STEP_FINISHED", "STEP_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STEP_FINISHED", "RUN_FINISHED"]);
    expect(answered.filter((event) => event.type === "STEP_STARTED" || event.type === "STEP_FINISHED").map((event) => (event as { stepName: string }).stepName)).toEqual(["iteration 0", "iteration 0", "iteration 1", "iteration 1"]);
    expect(answered[2]).toMatchObject({ type: "TOOL_CALL_RESULT", toolCallId, content: "a done" });
    expect(answered.at(-1)).toMatchObject({ type: "RUN_FINISHED", result: "Done.", outcome: { type: "success" } });
    expect(calls()).toBe(2);

    // The client's conversation: the one call, the cancel's result and then the call's own (two
    // messages, each with its id), the answer.
    const toolCalls = agent.messages.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []) : []));
    expect(toolCalls.map((call) => call.id)).toEqual([toolCallId]);
    expect(agent.messages.filter((message) => message.role === "tool")).toMatchObject([
      { id: `${toolCallId}-unfinished`, toolCallId, content: "The run was cancelled before this call finished." },
      { id: `${toolCallId}-result`, toolCallId, content: "a done" },
    ]);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Done." });
  });
});

describe("toAGUIEvents, the usage of a resumed run", () => {
  it("reports only the model calls the resuming AG-UI run made, as @ag-ui/core's RUN_FINISHED.usage says, so the two runs add up to the whole", async () => {
    const store = new MemoryRunStore();
    const executor = workExecutor(workTool(), [{ toolCalls: [{ name: "work", args: { name: "a" } }], usage: { inputTokens: 100, outputTokens: 10 } }, { content: "Done.", usage: { inputTokens: 200, outputTokens: 20 } }], { store, needsApproval: () => true });
    const finished = async (events$: Observable<AgentStreamEvent>, runId: string) =>
      EventSchemas.parse((await lastValueFrom(toAGUIEvents(events$, { threadId: "t1", runId }).pipe(toArray<BaseEvent>()))).at(-1));
    expect(await finished(executor.stream({ input: "go" }, { runId: "usage-run" }), "g1")).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt" }, usage: [{ totalTokens: 110 }] });
    expect(await finished(executor.resume("usage-run", { decisions: { "call-0-0": "approve" } }), "g2")).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" }, usage: [{ inputTokens: 200, outputTokens: 20, totalTokens: 220 }] });
    expect((await store.getRun("usage-run"))?.usage).toMatchObject({ total_tokens: 330 }); // the record keeps the whole run's
  });
});

describe("toAGUIEvents, a resumed turn of calls without tool call ids", () => {
  it("sends an approved call's result for that call (named by its place in the turn), not for the turn's first call", async () => {
    const executor = untaggedTurnExecutor(new MemoryRunStore());
    const results = async (events$: Observable<AgentStreamEvent>) =>
      (await lastValueFrom(toAGUIEvents(events$, { threadId: "t1", runId: "pays" }).pipe(toArray<BaseEvent>())))
        .map((event) => EventSchemas.parse(event))
        .flatMap((event) => (event.type === "TOOL_CALL_RESULT" ? [[event.toolCallId, event.content]] : []));
    expect(await results(executor.stream({ input: "go" }, { runId: "pays" }))).toEqual([["pays-call-0-0", "worked 1"]]);
    expect(await results(executor.resume("pays", { decisions: { "call-0-1": "approve" } }))).toEqual([["pays-call-0-1", "paid 2"]]);
  });

  it("names them by the run too, so two runs of one thread never share a call id, and an interrupt names the call the client was shown", async () => {
    const executor = untaggedTurnExecutor(new MemoryRunStore());
    const events = async (runId: string) =>
      (await lastValueFrom(toAGUIEvents(executor.stream({ input: "go" }, { runId }), { threadId: "t1", runId }).pipe(toArray<BaseEvent>()))).map((event) => EventSchemas.parse(event));
    const [first, second] = [await events("first"), await events("second")];
    const callIds = (all: typeof first) => all.flatMap((event) => (event.type === "TOOL_CALL_START" ? [event.toolCallId] : []));
    expect(callIds(first)).toEqual(["first-call-0-0", "first-call-0-1"]);
    expect(callIds(second)).toEqual(["second-call-0-0", "second-call-0-1"]);
    // The pause on `pay` is the executor's interrupt `call-0-1`, about the call shown as `first-call-0-1`.
    expect(first.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt", interrupts: [{ id: "call-0-1", toolCallId: "first-call-0-1" }] } });
    const messageIds = [...first, ...second].flatMap((event) => (event.type === "TOOL_CALL_RESULT" || event.type === "TEXT_MESSAGE_START" ? [event.messageId] : []));
    expect(new Set(messageIds).size).toBe(messageIds.length);
  });
});
