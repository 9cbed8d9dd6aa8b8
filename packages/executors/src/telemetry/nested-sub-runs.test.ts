import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { TelemetryOptions } from "./telemetry-options";
import { tracing } from "./test-tracing";

// One tracer owns each run: a sub-run is traced once, under the tool call that ran it, whichever
// way (from what it sees, or through callbacks) each run of the tree is traced.

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const input = z.object({ input: z.string() });

type Kind = "built-in" | "custom";

/**
 * A level of the tree: a built-in agent (traced from what it sees) or a custom one that does not
 * report its model calls (traced through callbacks). Either calls its model once per turn, with
 * `tokens` input tokens a call; with a `child`, it calls that tool first, then answers.
 */
function level(kind: Kind, tokens: number, child?: StructuredToolInterface, telemetry?: TelemetryOptions): AgentExecutor {
  const usage = { inputTokens: tokens, outputTokens: 1 };
  const tools = child === undefined ? [] : [child];
  if (kind === "built-in") {
    const responses = child === undefined ? [{ content: "leaf", usage }] : [{ toolCalls: [{ id: `call_${child.name}`, name: child.name, args: { input: "x" } }], usage }, { content: "done", usage }];
    return new AgentExecutor({ agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses }), tools, prompt }), tools, ...(telemetry ? { telemetry } : {}) });
  }
  const model = new ScriptedChatModel({ responses: child === undefined ? [{ content: "leaf", usage }] : [{ content: "a", usage }, { content: "b", usage }] });
  let turn = 0;
  const agent = RunnableLambda.from(async (_: unknown, options) => {
    await model.invoke([new HumanMessage("go")], options);
    turn += 1;
    return child !== undefined && turn === 1 ? { tool: child.name, toolInput: { input: "x" }, log: "" } : { returnValues: { output: "done" }, log: "" };
  });
  return new AgentExecutor({ agent, tools, ...(telemetry ? { telemetry } : {}) });
}


/** Each span as the path of span names from the root down to it. */
function paths(spans: readonly ReadableSpan[]): string[] {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  const path = (span: ReadableSpan): string => {
    const parent = span.parentSpanContext === undefined ? undefined : byId.get(span.parentSpanContext.spanId);
    return parent === undefined ? span.name : `${path(parent)} / ${span.name}`;
  };
  return spans.map(path).sort();
}

const kinds: Kind[] = ["built-in", "custom"];
const trees = kinds.flatMap((outer) => kinds.flatMap((middle) => kinds.flatMap((inner) => [false, true].map((own) => [outer, middle, inner, own] as const))));

describe("telemetry: sub-runs inside sub-runs", () => {
  it.each(trees)("traces each run of a %s > %s > %s tree once, under the tool call that ran it, counting each model call once (sub-runs with a telemetry option of their own: %s)", async (outerKind, middleKind, innerKind, own) => {
    const { exporter, tracer } = tracing();
    // A sub-run's own option is not used: its caller's tree and tracer are.
    const ignored = tracing();
    const subTelemetry = own ? { tracer: ignored.tracer } : undefined;
    const inner = level(innerKind, 7, undefined, subTelemetry).asTool({ name: "inner", description: "I", schema: input });
    const middle = level(middleKind, 20, inner, subTelemetry).asTool({ name: "middle", description: "M", schema: input });
    await level(outerKind, 100, middle, { tracer }).invoke({ input: "start" });
    const spans = exporter.getFinishedSpans();
    const chat = "chat ScriptedChatModel";
    const sub = "invoke_agent / execute_tool middle / invoke_agent";
    const leaf = `${sub} / execute_tool inner / invoke_agent`;
    expect(paths(spans)).toEqual(
      [
        "invoke_agent",
        `invoke_agent / ${chat}`,
        `invoke_agent / ${chat}`,
        "invoke_agent / execute_tool middle",
        sub,
        `${sub} / ${chat}`,
        `${sub} / ${chat}`,
        `${sub} / execute_tool inner`,
        leaf,
        `${leaf} / ${chat}`,
      ].sort(),
    );
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(ignored.exporter.getFinishedSpans()).toEqual([]);
    // Each run's usage: its own model calls and its sub-runs', each call counted once.
    const agents = spans.filter((span) => span.name === "invoke_agent");
    const depth = (span: ReadableSpan) => agents.filter((other) => isAbove(other, span, spans)).length;
    const usage = agents.sort((a, b) => depth(a) - depth(b)).map((span) => [span.attributes["gen_ai.usage.input_tokens"], span.attributes["gen_ai.usage.output_tokens"]]);
    expect(usage).toEqual([
      [207 + 40, 5],
      [47, 3],
      [7, 1],
    ]);
  });

  it("traces a built-in sub-run of a callback-traced sub-run once, under its own tool call (no model call in between)", async () => {
    const { exporter, tracer } = tracing();
    const inner = new AgentExecutor({
      agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses: [{ content: "x", usage: { inputTokens: 7, outputTokens: 1 } }] }), tools: [], prompt }),
      tools: [],
    });
    let n = 0;
    const middle = new AgentExecutor({
      agent: RunnableLambda.from(async () => (++n === 1 ? { tool: "inner", toolInput: { input: "x" }, log: "" } : { returnValues: { output: "m" }, log: "" })),
      tools: [inner.asTool({ name: "inner", description: "I", schema: input })],
    });
    const middleTool = middle.asTool({ name: "middle", description: "M", schema: input });
    const outerLlm = new ScriptedChatModel({
      responses: [{ toolCalls: [{ id: "c1", name: "middle", args: { input: "go" } }], usage: { inputTokens: 100, outputTokens: 1 } }, { content: "done", usage: { inputTokens: 100, outputTokens: 1 } }],
    });
    const outer = new AgentExecutor({ agent: createToolCallingAgent({ llm: outerLlm, tools: [middleTool], prompt }), tools: [middleTool], telemetry: { tracer } });
    await outer.invoke({ input: "start" });
    const spans = exporter.getFinishedSpans();
    expect(spans.filter((span) => span.name === "invoke_agent")).toHaveLength(3);
    expect(spans.filter((span) => span.name === "chat ScriptedChatModel")).toHaveLength(3);
    expect(paths(spans)).toContain("invoke_agent / execute_tool middle / invoke_agent / execute_tool inner / invoke_agent / chat ScriptedChatModel");
    const root = spans.find((span) => span.parentSpanContext === undefined);
    expect(root?.attributes["gen_ai.usage.input_tokens"]).toBe(207);
  });
});

/** Whether `above` is an ancestor of `span`. */
function isAbove(above: ReadableSpan, span: ReadableSpan, spans: readonly ReadableSpan[]): boolean {
  let current: ReadableSpan | undefined = span;
  while (current?.parentSpanContext !== undefined) {
    const parentId: string = current.parentSpanContext.spanId;
    current = spans.find((other) => other.spanContext().spanId === parentId);
    if (current === above) return true;
  }
  return false;
}
