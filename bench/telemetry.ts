// Telemetry scenario: what the executor's `telemetry` option (OpenTelemetry spans) costs per step.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedCall } from "@agentrx/core/testing";
import { AgentExecutor, type TelemetryOptions } from "@agentrx/executors";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { tool } from "@langchain/core/tools";
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { timeInterleaved } from "./measure";
import type { Row } from "./scenarios";
import { prompt, stepScript } from "./setup";

const noop = tool(async ({ i }: { i: number }) => `ok ${i}`, { name: "noop", description: "Does nothing.", schema: z.object({ i: z.number() }) });

/** A callback handler that does nothing: what @langchain/core's callback machinery costs by itself. */
class Noop extends BaseCallbackHandler { name = "noop"; }

function executorOf(telemetry: TelemetryOptions | undefined, callbacks?: BaseCallbackHandler[]) {
  const model = new ScriptedChatModel({ responses: [stepScript(20, { tool: "noop" })], onExhausted: "cycle" });
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: model, tools: [noop], prompt }), tools: [noop], maxIterations: 1000, ...(telemetry ? { telemetry } : {}) });
  return async () => {
    await executor.invoke({ input: "go" }, callbacks ? { callbacks } : undefined);
    (model.calls as ScriptedCall[]).length = 0;
  };
}

export async function telemetry(): Promise<Row[]> {
  // Spans are made and exported as a production setup does (a BatchSpanProcessor; to memory,
  // emptied after every run).
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 50 })] }).getTracer("bench");
  const on = executorOf({ tracer });
  const off = executorOf(undefined);
  const callbacks = executorOf(undefined, [new Noop()]);
  // 120 timed rounds: a step costs a fraction of a millisecond, and the spans' export runs on a timer
  // (inside whichever variant is running), so fewer rounds make the ratio swing by several percent.
  const times = await timeInterleaved({ off, callbacks, on: async () => (await on(), exporter.reset()) }, { warmup: 30, runs: 120 });
  const per = (name: string) => (times[name] ?? 0) / 20;
  return [
    { scenario: "20 tool steps, telemetry on", metric: "ms per step", agentrx: per("on"), floor: per("off"), check: { label: "on/off", value: per("on") / per("off"), limit: 1.15 } },
    { scenario: "the same, floor: a no-op callback handler", metric: "ms per step", agentrx: per("on"), floor: per("callbacks"), check: { label: "on/noop", value: per("on") / per("callbacks"), limit: 1.75 } },
  ];
}
