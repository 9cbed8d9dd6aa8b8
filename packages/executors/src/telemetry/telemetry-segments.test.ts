import { createToolCallingAgent } from "@agentrx/agents";
import { markObservesModelCalls, takeModelCallObserver } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type StoredRunEvent } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { trace } from "@opentelemetry/api";
import { type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { collect } from "../executor/test-helpers";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { linksTo, traceparentOf } from "./segment-link";
import { tracing } from "./test-tracing";

// A streamed model call's time to first chunk, and the links between the spans of one run's
// segments (paused and resumed, or left by a process that stopped), and from a fork to its
// source run: see docs/telemetry.md.

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);


const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, { name: "weather", description: "Tells the weather.", schema: z.object({ city: z.string() }) });
const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const traceparent = (span: ReadableSpan) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

/** An agent that does not report its model calls: traced through callbacks. */
function silentAgent(model: ScriptedChatModel) {
  return RunnableLambda.from(async (input: { input: string }, options) => {
    const reply = await model.invoke([new HumanMessage(input.input)], options);
    return { returnValues: { output: String(reply.content) }, log: "" };
  });
}

afterEach(() => {
  trace.disable();
});

describe("telemetry: time to first chunk", () => {
  it("records gen_ai.request.stream and gen_ai.response.time_to_first_chunk on a streamed model call, on both paths; none on a call that did not stream", async () => {
    for (const path of ["observed", "callbacks"] as const) {
      for (const mode of ["stream", "invoke"] as const) {
        const { exporter, tracer } = tracing();
        const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }] }, "It is sunny in Paris."] });
        const agent = path === "observed" ? createToolCallingAgent({ llm, tools: [weather], prompt }) : silentAgent(llm);
        const executor = new AgentExecutor({ agent, tools: [weather], telemetry: { tracer } });
        if (mode === "stream") await collect(executor.stream({ input: "Weather in Paris?" }));
        else await executor.invoke({ input: "Weather in Paris?" });
        const chats = byName(exporter.getFinishedSpans(), "chat ScriptedChatModel");
        expect(chats.length, `${path} ${mode}`).toBeGreaterThan(0);
        for (const chat of chats) {
          const seconds = chat.attributes["gen_ai.response.time_to_first_chunk"];
          if (mode === "stream") {
            expect(chat.attributes["gen_ai.request.stream"], `${path} ${mode}`).toBe(true);
            expect(typeof seconds, `${path} ${mode}`).toBe("number");
            expect(seconds as number, `${path} ${mode}`).toBeGreaterThanOrEqual(0);
          } else {
            expect(chat.attributes["gen_ai.request.stream"], `${path} ${mode}`).toBeUndefined();
            expect(seconds, `${path} ${mode}`).toBeUndefined();
          }
        }
      }
    }
  });

  it("takes the first chunk's time an agent reports with its model call (ObservedModelCall.firstChunkAt), in seconds from the call's start", async () => {
    const { exporter, tracer } = tracing();
    const model = new ScriptedChatModel({ responses: ["hi", "hi"] });
    let call = 0;
    const agent = markObservesModelCalls(
      RunnableLambda.from(async (input: { input: string }, options) => {
        const { observer, config } = takeModelCallObserver(options);
        const sent = [new HumanMessage(input.input)];
        const reply = await model.invoke(sent, config);
        // The first call streamed (its first chunk 250 ms after its start), the second did not.
        observer?.({ input: sent, output: reply, startedAt: 1_000, model, ...(call++ === 0 ? { firstChunkAt: 1_250 } : {}) });
        return { returnValues: { output: String(reply.content) }, log: "" };
      }),
    );
    const executor = new AgentExecutor({ agent, tools: [], telemetry: { tracer } });
    await executor.invoke({ input: "hello" });
    await executor.invoke({ input: "hello" });
    const [streamed, whole] = byName(exporter.getFinishedSpans(), "chat ScriptedChatModel");
    expect(streamed?.attributes).toMatchObject({ "gen_ai.request.stream": true, "gen_ai.response.time_to_first_chunk": 0.25 });
    expect(whole?.attributes["gen_ai.request.stream"]).toBeUndefined();
    expect(whole?.attributes["gen_ai.response.time_to_first_chunk"]).toBeUndefined();
  });
});

