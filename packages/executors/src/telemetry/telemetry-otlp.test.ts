import { type IncomingMessage, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: OtlpValue }[];
}

/** A collector of our own on 127.0.0.1: it decodes what the OTLP/HTTP (JSON) exporter sends. */
const received: { path: string; contentType: string | undefined; spans: OtlpSpan[] }[] = [];
const server = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    const spans = body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    received.push({ path: request.url ?? "", contentType: request.headers["content-type"], spans });
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});

beforeAll(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const value = (span: OtlpSpan, key: string) => {
  const found = span.attributes.find((attribute) => attribute.key === key)?.value;
  if (found?.arrayValue) return found.arrayValue.values.map((item) => item.stringValue);
  return found?.stringValue ?? (found?.intValue === undefined ? found?.boolValue : Number(found.intValue));
};

describe("telemetry through an OTLP/HTTP exporter", () => {
  it("sends the run's spans to a collector, with their gen_ai attributes and parent links", async () => {
    const { port } = server.address() as AddressInfo;
    const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` });
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
      name: "weather",
      description: "Tells the weather.",
      schema: z.object({ city: z.string() }),
    });
    const llm = new ScriptedChatModel({
      responses: [
        { toolCalls: [{ id: "call_7", name: "weather", args: { city: "Oslo" } }], usage: { inputTokens: 12, outputTokens: 3 } },
        { content: "Sunny in Oslo.", usage: { inputTokens: 20, outputTokens: 4 } },
      ],
    });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({
      agent: createToolCallingAgent({ llm, tools: [weather], prompt }),
      tools: [weather],
      telemetry: { tracer: provider.getTracer("otlp-test"), recordOutputs: true },
    });
    await executor.invoke({ input: "Weather in Oslo?" });
    await provider.forceFlush();
    await provider.shutdown();

    expect(received.every((request) => request.path === "/v1/traces" && request.contentType === "application/json")).toBe(true);
    const spans = received.flatMap((request) => request.spans);
    expect(spans.map((span) => span.name).sort()).toEqual(["chat ScriptedChatModel", "chat ScriptedChatModel", "execute_tool weather", "invoke_agent"]);
    const agent = spans.find((span) => span.name === "invoke_agent")!;
    expect(agent.parentSpanId ?? "").toBe("");
    for (const span of spans.filter((span) => span !== agent)) {
      expect(span.parentSpanId).toBe(agent.spanId);
      expect(span.traceId).toBe(agent.traceId);
    }
    expect(value(agent, "gen_ai.usage.input_tokens")).toBe(32);
    expect(value(agent, "gen_ai.usage.output_tokens")).toBe(7);
    const chats = spans.filter((span) => span.name.startsWith("chat "));
    expect(chats.map((span) => value(span, "gen_ai.response.finish_reasons"))).toEqual([["tool_calls"], ["stop"]]);
    expect(chats.map((span) => value(span, "gen_ai.usage.input_tokens"))).toEqual([12, 20]);
    const toolSpan = spans.find((span) => span.name === "execute_tool weather")!;
    expect(value(toolSpan, "gen_ai.tool.call.id")).toBe("call_7");
    expect(value(toolSpan, "gen_ai.tool.call.result")).toBe("Sunny in Oslo");
    expect(value(toolSpan, "gen_ai.tool.call.arguments")).toBeUndefined();
  });
});
