import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { a2aTool, createA2AHandler } from "@agentrx/serve";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { ROOT_CONTEXT, type Tracer, context, createTraceState, defaultTextMapGetter, propagation, trace } from "@opentelemetry/api";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { useAsyncContextManager } from "../../../executors/src/telemetry/test-context-manager";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("test") };
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

const servers: Server[] = [];
afterEach(async () => {
  context.disable();
  propagation.disable();
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/**
 * Serves `remote` over A2A on a loopback port; `posts` gets the trace headers of each JSON-RPC
 * request (`POST`) it receives.
 */
async function serve(remote: AgentExecutor, instrumented?: Tracer): Promise<{ url: string; posts: Record<string, string>[] }> {
  const posts: Record<string, string>[] = [];
  const handler = createA2AHandler(remote, { agentCard: { name: "Researcher", description: "Researches a topic." } });
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== "POST") return void handler(request, response);
    const names = ["traceparent", "tracestate", "baggage"];
    posts.push(Object.fromEntries(Object.entries(request.headers).filter(([name]) => names.includes(name))) as Record<string, string>);
    if (instrumented === undefined) return void handler(request, response);
    // As HTTP instrumentation does: the request's span, under the caller's, active while it is handled.
    const span = instrumented.startSpan("POST", {}, new W3CTraceContextPropagator().extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter));
    response.once("close", () => span.end());
    context.with(trace.setSpan(ROOT_CONTEXT, span), () => void handler(request, response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posts };
}

/** A served executor that answers at once (one model call, no tool), traced by `tracer` when given. */
function remoteExecutor(tracer?: Tracer): AgentExecutor {
  const llm = new ScriptedChatModel({ responses: ["Tides follow the moon."], onExhausted: "repeat-last" });
  const none = tool(async () => "", { name: "noop", description: "Does nothing.", schema: z.object({}) });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [none], prompt }), tools: [none], ...(tracer ? { telemetry: { tracer } } : {}) });
}

/** A calling executor whose model calls the remote agent once, then answers. */
function callerExecutor(researcher: StructuredToolInterface, tracer?: Tracer): AgentExecutor {
  const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "call_1", name: "Researcher", args: { input: "tides" } }] }, "Done."] });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [researcher], prompt }), tools: [researcher], ...(tracer ? { telemetry: { tracer } } : {}) });
}

/** Posts a v0.3 `message/send` with `headers`; resolves the task's final state. */
async function sendWithHeaders(url: string, headers: Record<string, string>): Promise<string> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "tides" }] } } });
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const answer = (await response.json()) as { result?: { status?: { state?: string } } };
  return answer.result?.status?.state ?? JSON.stringify(answer);
}

