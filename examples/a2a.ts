// One agent calling another over A2A, traced as one: the quickstart's weather agent is served with
// `createA2AHandler`, a trip planner calls it as a tool (`a2aTool`), and both runs make
// OpenTelemetry spans. The tool call carries its span's W3C `traceparent`, so the served run's
// spans are in the planner's trace: the tree printed at the end spans both agents.
//
//   npx tsx examples/a2a.ts
//
// Uses OPENAI_API_KEY / OPENAI_BASE_URL (and OPENAI_MODEL) when set; scripted models otherwise.
// With OTEL_EXPORTER_OTLP_ENDPOINT set (a collector's OTLP/HTTP endpoint, e.g. http://localhost:4318),
// the spans are also sent there.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { OpenAIChatModel } from "@agentrx/core/openai";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { createAgentExecutor } from "@agentrx/executors";
import { a2aTool, createA2AHandler } from "@agentrx/serve";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { chooseModel, weather } from "./lib/weather-agent";

// Spans go to memory (printed below), and to a collector when one is named.
const spans = new InMemorySpanExporter();
const processors: SpanProcessor[] = [new SimpleSpanProcessor(spans)];
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) processors.push(new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${process.env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, "")}/v1/traces` })));
const provider = new BasicTracerProvider({ spanProcessors: processors });
const tracer = provider.getTracer("agentrx-example");

// The weather agent, served over A2A on a local port.
const weatherAgent = createAgentExecutor({
  model: chooseModel(),
  tools: [weather],
  system: "You are a concise weather assistant. Use tools for facts; call independent tools together.",
  telemetry: { tracer },
});
const server = createServer(createA2AHandler(weatherAgent, { agentCard: { name: "Weather", description: "Tells the current weather of cities." } }));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
console.log(`Weather agent served over A2A at ${url}`);

// The trip planner: its one tool is the remote agent (named from its agent card).
const askWeather = await a2aTool({ url, name: "ask_weather_agent" });
const planner: BaseChatModel =
  // The same endpoint as the weather agent when one is set (OPENAI_API_KEY and/or OPENAI_BASE_URL,
  // read as chooseModel reads them; it printed which).
  OpenAIChatModel.fromEnv({ streaming: true, temperature: 0 }) ??
  new ScriptedChatModel({
    responses: [
      { toolCalls: [{ name: "ask_weather_agent", args: { input: "What is the weather in Paris and in Rome?" } }] },
      (messages) => `Based on the weather agent (${messages.at(-1)?.text}), take the sunglasses.`,
    ],
  });
const trip = createAgentExecutor({
  model: planner,
  tools: [askWeather],
  system: "You plan trips. Ask the weather agent about the weather; answer in one sentence.",
  telemetry: { tracer },
});

const result = await trip.invoke({ input: "I'm going to Paris, then Rome. What should I pack?" });
console.log(`\nAnswer: ${result.output}`);
console.log(`stopReason=${result.stopReason}`);

// The trace: one tree, the weather agent's run under the planner's tool call.
await provider.forceFlush();
const finished = spans.getFinishedSpans();
const children = new Map<string | undefined, ReadableSpan[]>();
for (const span of finished) {
  const parent = finished.some((other) => other.spanContext().spanId === span.parentSpanContext?.spanId) ? span.parentSpanContext?.spanId : undefined;
  children.set(parent, [...(children.get(parent) ?? []), span]);
}
const print = (span: ReadableSpan, depth: number) => {
  const ms = (span.duration[0] * 1e3 + span.duration[1] / 1e6).toFixed(0);
  console.log(`${"  ".repeat(depth)}${span.name} (${ms} ms)`);
  for (const child of (children.get(span.spanContext().spanId) ?? []).sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])) print(child, depth + 1);
};
const traces = new Set(finished.map((span) => span.spanContext().traceId));
console.log(`\n${finished.length} spans in ${traces.size} trace${traces.size === 1 ? "" : "s"}:`);
for (const root of children.get(undefined) ?? []) print(root, 1);

server.closeAllConnections();
server.close();
await provider.shutdown();
