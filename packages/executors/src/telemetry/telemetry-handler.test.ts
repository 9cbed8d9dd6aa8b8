import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createToolCallingAgent } from "@agentrx/agents";
import { markObservesModelCalls, takeModelCallObserver } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { AgentExecutor, type AgentStreamEvent, finalAnswerTool } from "@agentrx/executors";
import type { Serialized } from "@langchain/core/load/serializable";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { type Attributes, ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, type Sampler, SamplingDecision, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { TelemetryOptions } from "./telemetry-options";
import { TELEMETRY_CONTEXT_KEY } from "./run-telemetry";
import { TelemetryHandler } from "./telemetry-handler";
import { useAsyncContextManager } from "./test-context-manager";
import { withTelemetry } from "./with-telemetry";
import { withLegacyUsage } from "../operators/executor-fixtures";
import { collect } from "../executor/test-helpers";
import { tracing, waitingWeatherTool } from "./test-tracing";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const usage = { inputTokens: 10, outputTokens: 5 };


const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
  name: "weather",
  description: "Tells the weather.",
  schema: z.object({ city: z.string() }),
});

function weatherExecutor(telemetry: TelemetryOptions, responses?: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"]) {
  const llm = new ScriptedChatModel({
    responses: responses ?? [{ toolCalls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }], usage }, { content: "It is sunny in Paris.", usage }],
  });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], telemetry });
}

const millis = ([seconds, nanos]: readonly [number, number]) => seconds * 1e3 + nanos / 1e6;
const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const parentOf = (span: ReadableSpan, spans: ReadableSpan[]) => spans.find((other) => other.spanContext().spanId === span.parentSpanContext?.spanId);

afterEach(() => {
  trace.disable();
});

/** A scripted model that reports its usage the legacy way only: `llmOutput.tokenUsage`, no `usage_metadata` on its reply. */
class LegacyUsageModel extends ScriptedChatModel {
  override async _generate(...args: Parameters<ScriptedChatModel["_generate"]>): ReturnType<ScriptedChatModel["_generate"]> {
    return withLegacyUsage(await super._generate(...args));
  }
}

