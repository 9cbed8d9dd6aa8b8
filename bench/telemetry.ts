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

/**
 * Lets the event loop turn once, as a run waiting on a real model or tool does at every step. The
 * scripted steps never wait on I/O, so without this no timer would fire while the bench runs: the
 * span processor would export one batch, never hear back, and drop every span once its queue was
 * full, which costs less than exporting them.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function telemetry(): Promise<Row[]> {
  // Spans are made and exported as a production setup does (a BatchSpanProcessor; to memory,
  // emptied after every run).
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 50 })] });
  const on = executorOf({ tracer: provider.getTracer("bench") });
  const off = executorOf(undefined);
  const callbacks = executorOf(undefined, [new Noop()]);
  // How many spans a run makes, to check below that every one was exported (none dropped); the
  // other variants run once too, so that all start equally warm.
  await on();
  await off();
  await callbacks();
  await provider.forceFlush();
  const perRun = exporter.getFinishedSpans().length;
  exporter.reset();
  let exported = 0;
  // 120 timed rounds: a step costs a fraction of a millisecond, and the spans' export runs on a timer
  // (inside whichever variant is running), so fewer rounds make the ratio swing by several percent.
  // Every variant lets the event loop turn after its run, so that timer fires as it does in production.
  // 100 warm-up rounds: the span code (ours and the SDK's) runs only in "on", a third of the calls,
  // so it is still being optimised well after the shared pipeline is; after 30 rounds "on" was
  // still several percent slower than it settles at.
  const warmup = 100;
  const runs = 120;
  const times = await timeInterleaved(
    {
      off: async () => (await off(), await turn()),
      callbacks: async () => (await callbacks(), await turn()),
      on: async () => {
        await on();
        await turn();
        exported += exporter.getFinishedSpans().length;
        exporter.reset();
      },
    },
    { warmup, runs },
  );
  await provider.forceFlush();
  exported += exporter.getFinishedSpans().length;
  exporter.reset();
  if (exported !== perRun * (warmup + runs)) throw new Error(`telemetry bench: ${perRun * (warmup + runs)} spans made, ${exported} exported (the span processor dropped some)`);
  const per = (name: string) => (times[name] ?? 0) / 20;
  return [
    { scenario: "20 tool steps, telemetry on", metric: "ms per step", agentrx: per("on"), floor: per("off"), check: { label: "on/off", value: per("on") / per("off"), limit: 1.15 } },
    { scenario: "the same, floor: a no-op callback handler", metric: "ms per step", agentrx: per("on"), floor: per("callbacks"), check: { label: "on/noop", value: per("on") / per("callbacks"), limit: 1.75 } },
  ];
}
