import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { type UIMessage, readUIMessageStream, validateUIMessages } from "ai";
import { type Observable, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toUIMessageChunks } from "./to-ui-message-chunks";
import { uiApprovalDecisions } from "./ui-approval-decisions";
import type { UIMessageChunk } from "./ui-message-chunk";
import { inDoubtWorkExecutor, untaggedTurnExecutor, workExecutor, workPrompt, workTool } from "../test-helpers/work-executor";

/**
 * The chunks of a run, and the message the `ai` package's reader makes of them (validated),
 * continuing `shown` (a copy of it) when given, as useChat continues the message a page shows.
 */
async function read(events$: Observable<AgentStreamEvent>, shown?: UIMessage): Promise<{ chunks: UIMessageChunk[]; message: UIMessage }> {
  const chunks = await lastValueFrom(events$.pipe(toUIMessageChunks(), toArray()));
  return { chunks, message: await readChunks(chunks, shown) };
}

/** The message the `ai` package's reader makes of `chunks` (validated), continuing a copy of `shown` when given. */
async function readChunks(chunks: UIMessageChunk[], shown?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream: stream as never, terminateOnError: true, ...(shown ? { message: structuredClone(shown) } : {}) })) message = snapshot;
  if (message === undefined) throw new Error("no message");
  await validateUIMessages({ messages: [message] });
  return message;
}

const textOf = (message: UIMessage) => message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");

describe("toUIMessageChunks, with the executor's other features", () => {
  it("sends the answer of a returnDirect tool, or of force early stopping, as text after text the model wrote before its calls", async () => {
    const direct = workExecutor(workTool({ returnDirect: true }), [{ content: "Working on it. ", toolCalls: [{ name: "work", args: { name: "a" } }] }]);
    const { message } = await read(direct.stream({ input: "go" }));
    expect(message.metadata).toMatchObject({ stopReason: "return_direct" });
    expect(textOf(message)).toBe("Working on it. a done");

    const forced = workExecutor(workTool(), [{ content: "Working on it. ", toolCalls: [{ name: "work", args: { name: "a" } }] }], { maxIterations: 1, earlyStoppingMethod: "force", earlyStopOutput: "Stopped: too many steps." });
    const stopped = await read(forced.stream({ input: "go" }));
    expect(stopped.message.metadata).toMatchObject({ stopReason: "max_iterations" });
    expect(textOf(stopped.message)).toBe("Working on it. Stopped: too many steps.");
  });

  it("shows a call that failed (the tool threw; the model was told the error) as an output-error part, and the run goes on", async () => {
    const failing = workExecutor(workTool(), [{ toolCalls: [{ name: "work", args: { name: "a" } }, { name: "work", args: { name: 7 } }] }, "One worked."]);
    const { chunks, message } = await read(failing.stream({ input: "go" }));
    const errors = chunks.filter((chunk): chunk is Extract<UIMessageChunk, { type: "tool-output-error" }> => chunk.type === "tool-output-error");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.errorText).toMatch(/Invalid input for tool "work"/);
    const states = message.parts.filter((part) => part.type === "dynamic-tool").map((part) => (part as { state: string }).state);
    expect(states.sort()).toEqual(["output-available", "output-error"]);
    expect(textOf(message)).toBe("One worked.");
  });

  it("shows the message of an object a tool threw (handleToolRuntimeErrors: false) as the error's text, not [object Object]", async () => {
    const quota = tool(
      async (_: { name: string }) => {
        throw { message: "quota exceeded", status: 429 }; // what HTTP and SDK clients throw
      },
      { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
    );
    const failing = workExecutor(quota, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }], { handleToolRuntimeErrors: false });
    const chunks = await lastValueFrom(failing.stream({ input: "go" }).pipe(toUIMessageChunks(), toArray()));
    expect(chunks.slice(-3)).toMatchObject([{ type: "tool-output-error", errorText: "quota exceeded" }, { type: "finish-step" }, { type: "error", errorText: "quota exceeded" }]);
  });

  it("does not send a streamed answer twice (generate early stopping streams its own answer)", async () => {
    const generating = workExecutor(workTool(), [{ content: "Working on it. ", toolCalls: [{ name: "work", args: { name: "a" } }] }, "Here is what I found."], { maxIterations: 1, earlyStoppingMethod: "generate" });
    const { message } = await read(generating.stream({ input: "go" }));
    expect(textOf(message)).toBe("Working on it. Here is what I found.");
  });

  it("ends the calls a run stopped before they finished (maxExecutionTime) with tool-output-error, not open parts", async () => {
    const slow = workExecutor(workTool({ slowMs: 2_000 }), [{ toolCalls: [{ name: "work", args: { name: "a" } }, { name: "work", args: { name: "b" } }] }], { maxExecutionTime: 100 });
    const { chunks, message } = await read(slow.stream({ input: "go" }));
    expect(message.metadata).toMatchObject({ stopReason: "max_execution_time" });
    const tools = message.parts.filter((part) => part.type === "dynamic-tool");
    expect(tools.map((part) => [part.toolName, part.state])).toEqual([
      ["work", "output-error"],
      ["work", "output-error"],
    ]);
    expect(tools[0]).toMatchObject({ errorText: expect.stringContaining("max_execution_time") });
    // The errors come before the step ends and the message finishes.
    const types = chunks.map((chunk) => chunk.type);
    expect(types.lastIndexOf("tool-output-error")).toBeLessThan(types.lastIndexOf("finish-step"));
  });
});

