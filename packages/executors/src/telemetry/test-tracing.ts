// Test-only: what the telemetry tests share. An in-memory tracer of the real OpenTelemetry SDK,
// and a weather tool that waits until its call is aborted (for cancelled runs).
import { tool } from "@langchain/core/tools";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { z } from "zod";

/** A tracer whose spans end up in `exporter` as soon as they end. @internal */
export function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer("test") };
}

/** A `weather` tool that waits until its call is aborted; `called` resolves when it is called. @internal */
export function waitingWeatherTool() {
  let started!: () => void;
  const called = new Promise<void>((resolve) => (started = resolve));
  const slow = tool(
    async (_input: { city: string }, config) => {
      started();
      await new Promise<void>((_, reject) => config?.signal?.addEventListener("abort", () => reject(config.signal?.reason)));
      return "never";
    },
    { name: "weather", description: "Tells the weather.", schema: z.object({ city: z.string() }) },
  );
  return { slow, called };
}