describe("W3C trace context across A2A", () => {
  for (const provider of ["another", "the same"]) {
    it(`the remote run's invoke_agent span is a child of the caller's execute_tool span, in the caller's trace (${provider} provider)`, async () => {
      const caller = tracing();
      const served = provider === "the same" ? caller : tracing();
      const { url, posts } = await serve(remoteExecutor(served.tracer));
      const researcher = await a2aTool({ url });
      const result = await callerExecutor(researcher, caller.tracer).invoke({ input: "Explain tides" });
      expect(result.output).toBe("Done.");

      const [callSpan] = byName(caller.exporter.getFinishedSpans(), "execute_tool Researcher");
      expect(callSpan).toBeDefined();
      const { traceId, spanId } = callSpan!.spanContext();
      expect(posts).toEqual([{ traceparent: `00-${traceId}-${spanId}-01` }]);
      expect(posts[0]?.traceparent).toMatch(TRACEPARENT);

      const callerRun = byName(caller.exporter.getFinishedSpans(), "invoke_agent").find((span) => span.parentSpanContext === undefined);
      const remoteRun = byName(served.exporter.getFinishedSpans(), "invoke_agent").find((span) => span !== callerRun);
      expect(callerRun?.spanContext().traceId).toBe(traceId);
      expect(remoteRun?.spanContext().traceId).toBe(traceId);
      expect(remoteRun?.parentSpanContext).toMatchObject({ traceId, spanId, isRemote: true });
      // Every span, the caller's (its run, two model calls, the tool call) and the remote run's (its run, its model call), is in one trace.
      const spans = provider === "the same" ? caller.exporter.getFinishedSpans() : [...caller.exporter.getFinishedSpans(), ...served.exporter.getFinishedSpans()];
      expect(spans).toHaveLength(6);
      expect(spans.every((span) => span.spanContext().traceId === traceId)).toBe(true);
    });
  }

  it("sends the trace headers through a registered global propagator (and whatever else it propagates), with the caller's tracestate", async () => {
    propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
    useAsyncContextManager({ context, ROOT_CONTEXT });
    const caller = tracing();
    const served = tracing();
    const { url, posts } = await serve(remoteExecutor(served.tracer));
    const researcher = await a2aTool({ url });
    // The caller's run starts under an upstream span whose trace has a tracestate (its spans
    // inherit it), in a context with baggage.
    const upstream = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1, isRemote: true, traceState: createTraceState("vendor=opaque") };
    const active = propagation.setBaggage(trace.setSpanContext(ROOT_CONTEXT, upstream), propagation.createBaggage({ user: { value: "alice" } }));
    // (`async`: a run starts when awaited, which must happen inside the context.)
    await context.with(active, async () => await callerExecutor(researcher, caller.tracer).invoke({ input: "Explain tides" }));

    const [callSpan] = byName(caller.exporter.getFinishedSpans(), "execute_tool Researcher");
    const { traceId, spanId } = callSpan!.spanContext();
    expect(traceId).toBe(upstream.traceId);
    expect(posts).toEqual([{ traceparent: `00-${traceId}-${spanId}-01`, tracestate: "vendor=opaque", baggage: "user=alice" }]);
    const [remoteRun] = byName(served.exporter.getFinishedSpans(), "invoke_agent");
    expect(remoteRun?.parentSpanContext).toMatchObject({ traceId, spanId });
    expect(remoteRun?.spanContext().traceState?.get("vendor")).toBe("opaque");
  });

  it("without the executor's telemetry, carries the active span when a context manager is registered", async () => {
    useAsyncContextManager({ context, ROOT_CONTEXT });
    const caller = tracing();
    const served = tracing();
    const { url, posts } = await serve(remoteExecutor(served.tracer));
    const researcher = await a2aTool({ url });
    const span = caller.tracer.startSpan("handle request");
    await context.with(trace.setSpan(ROOT_CONTEXT, span), async () => await researcher.invoke({ input: "tides" }));
    span.end();
    const { traceId, spanId } = span.spanContext();
    expect(posts).toEqual([{ traceparent: `00-${traceId}-${spanId}-01` }]);
    expect(byName(served.exporter.getFinishedSpans(), "invoke_agent")[0]?.parentSpanContext).toMatchObject({ traceId, spanId });
  });

  it("on a server with HTTP instrumentation, the remote run is a child of the request's span (itself under the caller's)", async () => {
    useAsyncContextManager({ context, ROOT_CONTEXT });
    const caller = tracing();
    const served = tracing();
    const { url } = await serve(remoteExecutor(served.tracer), served.tracer);
    const researcher = await a2aTool({ url });
    await callerExecutor(researcher, caller.tracer).invoke({ input: "Explain tides" });
    const [callSpan] = byName(caller.exporter.getFinishedSpans(), "execute_tool Researcher");
    const spans = served.exporter.getFinishedSpans();
    const [request] = byName(spans, "POST");
    expect(request?.parentSpanContext).toMatchObject({ traceId: callSpan!.spanContext().traceId, spanId: callSpan!.spanContext().spanId });
    expect(byName(spans, "invoke_agent")[0]?.parentSpanContext).toMatchObject({ traceId: callSpan!.spanContext().traceId, spanId: request!.spanContext().spanId });
  });

  it("sends no trace header when the caller has no telemetry: the served run is a root span", async () => {
    const served = tracing();
    const { url, posts } = await serve(remoteExecutor(served.tracer));
    const researcher = await a2aTool({ url });
    expect((await callerExecutor(researcher).invoke({ input: "Explain tides" })).output).toBe("Done.");
    // No header even when a context manager is registered, if no span is active.
    useAsyncContextManager({ context, ROOT_CONTEXT });
    expect(await researcher.invoke({ input: "tides" })).toBe("Tides follow the moon.");
    expect(posts).toEqual([{}, {}]);
    const runs = byName(served.exporter.getFinishedSpans(), "invoke_agent");
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(run.parentSpanContext).toBeUndefined();
  });

  it("a context manager or propagator that throws costs the trace, never the call: the tool gets its answer, the server serves the request", async () => {
    const { url, posts } = await serve(remoteExecutor());
    const researcher = await a2aTool({ url });
    const broken = (): never => {
      throw new Error("context manager broken");
    };
    context.setGlobalContextManager({ active: broken, with: broken, bind: broken, enable: broken, disable: () => context as never });
    propagation.setGlobalPropagator({ inject: broken, extract: broken, fields: () => ["traceparent"] });
    expect(await researcher.invoke({ input: "tides" })).toBe("Tides follow the moon.");
    expect(await sendWithHeaders(url, { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" })).toBe("completed");
    expect(posts).toHaveLength(2);
    expect(posts[0]).toEqual({}); // no header: nothing could be read
  });

  it("carries the trace context on the cancel request of an aborted call too", async () => {
    let started!: () => void;
    const remoteToolStarted = new Promise<void>((resolve) => (started = resolve));
    const research = tool(
      async (_input: { topic: string }, config) => {
        started();
        await new Promise<void>((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
        return "never";
      },
      { name: "research", description: "Researches.", schema: z.object({ topic: z.string() }) },
    );
    const remoteLlm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "research", args: { topic: "tides" } }] }] });
    const { url, posts } = await serve(new AgentExecutor({ agent: createToolCallingAgent({ llm: remoteLlm, tools: [research], prompt }), tools: [research] }));
    const caller = tracing();
    const researcher = await a2aTool({ url });
    const subscription = callerExecutor(researcher, caller.tracer).stream({ input: "Explain tides" }).subscribe({ error: () => undefined });
    await remoteToolStarted;
    subscription.unsubscribe();
    await expect.poll(() => posts.length).toBe(2); // the stream, then the cancel
    expect(posts[0]?.traceparent).toMatch(TRACEPARENT);
    expect(posts[1]).toEqual(posts[0]);
  });

  it("ignores a malformed traceparent (the served run is a root span) and follows a valid one with its tracestate", async () => {
    const served = tracing();
    const { url } = await serve(remoteExecutor(served.tracer));
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const spanId = "b7ad6b7169203331";
    const malformed = [
      "garbage",
      `00-${traceId.toUpperCase()}-${spanId}-01`,
      `ff-${traceId}-${spanId}-01`,
      `00-${"0".repeat(32)}-${spanId}-01`,
      `00-${traceId}-${"0".repeat(16)}-01`,
      `00-${traceId}-${spanId}-01-extra`,
      `00-${traceId.slice(1)}-${spanId}-01`,
      `00-${traceId}-${spanId}-1`,
      `00_${traceId}_${spanId}_01`,
    ];
    for (const traceparent of malformed) {
      served.exporter.reset();
      expect(await sendWithHeaders(url, { traceparent, tracestate: "vendor=opaque" })).toBe("completed");
      const [run] = byName(served.exporter.getFinishedSpans(), "invoke_agent");
      expect({ traceparent, parent: run?.parentSpanContext }).toEqual({ traceparent, parent: undefined });
    }
    // A later version may carry more fields; the one understood here is read.
    for (const traceparent of [`00-${traceId}-${spanId}-01`, `01-${traceId}-${spanId}-01-future`]) {
      served.exporter.reset();
      expect(await sendWithHeaders(url, { traceparent, tracestate: "vendor=opaque" })).toBe("completed");
      const [run] = byName(served.exporter.getFinishedSpans(), "invoke_agent");
      expect(run?.spanContext().traceId).toBe(traceId);
      expect(run?.parentSpanContext).toMatchObject({ traceId, spanId, isRemote: true });
      expect(run?.spanContext().traceState?.get("vendor")).toBe("opaque");
    }
  });
});