describe("toUIMessageChunks, a cancelled run", () => {
  it("ends with an abort chunk, as the AI SDK ends an aborted response, not an error; the call it cut off ends too", async () => {
    const controller = new AbortController();
    const slow = workExecutor(workTool({ slowMs: 2_000 }), [{ toolCalls: [{ name: "work", args: { name: "a" } }] }]);
    setTimeout(() => controller.abort(), 100);
    const { chunks, message } = await read(slow.stream({ input: "go" }, { signal: controller.signal }));
    const types = chunks.map((chunk) => chunk.type);
    expect(types).not.toContain("error");
    expect(types.slice(-3)).toEqual(["tool-output-error", "finish-step", "abort"]);
    expect(message.parts.filter((part) => part.type === "dynamic-tool")).toMatchObject([{ state: "output-error", errorText: "The run was cancelled before this call finished." }]);
  });

  it("ends with an abort chunk too when another process cancels the run (store.cancelRun, agentrx ui's Cancel), as the record says", async () => {
    const store = new MemoryRunStore();
    const slow = workExecutor(workTool({ slowMs: 5_000 }), [{ toolCalls: [{ name: "work", args: { name: "a" } }] }], { store, leaseMs: 300 });
    setTimeout(() => void store.cancelRun("cancelled-elsewhere", { reason: "Cancelled by an operator.", at: Date.now() }), 100);
    const { chunks, message } = await read(slow.stream({ input: "go" }, { runId: "cancelled-elsewhere" }));
    const types = chunks.map((chunk) => chunk.type);
    expect(types).not.toContain("error");
    expect(types.slice(-3)).toEqual(["tool-output-error", "finish-step", "abort"]);
    expect(message.parts.filter((part) => part.type === "dynamic-tool")).toMatchObject([{ state: "output-error", errorText: "The run was cancelled before this call finished." }]);
    expect(await store.getRun("cancelled-elsewhere")).toMatchObject({ status: "cancelled", error: "Cancelled by an operator." });
  });
});

describe("toUIMessageChunks, with an executor as a tool (sub-runs)", () => {
  it("shows the sub-run as one tool call, and counts its model calls in the usage so far", async () => {
    const usage = { inputTokens: 10, outputTokens: 5 };
    const work = workTool();
    const researcherLlm = new ScriptedChatModel({ streaming: true, responses: [{ toolCalls: [{ name: "work", args: { name: "s" } }], usage }, { content: "Sub answer.", usage }] });
    const researcher = new AgentExecutor({ agent: createToolCallingAgent({ llm: researcherLlm, tools: [work], prompt: workPrompt }), tools: [work] });
    const research = researcher.asTool({ name: "researcher", description: "Researches." });
    const supervisor = workExecutor(research, [{ toolCalls: [{ name: "researcher", args: { input: "x" } }], usage }, { content: "Top answer.", usage }]);
    const { chunks, message } = await read(supervisor.stream({ input: "go" }));
    expect(message.parts.filter((part) => part.type === "dynamic-tool")).toMatchObject([{ toolName: "researcher", state: "output-available", output: "Sub answer." }]);
    expect(textOf(message)).toBe("Top answer.");
    const totals = chunks.flatMap((chunk) => (chunk.type === "message-metadata" ? [chunk.messageMetadata.usage?.total_tokens] : []));
    // Four model calls of 15 tokens: the supervisor's two and the researcher's two.
    expect(message.metadata).toMatchObject({ usage: { total_tokens: 60 } });
    expect(totals.at(-1)).toBe(60);
    expect(totals).toEqual([...totals].sort((a, b) => (a ?? 0) - (b ?? 0)));
  });
});