describe("telemetry", () => {
  it("reads a model's legacy usage (llmOutput.tokenUsage) into the chat and agent spans, under invoke and stream", async () => {
    for (const mode of ["invoke", "stream"] as const) {
      const { exporter, tracer } = tracing();
      const llm = new LegacyUsageModel({ responses: [{ toolCalls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }], usage }, { content: "It is sunny in Paris.", usage }] });
      const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], telemetry: { tracer } });
      if (mode === "invoke") await executor.invoke({ input: "Weather in Paris?" });
      else await new Promise<void>((resolve, reject) => executor.stream({ input: "Weather in Paris?" }).subscribe({ complete: resolve, error: reject }));
      const spans = exporter.getFinishedSpans();
      const chats = byName(spans, "chat LegacyUsageModel");
      expect(chats, mode).toHaveLength(2);
      for (const chat of chats) expect(chat.attributes, mode).toMatchObject({ "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5 });
      expect(byName(spans, "invoke_agent")[0]?.attributes, mode).toMatchObject({ "gen_ai.usage.input_tokens": 20, "gen_ai.usage.output_tokens": 10 });
    }
  });

  it("names the provider as the conventions do, and counts cached, cache-written and reasoning tokens, under invoke and stream", async () => {
    class AzureModel extends ScriptedChatModel {
      override getLsParams(options: this["ParsedCallOptions"]) {
        return { ...super.getLsParams(options), ls_provider: "azure" };
      }
    }
    for (const mode of ["invoke", "stream"] as const) {
      const { exporter, tracer } = tracing();
      const reply = new AIMessage({
        content: "Hello.",
        usage_metadata: { input_tokens: 100, output_tokens: 40, total_tokens: 140, input_token_details: { cache_read: 60, cache_creation: 20 }, output_token_details: { reasoning: 30 } },
      });
      const llm = new AzureModel({ responses: [reply] });
      const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], telemetry: { tracer } });
      if (mode === "invoke") await executor.invoke({ input: "Hi" });
      else await collect(executor.stream({ input: "Hi" }));
      const [chat] = byName(exporter.getFinishedSpans(), "chat AzureModel");
      expect(chat?.attributes, mode).toMatchObject({
        "gen_ai.provider.name": "azure.ai.openai",
        "gen_ai.usage.input_tokens": 100,
        "gen_ai.usage.output_tokens": 40,
        "gen_ai.usage.cache_read.input_tokens": 60,
        "gen_ai.usage.cache_creation.input_tokens": 20,
        "gen_ai.usage.reasoning.output_tokens": 30,
      });
    }
  });

  it("a reply with partial usage counts what it reports: no NaN in the run's totals, no attribute for a missing count", async () => {
    const { exporter, tracer } = tracing();
    const partial = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }], usage_metadata: { input_tokens: 7 } as never });
    await weatherExecutor({ tracer }, [partial, { content: "Sunny.", usage }]).invoke({ input: "Weather in Paris?" });
    const spans = exporter.getFinishedSpans();
    expect(byName(spans, "invoke_agent")[0]?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 17, "gen_ai.usage.output_tokens": 5 });
    const [first] = byName(spans, "chat ScriptedChatModel");
    expect(first?.attributes["gen_ai.usage.input_tokens"]).toBe(7);
    expect(first?.attributes).not.toHaveProperty("gen_ai.usage.output_tokens");
  });

  it("makes an invoke_agent span with a chat span per model call and an execute_tool span per tool call, gen_ai attributes, no content by default", async () => {
    const { exporter, tracer } = tracing();
    const result = await weatherExecutor({ tracer }).invoke({ input: "Weather in Paris?" }, { runId: "run-1", threadId: "thread-1" });
    expect(result.output).toBe("It is sunny in Paris.");
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name).sort()).toEqual(["chat ScriptedChatModel", "chat ScriptedChatModel", "execute_tool weather", "invoke_agent"]);
    const [agent] = byName(spans, "invoke_agent");
    expect(agent?.parentSpanContext).toBeUndefined();
    expect(agent?.kind).toBe(SpanKind.INTERNAL);
    expect(agent?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "agentrx.run.id": "run-1",
      "gen_ai.conversation.id": "thread-1",
      "agentrx.stop_reason": "finish",
      "gen_ai.usage.input_tokens": 20,
      "gen_ai.usage.output_tokens": 10,
    });
    const chats = byName(spans, "chat ScriptedChatModel");
    for (const chat of chats) {
      expect(parentOf(chat, spans)).toBe(agent);
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "ScriptedChatModel", "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5 });
    }
    expect(chats.map((chat) => chat.attributes["gen_ai.response.finish_reasons"])).toEqual([["tool_calls"], ["stop"]]);
    const [toolSpan] = byName(spans, "execute_tool weather");
    expect(parentOf(toolSpan!, spans)).toBe(agent);
    expect(toolSpan?.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "weather", "gen_ai.tool.call.id": "call_1", "gen_ai.tool.type": "function" });
    // The tool ran between the two model calls.
    expect(toolSpan!.startTime >= chats[0]!.endTime || toolSpan!.startTime[0] >= chats[0]!.endTime[0]).toBe(true);
    for (const span of spans) {
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(Object.keys(span.attributes).filter((key) => /messages|arguments|result/.test(key))).toEqual([]);
    }
  });

  it("names an agent span after the run name only when the caller gave one, as gen_ai.agent.name says; on both paths", async () => {
    const { exporter, tracer } = tracing();
    const silent = RunnableLambda.from(async () => ({ returnValues: { output: "hi" }, log: "" }));
    for (const agent of [silent, markObservesModelCalls(RunnableLambda.from(async () => ({ returnValues: { output: "hi" }, log: "" })))]) {
      const executor = new AgentExecutor({ agent, tools: [], telemetry: { tracer } });
      await executor.invoke({ input: "hi" });
      await executor.invoke({ input: "hi" }, { runName: "support" });
    }
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => [span.name, span.attributes["gen_ai.agent.name"]])).toEqual([
      ["invoke_agent", undefined],
      ["invoke_agent support", "support"],
      ["invoke_agent", undefined],
      ["invoke_agent support", "support"],
    ]);
  });

  it("gives each model call's span the run's thread as gen_ai.conversation.id, on both paths; a sub-run's spans have none", async () => {
    const { exporter, tracer } = tracing();
    await weatherExecutor({ tracer }).invoke({ input: "Weather in Paris?" }, { threadId: "thread-7" });
    const model = new ScriptedChatModel({ responses: ["hi"] });
    const silent = RunnableLambda.from(async (input: { input: string }, options) => {
      const reply = await model.invoke([new HumanMessage(input.input)], options);
      return { returnValues: { output: String(reply.content) }, log: "" };
    });
    await new AgentExecutor({ agent: silent, tools: [], telemetry: { tracer } }).invoke({ input: "hello" }, { threadId: "thread-8" });
    let chats = byName(exporter.getFinishedSpans(), "chat ScriptedChatModel");
    expect(chats.map((chat) => chat.attributes["gen_ai.conversation.id"])).toEqual(["thread-7", "thread-7", "thread-8"]);

    exporter.reset();
    const inner = weatherExecutor({ tracer });
    const helper = inner.asTool({ name: "helper", description: "Answers.", schema: z.object({ input: z.string() }) });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "call_h", name: "helper", args: { input: "Weather in Paris?" } }] }, "Done."] });
    const outer = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [helper], prompt }), tools: [helper], telemetry: { tracer } });
    await outer.invoke({ input: "Ask the helper." }, { threadId: "thread-9" });
    const spans = exporter.getFinishedSpans();
    const root = spans.find((span) => span.parentSpanContext === undefined)!;
    chats = byName(spans, "chat ScriptedChatModel");
    expect(chats).toHaveLength(4);
    const own = chats.filter((chat) => parentOf(chat, spans) === root);
    expect(own.map((chat) => chat.attributes["gen_ai.conversation.id"])).toEqual(["thread-9", "thread-9"]);
    expect(chats.filter((chat) => !own.includes(chat)).map((chat) => chat.attributes["gen_ai.conversation.id"])).toEqual([undefined, undefined]);
  });

  it("records a model's request settings (top_p, top_k, penalties, seed, choice count, stop sequences) as the conventions name them, on both paths", async () => {
    class TunedModel extends ScriptedChatModel {
      override invocationParams() {
        return { temperature: 0.2, max_completion_tokens: 300, top_p: 0.9, top_k: 40, frequency_penalty: 0.1, presence_penalty: 0.3, seed: 7, n: 2, stop: ["END"] };
      }
    }
    const expected = {
      "gen_ai.request.temperature": 0.2,
      "gen_ai.request.max_tokens": 300,
      "gen_ai.request.top_p": 0.9,
      "gen_ai.request.top_k": 40,
      "gen_ai.request.frequency_penalty": 0.1,
      "gen_ai.request.presence_penalty": 0.3,
      "gen_ai.request.seed": 7,
      "gen_ai.request.choice.count": 2,
      "gen_ai.request.stop_sequences": ["END"],
    };
    const { exporter, tracer } = tracing();
    const llm = new TunedModel({ responses: ["hi"] });
    await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], telemetry: { tracer } }).invoke({ input: "hello" });
    const model = new TunedModel({ responses: ["hi"] });
    const silent = RunnableLambda.from(async (input: { input: string }, options) => {
      const reply = await model.invoke([new HumanMessage(input.input)], options);
      return { returnValues: { output: String(reply.content) }, log: "" };
    });
    await new AgentExecutor({ agent: silent, tools: [], telemetry: { tracer } }).invoke({ input: "hello" });
    const chats = exporter.getFinishedSpans().filter((span) => span.name.startsWith("chat "));
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(chat.attributes).toMatchObject(expected);

    // One choice (the default) is not recorded; a setting that is not a number is not either.
    exporter.reset();
    class PlainModel extends ScriptedChatModel {
      override invocationParams() {
        return { n: 1, seed: "7", top_k: 2.5 };
      }
    }
    const plain = new PlainModel({ responses: ["hi"] });
    await new AgentExecutor({ agent: createToolCallingAgent({ llm: plain, tools: [weather], prompt }), tools: [weather], telemetry: { tracer } }).invoke({ input: "hello" });
    const [chat] = exporter.getFinishedSpans().filter((span) => span.name.startsWith("chat "));
    expect(Object.keys(chat!.attributes).filter((key) => key.startsWith("gen_ai.request.") && key !== "gen_ai.request.model")).toEqual([]);
  });

  it("names a model subclass's chat span the same on both paths: its model name when it reports one, else its class name as callbacks see it", async () => {
    class TunedModel extends ScriptedChatModel {}
    const { exporter, tracer } = tracing();
    for (const options of [{}, { model: "tuned-1" }]) {
      const llm = new TunedModel({ responses: ["hi"], ...options });
      await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], telemetry: { tracer } }).invoke({ input: "hello" });
      const model = new TunedModel({ responses: ["hi"], ...options });
      const silent = RunnableLambda.from(async (input: { input: string }, config) => {
        const reply = await model.invoke([new HumanMessage(input.input)], config);
        return { returnValues: { output: String(reply.content) }, log: "" };
      });
      await new AgentExecutor({ agent: silent, tools: [], telemetry: { tracer } }).invoke({ input: "hello" });
    }
    const chats = exporter.getFinishedSpans().filter((span) => span.name.startsWith("chat "));
    expect(chats.map((chat) => [chat.name, chat.attributes["gen_ai.request.model"]])).toEqual([
      ["chat TunedModel", "TunedModel"],
      ["chat TunedModel", "TunedModel"],
      ["chat tuned-1", "tuned-1"],
      ["chat tuned-1", "tuned-1"],
    ]);
  });

  it("gives a run's span the provider of its own model calls when they all used one, on both paths; none when they used several or none", async () => {
    class OpenAiModel extends ScriptedChatModel {
      override getLsParams(options: this["ParsedCallOptions"]) {
        return { ...super.getLsParams(options), ls_provider: "openai" };
      }
    }
    class AnthropicModel extends ScriptedChatModel {
      override getLsParams(options: this["ParsedCallOptions"]) {
        return { ...super.getLsParams(options), ls_provider: "anthropic" };
      }
    }
    /** An agent that calls each model once, reporting its calls (the run's own path) or not (callbacks). */
    const calling = (models: ScriptedChatModel[], reports: boolean) => {
      const agent = RunnableLambda.from(async (input: { input: string }, options) => {
        const { observer, config } = reports ? takeModelCallObserver(options) : { observer: undefined, config: options };
        for (const model of models) {
          const sent = [new HumanMessage(input.input)];
          const startedAt = Date.now();
          const reply = await model.invoke(sent, config);
          observer?.({ input: sent, output: reply, startedAt, model });
        }
        return { returnValues: { output: "done" }, log: "" };
      });
      return reports ? markObservesModelCalls(agent) : agent;
    };
    const { exporter, tracer } = tracing();
    const runs = () => exporter.getFinishedSpans().filter((span) => span.name.startsWith("invoke_agent"));
    for (const reports of [true, false]) {
      exporter.reset();
      const models = [new OpenAiModel({ responses: ["a"] }), new OpenAiModel({ responses: ["b"], onExhausted: "repeat-last" }), new AnthropicModel({ responses: ["c"] })];
      await new AgentExecutor({ agent: calling(models.slice(0, 2), reports), tools: [], telemetry: { tracer } }).invoke({ input: "hi" }, { runName: "one" });
      await new AgentExecutor({ agent: calling(models.slice(1), reports), tools: [], telemetry: { tracer } }).invoke({ input: "hi" }, { runName: "several" });
      await new AgentExecutor({ agent: calling([], reports), tools: [], telemetry: { tracer } }).invoke({ input: "hi" }, { runName: "none" });
      expect(runs().map((span) => [span.name, span.attributes["gen_ai.provider.name"]])).toEqual([
        ["invoke_agent one", "openai"],
        ["invoke_agent several", undefined],
        ["invoke_agent none", undefined],
      ]);
    }

    // A sub-run's model calls are its own, not its caller's.
    exporter.reset();
    const helper = new AgentExecutor({ agent: calling([new AnthropicModel({ responses: ["c"] })], true), tools: [] }).asTool({ name: "helper", description: "Helps." });
    const llm = new OpenAiModel({ responses: [{ toolCalls: [{ id: "call_h", name: "helper", args: { input: "hi" } }] }, "Done."] });
    await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [helper], prompt }), tools: [helper], telemetry: { tracer } }).invoke({ input: "hi" }, { runName: "caller" });
    expect(runs().map((span) => [span.name, span.attributes["gen_ai.provider.name"]])).toEqual([
      ["invoke_agent", "anthropic"],
      ["invoke_agent caller", "openai"],
    ]);
  });

  it("gives a tool call's span the tool's description", async () => {
    const { exporter, tracer } = tracing();
    await weatherExecutor({ tracer }).invoke({ input: "Weather in Paris?" });
    expect(byName(exporter.getFinishedSpans(), "execute_tool weather")[0]?.attributes["gen_ai.tool.description"]).toBe("Tells the weather.");
  });

  it("records inputs and outputs only when asked", async () => {
    const { exporter, tracer } = tracing();
    await weatherExecutor({ tracer, recordInputs: true }).invoke({ input: "Weather in Paris?" });
    let spans = exporter.getFinishedSpans();
    expect(JSON.parse(String(byName(spans, "invoke_agent")[0]?.attributes["gen_ai.input.messages"]))).toEqual([{ role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] }]);
    expect(byName(spans, "execute_tool weather")[0]?.attributes["gen_ai.tool.call.arguments"]).toBe('{"city":"Paris"}');
    const second = JSON.parse(String(byName(spans, "chat ScriptedChatModel")[1]?.attributes["gen_ai.input.messages"]));
    expect(second).toEqual([
      { role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "weather", arguments: { city: "Paris" } }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: "Sunny in Paris" }] },
    ]);
    expect(spans.some((span) => "gen_ai.output.messages" in span.attributes || "gen_ai.tool.call.result" in span.attributes)).toBe(false);

    exporter.reset();
    await weatherExecutor({ tracer, recordOutputs: true }).invoke({ input: "Weather in Paris?" });
    spans = exporter.getFinishedSpans();
    expect(spans.some((span) => "gen_ai.input.messages" in span.attributes || "gen_ai.tool.call.arguments" in span.attributes)).toBe(false);
    expect(byName(spans, "execute_tool weather")[0]?.attributes["gen_ai.tool.call.result"]).toBe("Sunny in Paris");
    expect(JSON.parse(String(byName(spans, "chat ScriptedChatModel")[1]?.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "It is sunny in Paris." }], finish_reason: "stop" },
    ]);
    expect(JSON.parse(String(byName(spans, "invoke_agent")[0]?.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "It is sunny in Paris." }], finish_reason: "stop" },
    ]);
  });

  it("marks a failing tool and a failing model call as errors; the run's span fails with the run", async () => {
    const { exporter, tracer } = tracing();
    const broken = tool(async () => {
      throw new TypeError("no network");
    }, { name: "weather", description: "Tells the weather.", schema: z.object({ city: z.string() }) });
    const llm = new ScriptedChatModel({
      responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, new Error("model down")],
    });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [broken], prompt }), tools: [broken], telemetry: { tracer } });
    await expect(executor.invoke({ input: "Weather?" })).rejects.toThrow("model down");
    const spans = exporter.getFinishedSpans();
    const [toolSpan] = byName(spans, "execute_tool weather");
    expect(toolSpan?.status).toEqual({ code: SpanStatusCode.ERROR, message: "no network" });
    expect(toolSpan?.attributes["error.type"]).toBe("TypeError");
    expect(toolSpan?.events.map((event) => event.name)).toEqual(["exception"]);
    const chats = byName(spans, "chat ScriptedChatModel");
    expect(chats.map((chat) => chat.status.code)).toEqual([SpanStatusCode.UNSET, SpanStatusCode.ERROR]);
    expect(byName(spans, "invoke_agent")[0]?.status).toEqual({ code: SpanStatusCode.ERROR, message: "model down" });
  });

  it("ends the spans of a cancelled run with an error status marked as a cancellation", async () => {
    const { exporter, tracer } = tracing();
    const { slow, called: toolStarted } = waitingWeatherTool();
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [slow], prompt }), tools: [slow], telemetry: { tracer } });
    const controller = new AbortController();
    const run = executor.invoke({ input: "Weather?" }, { signal: controller.signal }).then(
      () => "finished",
      (error: unknown) => (error as Error).name,
    );
    await toolStarted;
    controller.abort();
    expect(await run).toBe("AbortError");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const [agent] = byName(exporter.getFinishedSpans(), "invoke_agent");
    expect(agent?.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent?.attributes).toMatchObject({ "error.type": "AbortError", "agentrx.cancelled": true });
    expect(byName(exporter.getFinishedSpans(), "execute_tool weather")[0]?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("gives an early call the model streamed without an id the id its turn gives it, even when the call ended before the answer; a call no turn kept ends without one", async () => {
    const { exporter, tracer } = tracing();
    const work = tool(async ({ name }: { name: string }) => `${name} done`, { name: "work", description: "Works.", schema: z.object({ name: z.string() }) });
    // No ids streamed: `a` and `b` start (and end) while the model still streams the rest.
    const llm = new ScriptedChatModel({
      tokenDelayMs: 10,
      responses: [{ toolCalls: [{ name: "work", args: { name: "a" }, id: "" }, { name: "work", args: { name: "b" }, id: "" }, { name: "work", args: { name: "c" }, id: "" }] }, "ok"],
    });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [work], prompt }), tools: [work], eagerTools: true, telemetry: { tracer } });
    const events = await collect(executor.stream({ input: "go" }));
    const actions = events.filter((event): event is Extract<AgentStreamEvent, { type: "action" }> => event.type === "action");
    expect(actions.map((event) => event.early)).toEqual([true, true, true]);
    const spans = byName(exporter.getFinishedSpans(), "execute_tool work");
    expect(spans).toHaveLength(3);
    const [chat] = byName(exporter.getFinishedSpans(), "chat ScriptedChatModel");
    for (const event of actions) {
      const callId = (event.action as { toolCallId?: string }).toolCallId;
      expect(callId).toEqual(expect.any(String));
      const span = spans.find((candidate) => candidate.attributes["gen_ai.tool.call.id"] === callId);
      expect(span, `no span for ${callId}`).toBeDefined();
    }
    // The first call ended while the model still streamed: its span keeps that end, not the turn's.
    const first = spans.find((span) => span.attributes["gen_ai.tool.call.id"] === (actions[0]?.action as { toolCallId?: string }).toolCallId) as ReadableSpan;
    expect(millis(first.endTime)).toBeLessThan(millis((chat as ReadableSpan).endTime));

    // A call the answer did not keep (streamed next to a final answer) ends, without an id.
    const traced = tracing();
    const Answer = z.object({ answer: z.string() });
    const answering = new ScriptedChatModel({ tokenDelayMs: 10, responses: [{ toolCalls: [{ name: "work", args: { name: "x" }, id: "" }, { name: "final_answer", args: { answer: "hi" }, id: "" }] }] });
    const structured = new AgentExecutor({ agent: createToolCallingAgent({ llm: answering, tools: [work, finalAnswerTool(Answer)], prompt }), tools: [work], eagerTools: true, outputSchema: Answer, telemetry: { tracer: traced.tracer } });
    expect((await structured.invoke({ input: "go" })).structuredOutput).toEqual({ answer: "hi" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const dropped = byName(traced.exporter.getFinishedSpans(), "execute_tool work");
    expect(dropped).toHaveLength(1);
    expect(dropped[0]?.attributes["gen_ai.tool.call.id"]).toBeUndefined();
  });

  it("ends a held early call's span with the run when the run is cancelled before the model answered", async () => {
    const { exporter, tracer } = tracing();
    let ended!: () => void;
    const workEnded = new Promise<void>((resolve) => (ended = resolve));
    const work = tool(async () => (ended(), "done"), { name: "work", description: "Works.", schema: z.object({ name: z.string() }) });
    const llm = new ScriptedChatModel({ tokenDelayMs: 40, responses: [{ toolCalls: [{ name: "work", args: { name: "a" }, id: "" }, { name: "work", args: { name: "b" }, id: "" }] }] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [work], prompt }), tools: [work], eagerTools: true, telemetry: { tracer } });
    const controller = new AbortController();
    const run = executor.invoke({ input: "go" }, { signal: controller.signal }).catch((error: unknown) => (error as Error).name);
    await workEnded;
    await new Promise((resolve) => setTimeout(resolve, 15)); // `a` settles; `b` is still streaming
    controller.abort();
    expect(await run).toBe("AbortError");
    await new Promise((resolve) => setTimeout(resolve, 20));
    // `a` ended well before the cancellation: its span, held for an id that never came, ended with the run.
    const spans = byName(exporter.getFinishedSpans(), "execute_tool work");
    const finished = spans.filter((span) => span.status.code !== SpanStatusCode.ERROR);
    expect(finished).toHaveLength(1);
    expect(finished[0]?.attributes["gen_ai.tool.call.id"]).toBeUndefined();
    expect(millis((finished[0] as ReadableSpan).endTime)).toBeLessThan(millis((byName(exporter.getFinishedSpans(), "invoke_agent")[0] as ReadableSpan).endTime));
  });

  it("nests a sub-run (asTool) under the tool call that ran it, in one trace", async () => {
    const { exporter, tracer } = tracing();
    const researcher = weatherExecutor({ tracer });
    const research = researcher.asTool({ name: "researcher", description: "Finds the weather." });
    const llm = new ScriptedChatModel({
      responses: [{ toolCalls: [{ name: "researcher", args: { input: "Paris" } }], usage }, { content: "Done.", usage }],
    });
    const supervisor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [research], prompt }), tools: [research], telemetry: { tracer } });
    await supervisor.invoke({ input: "Weather?" }, { runName: "supervisor" });
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(4 + 4);
    const [root] = byName(spans, "invoke_agent supervisor");
    const [call] = byName(spans, "execute_tool researcher");
    const [sub] = byName(spans, "invoke_agent");
    expect(parentOf(call!, spans)).toBe(root);
    expect(parentOf(sub!, spans)).toBe(call);
    expect(parentOf(byName(spans, "execute_tool weather")[0]!, spans)).toBe(sub);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    // The caller's usage counts its own model calls and the sub-run's.
    expect(root?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 40, "gen_ai.usage.output_tokens": 20 });
  });

  it("nests a sub-run whose agent does not report its model calls under the tool call too, traced through callbacks with the caller's settings", async () => {
    const { exporter, tracer } = tracing();
    const model = new ScriptedChatModel({ responses: [{ content: "Sunny.", usage }] });
    const silent = RunnableLambda.from(async (input: { input: string }, options) => {
      const reply = await model.invoke([new HumanMessage(input.input)], options);
      return { returnValues: { output: String(reply.content) }, log: "" };
    });
    // The sub-run's executor has no `telemetry` of its own: its caller's applies.
    const research = new AgentExecutor({ agent: silent, tools: [] }).asTool({ name: "researcher", description: "Finds the weather." });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "researcher", args: { input: "Paris" } }], usage }, { content: "Done.", usage }] });
    const supervisor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [research], prompt }), tools: [research], telemetry: { tracer, recordInputs: true } });
    await supervisor.invoke({ input: "Weather?" }, { runName: "supervisor", threadId: "t-1" });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name).sort()).toEqual(["chat ScriptedChatModel", "chat ScriptedChatModel", "chat ScriptedChatModel", "execute_tool researcher", "invoke_agent", "invoke_agent supervisor"]);
    const [root] = byName(spans, "invoke_agent supervisor");
    const [call] = byName(spans, "execute_tool researcher");
    const [sub] = byName(spans, "invoke_agent");
    expect(parentOf(sub!, spans)).toBe(call);
    expect(spans.filter((span) => parentOf(span, spans) === sub).map((span) => span.name)).toEqual(["chat ScriptedChatModel"]);
    expect(sub?.attributes["gen_ai.conversation.id"]).toBeUndefined();
    expect(root?.attributes["gen_ai.conversation.id"]).toBe("t-1");
    expect(sub?.attributes["gen_ai.input.messages"]).toContain("Paris");
    expect(root?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 15 });
  });

  it("a run paused for approval ends its span; the resumed segment is a span of its own with the same run id", async () => {
    const { exporter, tracer } = tracing();
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, "It is sunny in Paris."] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], needsApproval: () => true, telemetry: { tracer } });
    const paused = await executor.invoke({ input: "Weather?" }, { runId: "run-9", threadId: "t-9" });
    expect(paused.interrupts).toHaveLength(1);
    const resumed = await executor.resume("run-9", { decisions: { [paused.interrupts![0]!.id]: "approve" } });
    expect(resumed.output).toBe("It is sunny in Paris.");
    const agents = byName(exporter.getFinishedSpans(), "invoke_agent");
    expect(agents.map((span) => [span.attributes["agentrx.run.id"], span.attributes["agentrx.stop_reason"], span.attributes["gen_ai.conversation.id"]])).toEqual([
      ["run-9", "interrupted", "t-9"],
      ["run-9", "finish", "t-9"],
    ]);
    expect(byName(exporter.getFinishedSpans(), "execute_tool weather")).toHaveLength(1);
  });

  it("uses the global tracer provider when no tracer is given", async () => {
    const { exporter, provider } = tracing();
    trace.setGlobalTracerProvider(provider);
    await weatherExecutor({}).invoke({ input: "Weather in Paris?" });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.instrumentationScope.name)).toEqual(Array(4).fill("agentrx"));
  });

  it("traces a built-in agent without any callback handler; an agent that does not report its model calls is traced through callbacks", async () => {
    const { exporter, tracer } = tracing();
    const seen: unknown[] = [];
    const model = new ScriptedChatModel({ responses: [{ content: "hi", usage }, { content: "hi", usage }] });
    const reporting = markObservesModelCalls(
      RunnableLambda.from(async (input: { input: string }, options) => {
        const { observer, config } = takeModelCallObserver(options);
        seen.push(config.callbacks);
        const sent = [new HumanMessage(input.input)];
        const startedAt = Date.now();
        const reply = await model.invoke(sent, config);
        observer?.({ input: sent, output: reply, startedAt, model });
        return { returnValues: { output: String(reply.content) }, log: "" };
      }),
    );
    await new AgentExecutor({ agent: reporting, tools: [], telemetry: { tracer } }).invoke({ input: "hello" });
    expect(seen).toEqual([undefined]);
    let spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name).sort()).toEqual(["chat ScriptedChatModel", "invoke_agent"]);
    expect(byName(spans, "chat ScriptedChatModel")[0]?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5 });
    const chat = byName(spans, "chat ScriptedChatModel")[0]!;
    // The span starts when the call started, not when it was reported.
    expect(chat.startTime[0] * 1e3 + chat.startTime[1] / 1e6).toBeLessThanOrEqual(chat.endTime[0] * 1e3 + chat.endTime[1] / 1e6);

    exporter.reset();
    const silent = RunnableLambda.from(async (input: { input: string }, options) => {
      seen.push(options?.callbacks);
      const reply = await model.invoke([new HumanMessage(input.input)], options);
      return { returnValues: { output: String(reply.content) }, log: "" };
    });
    await new AgentExecutor({ agent: silent, tools: [], telemetry: { tracer } }).invoke({ input: "hello" });
    expect(seen[1]).toBeDefined();
    spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name).sort()).toEqual(["chat ScriptedChatModel", "invoke_agent"]);
  });

  it("starts a run's span under the context given under TELEMETRY_CONTEXT_KEY (a remote caller's span), on both paths", async () => {
    const { exporter, tracer } = tracing();
    const remote = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1, isRemote: true };
    const configurable = { [TELEMETRY_CONTEXT_KEY]: trace.setSpanContext(ROOT_CONTEXT, remote) };
    await weatherExecutor({ tracer }).invoke({ input: "Weather in Paris?" }, { configurable });
    const silent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
    await new AgentExecutor({ agent: silent, tools: [], telemetry: { tracer } }).invoke({ input: "hello" }, { configurable });
    const spans = exporter.getFinishedSpans();
    const agents = byName(spans, "invoke_agent");
    expect(agents).toHaveLength(2);
    for (const agent of agents) {
      expect(agent.spanContext().traceId).toBe(remote.traceId);
      expect(agent.parentSpanContext).toMatchObject({ traceId: remote.traceId, spanId: remote.spanId, isRemote: true });
    }
    // Every other span is in the same trace, under the run's.
    expect(spans.every((span) => span.spanContext().traceId === remote.traceId)).toBe(true);
    expect(parentOf(byName(spans, "execute_tool weather")[0]!, spans)).toBe(agents[0]);
    // Without it, a root span.
    exporter.reset();
    await new AgentExecutor({ agent: silent, tools: [], telemetry: { tracer } }).invoke({ input: "hello" }, { configurable: { [TELEMETRY_CONTEXT_KEY]: "not a context" } });
    expect(exporter.getFinishedSpans()[0]?.parentSpanContext).toBeUndefined();
  });

  it("a registered context manager that throws costs the run its trace's links, never the run", async () => {
    const { tracer } = tracing();
    const broken = (): never => {
      throw new Error("context manager broken");
    };
    context.setGlobalContextManager({ active: broken, with: broken, bind: broken, enable: broken, disable: () => context as never });
    try {
      const result = await weatherExecutor({ tracer }).invoke({ input: "Weather in Paris?" });
      expect(result.output).toBe("It is sunny in Paris.");
      // (The SDK's span processor cannot export under such a manager either: spans are not checked.)
    } finally {
      context.disable();
    }
  });

  it("starts a run's span under the context active when invoke or stream was called, even when it is awaited outside it; its tools never see that context", async () => {
    const { exporter, tracer } = tracing();
    useAsyncContextManager({ context, ROOT_CONTEXT });
    try {
      const seen: unknown[] = [];
      const peek = tool(
        async (_input: { city: string }, config) => {
          seen.push((config?.configurable as Record<string, unknown> | undefined)?.[TELEMETRY_CONTEXT_KEY]);
          return "Sunny";
        },
        { name: "weather", description: "Tells the weather.", schema: z.object({ city: z.string() }) },
      );
      const executor = () => {
        const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, "Sunny."] });
        return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [peek], prompt }), tools: [peek], telemetry: { tracer } });
      };
      const request = tracer.startSpan("POST /chat");
      const inRequest = trace.setSpan(ROOT_CONTEXT, request);
      // Called inside the request's context, subscribed to (awaited) after it was left.
      const invoked = context.with(inRequest, () => executor().invoke({ input: "Weather?" }));
      const streamed = context.with(inRequest, () => executor().stream({ input: "Weather?" }));
      await invoked;
      await streamed;
      request.end();
      const spans = exporter.getFinishedSpans();
      const agents = byName(spans, "invoke_agent");
      expect(agents).toHaveLength(2);
      for (const agent of agents) expect(agent.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(seen).toEqual([undefined, undefined]);
      // Called outside any span: a root span, as before.
      exporter.reset();
      await executor().invoke({ input: "Weather?" });
      expect(byName(exporter.getFinishedSpans(), "invoke_agent")[0]?.parentSpanContext).toBeUndefined();
    } finally {
      context.disable();
    }
  });

  it("gives a sampler what is known when a call starts, and sets a model call's reply attributes after, as on a span opened before the call", async () => {
    const seen: Record<string, Attributes> = {};
    const sampler: Sampler = {
      shouldSample: (_context, _traceId, name, _kind, attributes) => {
        seen[name] = { ...attributes };
        return { decision: SamplingDecision.RECORD_AND_SAMPLED };
      },
      toString: () => "recording",
    };
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    await weatherExecutor({ tracer }).invoke({ input: "Weather in Paris?" });
    expect(seen["chat ScriptedChatModel"]).toEqual({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "ScriptedChatModel", "gen_ai.request.model": "ScriptedChatModel" });
    expect(seen["execute_tool weather"]).toEqual({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.description": "Tells the weather.", "gen_ai.tool.name": "weather", "gen_ai.tool.type": "function", "gen_ai.tool.call.id": "call_1" });
    const chats = byName(exporter.getFinishedSpans(), "chat ScriptedChatModel");
    expect(chats.map((chat) => chat.attributes)).toEqual([
      expect.objectContaining({ "gen_ai.request.model": "ScriptedChatModel", "gen_ai.response.finish_reasons": ["tool_calls"], "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5 }),
      expect.objectContaining({ "gen_ai.request.model": "ScriptedChatModel", "gen_ai.response.finish_reasons": ["stop"], "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5 }),
    ]);
  });

  it("runs each tool call with its execute_tool span active, so the tool's own spans are its children", async () => {
    const { exporter, tracer } = tracing();
    useAsyncContextManager({ context, ROOT_CONTEXT });
    try {
      const fetching = tool(
        async ({ city }: { city: string }) => {
          const inner = tracer.startSpan("GET /weather");
          inner.end();
          return `Sunny in ${city}`;
        },
        { name: "weather", description: "Tells the weather.", schema: z.object({ city: z.string() }) },
      );
      const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, "Sunny."] });
      await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [fetching], prompt }), tools: [fetching], telemetry: { tracer } }).invoke({ input: "Weather?" });
      const spans = exporter.getFinishedSpans();
      expect(parentOf(byName(spans, "GET /weather")[0]!, spans)).toBe(byName(spans, "execute_tool weather")[0]);
    } finally {
      context.disable();
    }
  });

  it("validates the option, naming what is wrong", () => {
    expect(() => weatherExecutor({ tracer: 5 } as never)).toThrow(/telemetry\.tracer/);
    expect(() => weatherExecutor({ recordInputs: "yes" } as never)).toThrow(/telemetry\.recordInputs/);
    expect(() => weatherExecutor({ sample: 1 } as never)).toThrow(/unknown option `telemetry\.sample`/);
    expect(() => weatherExecutor(null as never)).toThrow(/`telemetry` must be an object/);
  });

  it("costs nothing without the option: the config is untouched and no code imports @opentelemetry/api at load time", () => {
    const config = { tags: ["a"] };
    expect(withTelemetry(config, undefined, "run-1")).toBe(config);
    const root = fileURLToPath(new URL("..", import.meta.url));
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        // Tests and the test-only helpers (`test-*.ts`, which no module of the package imports) aside.
        return statSync(path).isDirectory() ? files(path) : name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(name) && !name.startsWith("test-") ? [path] : [];
      });
    const offenders = files(root).filter((path) => /^\s*import\s+(?!type\b)[^;]*from\s+["']@opentelemetry\//m.test(readFileSync(path, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("looks up the span above a run once per run started under a parent (a model call, a tool call, a sub-run)", async () => {
    const { exporter, tracer } = tracing();
    const handler = new TelemetryHandler({ tracer }, "run-1");
    const nearest = vi.spyOn(handler as unknown as { nearest(runId: string): unknown }, "nearest");
    const executor: Serialized = { lc: 1, type: "not_implemented", id: ["agentrx", "executors", "AgentExecutor"] };
    await handler.handleChainStart(executor, { input: "hi" }, "chain-1");
    expect(nearest).not.toHaveBeenCalled();
    await handler.handleChatModelStart({ lc: 1, type: "not_implemented", id: ["ScriptedChatModel"] }, [[new HumanMessage("hi")]], "llm-1", "chain-1");
    expect(nearest).toHaveBeenCalledTimes(1);
    await handler.handleToolStart({ lc: 1, type: "not_implemented", id: ["weather"] }, "{}", "tool-1", "chain-1");
    expect(nearest).toHaveBeenCalledTimes(2);
    await handler.handleChainStart(executor, { input: "sub" }, "chain-2", "tool-1");
    expect(nearest).toHaveBeenCalledTimes(3);
    await handler.handleChainEnd({ output: "sub" }, "chain-2");
    await handler.handleToolEnd("done", "tool-1");
    await handler.handleLLMEnd({ generations: [[{ text: "hi", message: new AIMessage("hi") } as never]] }, "llm-1");
    await handler.handleChainEnd({ output: "hi" }, "chain-1");
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => [span.name, parentOf(span, spans)?.name])).toEqual([
      ["invoke_agent", "execute_tool weather"],
      ["execute_tool weather", "invoke_agent"],
      ["chat ScriptedChatModel", "invoke_agent"],
      ["invoke_agent", undefined],
    ]);
  });
});
