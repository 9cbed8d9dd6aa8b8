import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { expect, it } from "vitest";
import { bareOtel, loadOtel } from "./otel-api";

it("without @opentelemetry/api, a given tracer still nests spans through contexts the handler keeps", () => {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
  expect(bareOtel.defaultTracer()).toBeUndefined();
  const parent = tracer.startSpan("parent", {}, bareOtel.active());
  const context = bareOtel.withSpan(bareOtel.active(), parent);
  expect(trace.getSpan(context)).toBe(parent);
  const child = tracer.startSpan("child", {}, context);
  child.end();
  parent.end();
  const [ended] = exporter.getFinishedSpans();
  expect(ended?.name).toBe("child");
  expect(ended?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  expect(ended?.spanContext().traceId).toBe(parent.spanContext().traceId);
});

it("loads the API when it is installed", async () => {
  const otel = await loadOtel();
  expect(otel).not.toBe(bareOtel);
  expect(otel.defaultTracer()).toBeDefined();
});