describe("toUIMessageChunks, a resumed run", () => {
  it("shows a parsing error of a later turn as a call: only the paused turn's steps answer calls the client already shows", async () => {
    const store = new MemoryRunStore();
    const work = withApproval(workTool());
    const resumable = workExecutor(work, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, { toolCalls: [{ name: "work", args: "{not json" }] }, "Done."], { store, handleParsingErrors: true });
    const paused = await read(resumable.stream({ input: "go" }, { runId: "paused" }));
    expect(paused.message.metadata).toMatchObject({ stopReason: "interrupted" });
    const interrupt = paused.chunks.find((chunk) => chunk.type === "tool-approval-request") as { approvalId: string };
    const chunks = await lastValueFrom(resumable.resume("paused", { decisions: { [interrupt.approvalId]: "approve" } }).pipe(toUIMessageChunks(), toArray()));
    const outputs = chunks.filter((chunk): chunk is Extract<UIMessageChunk, { type: "tool-output-available" }> => chunk.type === "tool-output-available");
    expect(outputs).toHaveLength(2);
    const shownBefore = new Set(paused.chunks.flatMap((chunk) => (chunk.type === "tool-input-start" ? [chunk.toolCallId] : [])));
    const shownNow = chunks.flatMap((chunk) => (chunk.type === "tool-input-start" ? [chunk.toolCallId] : []));
    // The approved call's answer goes to the part the client has; the parsing error's call is shown first.
    expect(shownBefore.has(outputs[0]?.toolCallId as string)).toBe(true);
    expect(shownNow).toEqual([outputs[1]?.toolCallId]);
    // The AI SDK's reader, continuing the paused message, accepts every chunk.
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    let message: UIMessage | undefined;
    for await (const snapshot of readUIMessageStream({ message: paused.message, stream: stream as never, terminateOnError: true })) message = snapshot;
    expect(message?.parts.filter((part) => part.type === "dynamic-tool").map((part) => (part as { state: string }).state)).toEqual(["output-available", "output-available"]);
    expect(textOf(message as UIMessage)).toBe("Done.");
  });
});

