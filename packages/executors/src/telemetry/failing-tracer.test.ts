// A tracer that throws (a span processor's onEnd, a span without methods) never fails or hangs the
// run: the run settles as it would untraced, and the failure is one process warning.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import type { Tracer } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { toolSpan } from "./gen-ai-spans";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, { name: "weather", description: "Tells the weather.", schema: z.object({ city: z.string() }) });

function executorWith(tracer: Tracer, responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"]) {
  const llm = new ScriptedChatModel({ responses });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], telemetry: { tracer, recordInputs: true } });
}

/** A span processor that throws when a span whose name starts with `prefix` ends. */
function throwingOnEnd(prefix: string): SpanProcessor {
  return {
    onStart() {},
    onEnd(span: ReadableSpan) {
      if (span.name.startsWith(prefix)) throw new Error("onEnd failed");
    },
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
}

const turns = () => [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, "Sunny."];

afterEach(() => vi.restoreAllMocks());

describe("a tracer that throws", () => {
  it.each(["invoke_agent", "chat", "execute_tool", ""])("in onEnd of %s spans: the run finishes, the other spans are exported, one warning says so", async (prefix) => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [throwingOnEnd(prefix), new SimpleSpanProcessor(exporter)] });
    const result = await executorWith(provider.getTracer("t"), turns()).invoke({ input: "Weather?" });
    expect(result.output).toBe("Sunny.");
    const warnings = warn.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === "AGENTRX_TELEMETRY_FAILED");
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.[0])).toContain("the telemetry tracer threw (Error: onEnd failed); the run goes on");
    // A processor's throw stops the span's later processors: the spans that did not throw are exported.
    const exported = exporter.getFinishedSpans().map((span) => span.name.split(" ")[0]);
    for (const name of ["invoke_agent", "chat", "execute_tool"]) expect(exported.includes(name)).toBe(prefix !== "" && !name.startsWith(prefix));
  });

  it("whose spans have no methods (startSpan returns {}), or whose startSpan throws: the run finishes, a failed run still fails with its own error", async () => {
    vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const empty = { startSpan: () => ({}), startActiveSpan: () => undefined } as unknown as Tracer;
    expect((await executorWith(empty, turns()).invoke({ input: "Weather?" })).output).toBe("Sunny.");
    const throwing = {
      startSpan: () => {
        throw new Error("no spans today");
      },
      startActiveSpan: () => undefined,
    } as unknown as Tracer;
    expect((await executorWith(throwing, turns()).invoke({ input: "Weather?" })).output).toBe("Sunny.");
    await expect(executorWith(empty, [new Error("model down")]).invoke({ input: "Weather?" })).rejects.toThrow("model down");
  });

  it("a tool call's arguments that cannot be JSON (a BigInt) are recorded as text, not thrown", () => {
    const { attributes } = toolSpan({ recordInputs: true, recordOutputs: false }, "weather", { n: 1n }, "c1");
    expect(attributes["gen_ai.tool.call.arguments"]).toBe("[object Object]");
  });
});