describe("telemetry: a run's segments", () => {
  it("links a resumed run's span to the span of the segment it paused in, on both paths; its record keeps that span's traceparent", async () => {
    for (const path of ["observed", "callbacks"] as const) {
      const { exporter, tracer } = tracing();
      const store = new InProcessRunStore();
      const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }] }, "It is sunny in Paris."] });
      const agent = path === "observed" ? createToolCallingAgent({ llm, tools: [weather], prompt }) : weatherTurns();
      const executor = new AgentExecutor({ agent, tools: [weather], needsApproval: () => true, store, telemetry: { tracer } });
      const paused = await executor.invoke({ input: "Weather in Paris?" }, { runId: `run-${path}` });
      expect(paused.interrupts, path).toHaveLength(1);
      const [first] = byName(exporter.getFinishedSpans(), "invoke_agent");
      expect((await store.getRun(`run-${path}`))?.checkpoint?.traceparent, path).toBe(traceparent(first!));
      await executor.resume(`run-${path}`, { decisions: { [paused.interrupts![0]!.id]: "approve" } });
      const agents = byName(exporter.getFinishedSpans(), "invoke_agent");
      expect(agents, path).toHaveLength(2);
      const [, second] = agents;
      // A trace of its own (no span was active at resume), linked to the paused segment's span.
      expect(second!.spanContext().traceId, path).not.toBe(first!.spanContext().traceId);
      expect(second!.links.map((link) => link.context), path).toEqual([{ traceId: first!.spanContext().traceId, spanId: first!.spanContext().spanId, traceFlags: 1, isRemote: true }]);
      expect(first!.links, path).toEqual([]);
      // The record now keeps the resumed segment's.
      expect((await store.getRun(`run-${path}`))?.checkpoint?.traceparent, path).toBe(traceparent(second!));
    }
  });

  it("links the span of a run resumed after its process stopped to the stopped segment's, from the traceparent its record held while it ran", async () => {
    const { exporter, tracer } = tracing();
    const store = new InProcessRunStore();
    let snapshot: { events: StoredRunEvent[]; traceparent: string | undefined } | undefined;
    // The tool takes a copy of the record as it is while the run is in flight: what a process
    // that stopped here would leave.
    const probe = tool(
      async () => {
        const info = await store.getRun("live");
        snapshot = { events: await store.readEvents("live"), traceparent: info?.checkpoint?.traceparent };
        return "probed";
      },
      { name: "probe", description: "Looks at the record.", schema: z.object({}) },
    );
    const responses = [{ toolCalls: [{ id: "call_1", name: "probe", args: {} }] }, "Done."];
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses }), tools: [probe], prompt }), tools: [probe], store, telemetry: { tracer } });
    await executor.invoke({ input: "go" }, { runId: "live" });
    const [live] = byName(exporter.getFinishedSpans(), "invoke_agent");
    expect(snapshot?.traceparent).toBe(traceparent(live!));

    // The copy, as a run left `running` by a process whose lease has lapsed.
    const stopped = new InProcessRunStore();
    const at = Date.now() - 60_000;
    const info = (await store.getRun("live"))!;
    await stopped.createRun({ runId: "stopped", inputs: info.inputs, status: "running", owner: "gone", leaseMs: 1, at });
    const events = snapshot!.events.map((event) => ({ ...event, data: { ...event.data, ...(event.type === "start" ? { runId: "stopped" } : {}) } }));
    await stopped.write("stopped", { owner: "gone", leaseMs: 1, events, update: { checkpoint: { schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools", traceparent: snapshot!.traceparent! } }, at });
    exporter.reset();
    const again = new AgentExecutor({ agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses: ["Done again."] }), tools: [probe], prompt }), tools: [probe], telemetry: { tracer } });
    const resumed = await again.resume("stopped", { store: stopped });
    expect(resumed.output).toBe("Done again.");
    const [segment] = byName(exporter.getFinishedSpans(), "invoke_agent");
    expect(segment!.links.map((link) => link.context)).toEqual([{ traceId: live!.spanContext().traceId, spanId: live!.spanContext().spanId, traceFlags: 1, isRemote: true }]);
  });

  it("makes no link from a record's traceparent that is not a valid one, and the resume runs all the same", async () => {
    expect(linksTo(undefined)).toBeUndefined();
    expect(linksTo("not a traceparent")).toBeUndefined();
    expect(linksTo(`00-${"0".repeat(32)}-b7ad6b7169203331-01`)).toBeUndefined();
    expect(linksTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toEqual([
      { context: { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1, isRemote: true } },
    ]);
    // Without a tracer provider the API's spans are not recording, with all-zero ids: no traceparent.
    expect(traceparentOf(trace.getTracer("none").startSpan("x"))).toBeUndefined();

    const { exporter, tracer } = tracing();
    /** A store whose record of the run holds a traceparent that is not one. */
    class GarbledStore extends InProcessRunStore {
      override async claimRun(...args: Parameters<InProcessRunStore["claimRun"]>) {
        const info = await super.claimRun(...args);
        return { ...info, checkpoint: { ...info.checkpoint!, traceparent: "garbage" } };
      }
    }
    const store = new GarbledStore();
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }] }, "It is sunny in Paris."] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], needsApproval: () => true, store, telemetry: { tracer } });
    const paused = await executor.invoke({ input: "Weather?" }, { runId: "bad" });
    const resumed = await executor.resume("bad", { decisions: { [paused.interrupts![0]!.id]: "approve" } });
    expect(resumed.output).toBe("It is sunny in Paris.");
    expect(byName(exporter.getFinishedSpans(), "invoke_agent")[1]?.links).toEqual([]);
  });
});