describe("toUIMessageChunks, a resumed run with a call in doubt (inDoubt: \"interrupt\")", () => {
  /**
   * A run cancelled while its one `work` call runs (the first call waits for the cancellation; a
   * later one answers at once): the call has no recorded result, so it is in doubt. Returns the
   * executor and the message the page shows of the cancelled run.
   */
  async function cancelledMidCall() {
    const { executor, store, started, calls } = inDoubtWorkExecutor();
    const controller = new AbortController();
    const live = read(executor.stream({ input: "go" }, { runId: "pay", signal: controller.signal }));
    await started;
    controller.abort();
    const { chunks, message } = await live;
    expect(chunks.at(-1)).toEqual({ type: "abort" });
    expect((await store.getRun("pay"))?.status).toBe("cancelled");
    const toolCallId = (chunks.find((chunk) => chunk.type === "tool-input-start") as { toolCallId: string }).toolCallId;
    return { executor, shown: message, toolCallId, calls };
  }

  const toolParts = (message: UIMessage) => message.parts.filter((part) => part.type === "dynamic-tool");

  it("asks about the call on the part the page shows, with no step of its own, when the resumed run pauses at once (no action in its stream)", async () => {
    const { executor, shown, toolCallId } = await cancelledMidCall();
    expect(toolParts(shown)).toMatchObject([{ toolCallId, state: "output-error", errorText: "The run was cancelled before this call finished." }]);
    const chunks = await lastValueFrom(executor.resume("pay").pipe(toUIMessageChunks(), toArray()));
    // The call is shown again (its part may be gone from a reloaded page) and asked about; no step
    // opens, so a page that shows the part updates it in place rather than adding a second one.
    expect(chunks.map((chunk) => chunk.type)).toEqual(["start", "tool-input-start", "tool-input-delta", "tool-input-available", "tool-approval-request", "finish"]);
    expect(chunks.slice(1, 5)).toMatchObject([{ toolCallId }, { toolCallId }, { toolCallId, input: { name: "a" } }, { toolCallId, approvalId: "call-0-0" }]);
    expect(chunks.at(-1)).toMatchObject({ finishReason: "tool-calls", messageMetadata: { runId: "pay", stopReason: "interrupted" } });
    // The page that showed the cancelled run: its one part is now asked about.
    const continued = await readChunks(chunks, shown);
    expect(continued.id).toBe(shown.id);
    expect(continued.parts.map((part) => part.type)).toEqual(["step-start", "dynamic-tool"]);
    expect(toolParts(continued)).toMatchObject([{ toolCallId, toolName: "work", state: "approval-requested", input: { name: "a" }, approval: { id: "call-0-0" } }]);
    // A page that never saw the run (another device): the call, asked about.
    const fresh = await readChunks(chunks);
    expect(fresh.parts).toMatchObject([{ type: "dynamic-tool", toolCallId, state: "approval-requested", approval: { id: "call-0-0" } }]);
  });

  it("answers the approved call on its part, then opens the next agent call's step, when the resumed run starts with that call's step (no action in its stream)", async () => {
    const { executor, shown, toolCallId, calls } = await cancelledMidCall();
    const asked = await readChunks(await lastValueFrom(executor.resume("pay").pipe(toUIMessageChunks(), toArray())), shown);
    // The person approves in useChat (addToolApprovalResponse): the part's approval is answered.
    const answered: UIMessage = { ...asked, parts: asked.parts.map((part) => (part.type === "dynamic-tool" && part.state === "approval-requested" ? { ...part, state: "approval-responded", approval: { id: part.approval.id, approved: true } } : part)) };
    const approvals = uiApprovalDecisions([answered]);
    expect(approvals).toEqual({ runId: "pay", decisions: { "call-0-0": "approve" } });
    const { chunks, message } = await read(executor.resume("pay", { decisions: approvals?.decisions ?? {} }), answered);
    expect(calls()).toBe(2); // run again, as approved
    expect(chunks.map((chunk) => chunk.type)).toEqual(["start", "tool-output-available", "start-step", "text-start", "text-delta", "message-metadata", "text-end", "finish-step", "finish"]);
    expect(chunks[1]).toEqual({ type: "tool-output-available", toolCallId, output: "a done", dynamic: true });
    expect(message.parts.map((part) => part.type)).toEqual(["step-start", "dynamic-tool", "step-start", "text"]);
    expect(toolParts(message)).toMatchObject([{ toolCallId, state: "output-available", output: "a done", approval: { id: "call-0-0", approved: true } }]);
    expect(textOf(message)).toBe("Done.");
    expect(message.metadata).toMatchObject({ runId: "pay", stopReason: "finish" });
  });
});

describe("toUIMessageChunks, a resumed turn of calls without tool call ids", () => {
  it("answers an approved call on its own part (named by its place in the turn), not on the turn's first call", async () => {
    const executor = untaggedTurnExecutor(new MemoryRunStore());
    const paused = await read(executor.stream({ input: "go" }, { runId: "pays" }));
    expect(toolParts(paused.message).map((part) => [part.toolCallId, part.toolName, part.state])).toEqual([
      ["call-0-0", "work", "output-available"],
      ["call-0-1", "pay", "approval-requested"],
    ]);
    const answered: UIMessage = { ...paused.message, parts: paused.message.parts.map((part) => (part.type === "dynamic-tool" && part.state === "approval-requested" ? { ...part, state: "approval-responded", approval: { id: part.approval.id, approved: true } } : part)) };
    const approvals = uiApprovalDecisions([answered]);
    expect(approvals).toEqual({ runId: "pays", decisions: { "call-0-1": "approve" } });
    const { chunks, message } = await read(executor.resume("pays", { decisions: approvals?.decisions ?? {} }), answered);
    expect(chunks.find((chunk) => chunk.type === "tool-output-available")).toEqual({ type: "tool-output-available", toolCallId: "call-0-1", output: "paid 2", dynamic: true });
    expect(toolParts(message).map((part) => [part.toolCallId, part.state, (part as { output?: unknown }).output])).toEqual([
      ["call-0-0", "output-available", "worked 1"],
      ["call-0-1", "output-available", "paid 2"],
    ]);
    expect(textOf(message)).toBe("Both done.");
  });
});

const toolParts = (message: UIMessage) => message.parts.filter((part): part is Extract<UIMessage["parts"][number], { type: "dynamic-tool" }> => part.type === "dynamic-tool");
