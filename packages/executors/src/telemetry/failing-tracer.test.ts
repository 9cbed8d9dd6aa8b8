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
import { unhandledDuring } from "../executor/test-helpers";
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

/** The texts of the AGENTRX_TELEMETRY_FAILED warnings `warn` (a spy on process.emitWarning) saw. */
function telemetryWarnings(warn: { mock: { calls: unknown[][] } }): string[] {
  return warn.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === "AGENTRX_TELEMETRY_FAILED").map(([text]) => String(text));
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

  it("whose span methods return rejected promises: no unhandled rejection, the run finishes, one warning names the method", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const rejecting = new Proxy({}, { get: (_target, name) => (name === "then" ? undefined : () => Promise.reject(new Error(`span.${String(name)} rejected`))) });
    const tracer = { startSpan: () => rejecting, startActiveSpan: () => undefined } as unknown as Tracer;
    const { unhandled, error } = await unhandledDuring(async () => expect((await executorWith(tracer, turns()).invoke({ input: "Weather?" })).output).toBe("Sunny."));
    expect(error).toBeUndefined();
    expect(unhandled).toEqual([]);
    const warnings = telemetryWarnings(warn);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/the telemetry tracer's span\.\w+ returned a promise that rejected \(Error: span\.\w+ rejected\); the run goes on/);
  });

  it.each([
    ["a number", () => 42, "the telemetry tracer's startSpan returned 42, not a span"],
    ["a promise", () => Promise.resolve({}), "the telemetry tracer's startSpan returned a promise, not a span (startSpan must return the span itself)"],
    ["a rejected promise", () => Promise.reject(new Error("no span")), "the telemetry tracer's startSpan returned a promise, not a span (startSpan must return the span itself)"],
    ["null", () => null, "the telemetry tracer's startSpan returned null, not a span"],
  ])("whose startSpan returns %s: the run finishes untraced, one warning says so", async (_, startSpan, message) => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const tracer = { startSpan, startActiveSpan: () => undefined } as unknown as Tracer;
    const { unhandled, error } = await unhandledDuring(async () => expect((await executorWith(tracer, turns()).invoke({ input: "Weather?" })).output).toBe("Sunny."));
    expect(error).toBeUndefined();
    expect(unhandled).toEqual([]);
    const warnings = telemetryWarnings(warn);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${message}; the run goes on`);
  });

  it("a tool call's arguments that cannot be JSON (a BigInt) are recorded as text, not thrown", () => {
    const { attributes } = toolSpan({ recordInputs: true, recordOutputs: false }, "weather", { n: 1n }, "c1");
    expect(attributes["gen_ai.tool.call.arguments"]).toBe("[object Object]");
  });
});