describe("telemetry: a fork", () => {
  /** A recorded run in two traced segments (paused for approval, then resumed): its spans. */
  async function pausedAndResumed(path: "observed" | "callbacks", store: InProcessRunStore, tracer: ReturnType<typeof tracing>["tracer"], runId: string) {
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }] }, "It is sunny in Paris."] });
    const agent = path === "observed" ? createToolCallingAgent({ llm, tools: [weather], prompt }) : weatherTurns();
    const executor = new AgentExecutor({ agent, tools: [weather], needsApproval: () => true, store, telemetry: { tracer } });
    const paused = await executor.invoke({ input: "Weather in Paris?" }, { runId });
    await executor.resume(runId, { decisions: { [paused.interrupts![0]!.id]: "approve" } });
  }

  /** An executor whose agent answers at once, to run a fork with. */
  function forking(path: "observed" | "callbacks", store: InProcessRunStore, telemetry: { tracer: ReturnType<typeof tracing>["tracer"] } | undefined) {
    const agent =
      path === "observed"
        ? createToolCallingAgent({ llm: new ScriptedChatModel({ responses: ["Forked answer."] }), tools: [weather], prompt })
        : RunnableLambda.from(async () => ({ returnValues: { output: "Forked answer." }, log: "" }));
    return new AgentExecutor({ agent, tools: [weather], store, ...(telemetry ? { telemetry } : {}) });
  }

  it("links a fork's span to its source run's last traced segment's span and names the source and the fork point, on both paths", async () => {
    for (const path of ["observed", "callbacks"] as const) {
      const { exporter, tracer } = tracing();
      const store = new InProcessRunStore();
      await pausedAndResumed(path, store, tracer, `source-${path}`);
      const [, last] = byName(exporter.getFinishedSpans(), "invoke_agent");
      expect((await store.getRun(`source-${path}`))?.checkpoint?.traceparent, path).toBe(traceparent(last!));
      exporter.reset();

      const fork = await forking(path, store, { tracer }).fork(`source-${path}`, { at: 1, runId: `fork-${path}` });
      expect(fork.output, path).toBe("Forked answer.");
      const [span] = byName(exporter.getFinishedSpans(), "invoke_agent");
      // A trace of its own (no span was active at fork), linked to the source's last segment.
      expect(span!.spanContext().traceId, path).not.toBe(last!.spanContext().traceId);
      expect(span!.links.map((link) => link.context), path).toEqual([{ traceId: last!.spanContext().traceId, spanId: last!.spanContext().spanId, traceFlags: 1, isRemote: true }]);
      expect(span!.attributes, path).toMatchObject({ "agentrx.run.id": `fork-${path}`, "agentrx.fork_of.run.id": `source-${path}`, "agentrx.fork_of.iteration": 1 });
      // The fork's record keeps its own span's traceparent: a resume of the fork links to it.
      expect((await store.getRun(`fork-${path}`))?.checkpoint?.traceparent, path).toBe(traceparent(span!));
    }
  });

  it("names the source of a fork whose source was not traced, or kept a traceparent that is not one, with no link; the fork runs all the same", async () => {
    /** A store whose record of run "garbled" holds a traceparent that is not one. */
    class GarbledStore extends InProcessRunStore {
      override async getRun(runId: string) {
        const info = await super.getRun(runId);
        return info === undefined || runId !== "garbled" ? info : { ...info, checkpoint: { ...info.checkpoint!, traceparent: "garbage" } };
      }
    }
    const store = new GarbledStore();
    const untraced = new AgentExecutor({ agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses: ["Done."] }), tools: [weather], prompt }), tools: [weather], store });
    await untraced.invoke({ input: "hi" }, { runId: "untraced" });
    const { exporter, tracer } = tracing();
    await pausedAndResumed("observed", store, tracer, "garbled");
    exporter.reset();
    for (const source of ["untraced", "garbled"]) {
      const fork = await forking("observed", store, { tracer }).fork(source, { at: 0 });
      expect(fork.output, source).toBe("Forked answer.");
    }
    const spans = byName(exporter.getFinishedSpans(), "invoke_agent");
    expect(spans.map((span) => span.links)).toEqual([[], []]);
    expect(spans.map((span) => [span.attributes["agentrx.fork_of.run.id"], span.attributes["agentrx.fork_of.iteration"]])).toEqual([
      ["untraced", 0],
      ["garbled", 0],
    ]);
  });

  it("reads nothing more of the store for a traced fork than for an untraced one", async () => {
    /** A store that counts its reads. */
    class CountingStore extends InProcessRunStore {
      reads = 0;
      override async getRun(runId: string) {
        this.reads++;
        return super.getRun(runId);
      }
      override readEvents(...args: Parameters<InProcessRunStore["readEvents"]>) {
        this.reads++;
        return super.readEvents(...args);
      }
    }
    const store = new CountingStore();
    const { tracer } = tracing();
    await pausedAndResumed("observed", store, tracer, "source");
    const readsOf = async (telemetry: { tracer: typeof tracer } | undefined) => {
      const before = store.reads;
      await forking("observed", store, telemetry).fork("source", { at: 1 });
      return store.reads - before;
    };
    const untraced = await readsOf(undefined);
    expect(untraced).toBeGreaterThan(0);
    expect(await readsOf({ tracer })).toBe(untraced);
  });
});

/** An agent that does not report model calls (traced through callbacks): asks for the weather, then answers. */
function weatherTurns() {
  let turn = 0;
  return RunnableLambda.from(async () =>
    turn++ === 0
      ? [{ tool: "weather", toolInput: { city: "Paris" }, toolCallId: "call_1", log: "", messageLog: [] }]
      : { returnValues: { output: "It is sunny in Paris." }, log: "" },
  );
}
