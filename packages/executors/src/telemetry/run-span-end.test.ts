import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type StopReason, tokenBudget } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { SpanStatusCode } from "@opentelemetry/api";
import { type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runFinishReason } from "./gen-ai-spans";
import { tracing, waitingWeatherTool } from "./test-tracing";

// How a run's `invoke_agent` span ends: its usage whatever the way the run ended, and the finish
// reason of its answer from the run's stop reason (see docs/telemetry.md).

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const usage = { inputTokens: 10, outputTokens: 5 };


const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
  name: "weather",
  description: "Tells the weather.",
  schema: z.object({ city: z.string() }),
});


const agentSpan = (spans: ReadableSpan[]) => spans.find((span) => span.name.startsWith("invoke_agent"));
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("telemetry: a failed or cancelled run's span", () => {
  it("keeps the usage of the model calls made before a run failed, traced from what the run sees", async () => {
    const { exporter, tracer } = tracing();
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }], usage }, new Error("model down")] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], telemetry: { tracer } });
    await expect(executor.invoke({ input: "Weather?" })).rejects.toThrow("model down");
    const agent = agentSpan(exporter.getFinishedSpans());
    expect(agent?.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5 });
  });

  it("keeps the usage of the model calls made before a run failed, traced through callbacks", async () => {
    const { exporter, tracer } = tracing();
    const model = new ScriptedChatModel({ responses: [{ content: "hmm", usage }] });
    const agent = RunnableLambda.from(async (input: { input: string }, options) => {
      await model.invoke([new HumanMessage(input.input)], options);
      throw new Error("agent broke");
    });
    const executor = new AgentExecutor({ agent, tools: [], telemetry: { tracer } });
    await expect(executor.invoke({ input: "hello" })).rejects.toThrow("agent broke");
    const span = agentSpan(exporter.getFinishedSpans());
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5 });
  });

  it("keeps the usage of the model calls made before a run was cancelled, on both paths", async () => {
    // From what the run sees: a built-in agent, cancelled while its tool runs.
    const traced = tracing();
    const { slow, called } = waitingWeatherTool();
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }], usage }] });
    const builtIn = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [slow], prompt }), tools: [slow], telemetry: { tracer: traced.tracer } });
    let controller = new AbortController();
    let run = builtIn.invoke({ input: "Weather?" }, { signal: controller.signal }).catch((error: unknown) => (error as Error).name);
    await called;
    controller.abort();
    expect(await run).toBe("AbortError");
    await settle();
    let span = agentSpan(traced.exporter.getFinishedSpans());
    expect(span?.attributes).toMatchObject({ "agentrx.cancelled": true, "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5 });

    // Through callbacks: an agent that calls its model, then waits.
    const viaCallbacks = tracing();
    const model = new ScriptedChatModel({ responses: [{ content: "hmm", usage }] });
    let answered!: () => void;
    const modelAnswered = new Promise<void>((resolve) => (answered = resolve));
    const agent = RunnableLambda.from(async (input: { input: string }, options) => {
      await model.invoke([new HumanMessage(input.input)], options);
      answered();
      await new Promise<void>((_, reject) => options?.signal?.addEventListener("abort", () => reject(options.signal?.reason)));
      return { returnValues: { output: "never" }, log: "" };
    });
    const custom = new AgentExecutor({ agent, tools: [], telemetry: { tracer: viaCallbacks.tracer } });
    controller = new AbortController();
    run = custom.invoke({ input: "hello" }, { signal: controller.signal }).catch((error: unknown) => (error as Error).name);
    await modelAnswered;
    controller.abort();
    expect(await run).toBe("AbortError");
    await settle();
    span = agentSpan(viaCallbacks.exporter.getFinishedSpans());
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5 });
  });
});

describe("telemetry: the finish reason of a run's answer", () => {
  /** The `finish_reason` of the run span's `gen_ai.output.messages`, and its stop reason. */
  function finish(spans: ReadableSpan[]): [unknown, unknown] {
    const span = agentSpan(spans);
    const [message] = JSON.parse(String(span?.attributes["gen_ai.output.messages"])) as { finish_reason?: string }[];
    return [span?.attributes["agentrx.stop_reason"], message?.finish_reason];
  }

  const looping = () => new ScriptedChatModel({ responses: Array.from({ length: 5 }, () => ({ toolCalls: [{ name: "weather", args: { city: "Paris" } }], usage })) });

  it("is stop for an answer, length for a run a limit stopped, tool_call for a run paused on tool calls; on both paths", async () => {
    const seen: [unknown, unknown][] = [];
    const run = async (options: ConstructorParameters<typeof AgentExecutor>[0], invoke?: Record<string, unknown>) => {
      const { exporter, tracer } = tracing();
      await new AgentExecutor({ ...options, telemetry: { tracer, recordOutputs: true } }).invoke({ input: "Weather?" }, invoke);
      seen.push(finish(exporter.getFinishedSpans()));
    };
    const calling = (llm: ScriptedChatModel) => ({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather] });
    await run(calling(new ScriptedChatModel({ responses: ["Sunny."] })));
    await run({ ...calling(looping()), maxIterations: 2 });
    await run(calling(looping()), { stopWhen: tokenBudget(20) });
    await run({ ...calling(looping()), needsApproval: () => true });
    // Through callbacks: an agent that does not report its model calls stops at its iteration limit.
    const step = RunnableLambda.from(async () => ({ tool: "weather", toolInput: { city: "Paris" }, log: "" }));
    await run({ agent: step, tools: [weather], maxIterations: 1 });
    expect(seen).toEqual([
      ["finish", "stop"],
      ["max_iterations", "length"],
      ["budget", "length"],
      ["interrupted", "tool_call"],
      ["max_iterations", "length"],
    ]);
  });

  it("maps every stop reason: a guardrail's stop is content_filter, a reason the conventions have no value for is given as it is", () => {
    const reasons: Record<StopReason, string> = {
      finish: "stop",
      return_direct: "stop",
      max_iterations: "length",
      max_execution_time: "length",
      budget: "length",
      guardrail: "content_filter",
      interrupted: "tool_call",
      repeated_call: "repeated_call",
    };
    for (const [reason, expected] of Object.entries(reasons)) expect(runFinishReason(reason)).toBe(expected);
    expect(runFinishReason(undefined)).toBe("stop");
    expect(runFinishReason("toString")).toBe("toString");
  });
});
