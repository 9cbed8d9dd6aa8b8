import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunInfo, type RunWrite, type StoredRunEvent } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { keptTrace } from "./segment-link";
import { tracing } from "./test-tracing";

// What a run's record keeps of its last traced segment when a later segment is not traced, or
// stops before it writes its own: see docs/telemetry.md, "The spans".

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, { name: "weather", description: "Tells the weather.", schema: z.object({ city: z.string() }) });


const agentSpans = (exporter: InMemorySpanExporter) => exporter.getFinishedSpans().filter((span) => span.name === "invoke_agent");
const traceparent = (span: ReadableSpan) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;
const linkTo = (span: ReadableSpan) => [{ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, traceFlags: 1, isRemote: true }];

afterEach(() => {
  trace.disable();
});

describe("telemetry: the last traced segment, kept across the others", () => {
  it("keeps a segment's own traceparent when it has one, else the valid one its record held, and never one that is not valid", () => {
    const held = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const own = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let started: string | undefined;
    const segment = { traceparent: () => started };
    expect(keptTrace(undefined, undefined)).toBeUndefined();
    expect(keptTrace(undefined, "garbage")).toBeUndefined();
    expect(keptTrace(segment, "garbage")).toBe(segment);
    expect(keptTrace(undefined, held)?.traceparent()).toBe(held);
    const kept = keptTrace(segment, held);
    // Before the segment's span starts, the one held; after, its own.
    expect(kept?.traceparent()).toBe(held);
    started = own;
    expect(kept?.traceparent()).toBe(own);
  });

  it("keeps the last traced segment's traceparent through an untraced segment, so the next traced one links to it", async () => {
    const { exporter, tracer } = tracing();
    const store = new InProcessRunStore();
    const llm = new ScriptedChatModel({
      responses: [{ toolCalls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }] }, { toolCalls: [{ id: "call_2", name: "weather", args: { city: "Rome" } }] }, "Sunny in both."],
    });
    const agent = createToolCallingAgent({ llm, tools: [weather], prompt });
    const options = { agent, tools: [weather], needsApproval: () => true, store };
    const traced = new AgentExecutor({ ...options, telemetry: { tracer } });
    const untraced = new AgentExecutor(options);

    const first = await traced.invoke({ input: "Weather in Paris and Rome?" }, { runId: "run" });
    const [firstSpan] = agentSpans(exporter);
    // The second segment, untraced, pauses again: its writes keep the first segment's traceparent.
    const second = await untraced.resume("run", { decisions: { [first.interrupts![0]!.id]: "approve" } });
    expect(second.interrupts).toHaveLength(1);
    expect((await store.getRun("run"))?.checkpoint?.traceparent).toBe(traceparent(firstSpan!));
    const third = await traced.resume("run", { decisions: { [second.interrupts![0]!.id]: "approve" } });
    expect(third.output).toBe("Sunny in both.");
    const spans = agentSpans(exporter);
    expect(spans).toHaveLength(2);
    expect(spans[1]!.links.map((link) => link.context)).toEqual(linkTo(firstSpan!));
    expect((await store.getRun("run"))?.checkpoint?.traceparent).toBe(traceparent(spans[1]!));
  });

  it("gives a fork's record its source's last traceparent with the copy, so a fork resumed after its process stopped before writing links to that span", async () => {
    const { exporter, tracer } = tracing();
    /** A store that keeps the fork's record as its first write (the copy) left it: what a process that stopped there would leave. */
    class CopyKeepingStore extends InProcessRunStore {
      copy: { info: RunInfo; events: StoredRunEvent[] } | undefined;
      override async write(runId: string, write: RunWrite) {
        const result = await super.write(runId, write);
        if (runId === "fork" && this.copy === undefined) this.copy = { info: (await this.getRun(runId))!, events: await this.readEvents(runId) };
        return result;
      }
    }
    const store = new CopyKeepingStore();
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }] }, "It is sunny in Paris.", "Forked answer."] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], needsApproval: () => true, store, telemetry: { tracer } });
    const paused = await executor.invoke({ input: "Weather in Paris?" }, { runId: "source" });
    await executor.resume("source", { decisions: { [paused.interrupts![0]!.id]: "approve" } });
    const [, sourceSpan] = agentSpans(exporter);
    await executor.fork("source", { at: 1, runId: "fork" });
    const { info, events } = store.copy!;
    expect(info.checkpoint?.traceparent).toBe(traceparent(sourceSpan!));

    // The copy, as a fork left `running` by a process whose lease has lapsed before its segment wrote anything.
    const stopped = new InProcessRunStore();
    const at = Date.now() - 60_000;
    await stopped.createRun({ runId: "fork", inputs: info.inputs, status: "running", owner: "gone", leaseMs: 1, forkOf: info.forkOf!, at });
    await stopped.write("fork", { owner: "gone", leaseMs: 1, events, update: { checkpoint: info.checkpoint! }, at });
    exporter.reset();
    const again = new AgentExecutor({ agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses: ["Forked again."] }), tools: [weather], prompt }), tools: [weather], telemetry: { tracer } });
    expect((await again.resume("fork", { store: stopped })).output).toBe("Forked again.");
    const [resumed] = agentSpans(exporter);
    expect(resumed!.links.map((link) => link.context)).toEqual(linkTo(sourceSpan!));
  });
});
