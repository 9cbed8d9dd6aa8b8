// Time to first chunk belongs to the call that streamed the chunk: with two model calls in one
// agent step, each span gets its own call's time, and calls that overlap (a chunk could be
// either's) get none rather than the other call's.
import { markObservesModelCalls, takeModelCallObserver } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { type AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";

const TTFC = "gen_ai.response.time_to_first_chunk";

/** An agent that makes two streamed model calls in one step (one after the other, or at once) and reports both. */
function twoCallAgent(fast: ScriptedChatModel, slow: ScriptedChatModel, together: boolean, ownFirstChunk?: number) {
  return markObservesModelCalls(
    RunnableLambda.from(async (input: { input: string }, options) => {
      const { observer, config } = takeModelCallObserver(options);
      const sent = [new HumanMessage(input.input)];
      const call = async (model: ScriptedChatModel) => {
        const startedAt = Date.now();
        let reply: AIMessageChunk | undefined;
        for await (const chunk of await model.stream(sent, config)) reply = reply ? reply.concat(chunk) : chunk;
        observer?.({ input: sent, output: reply as AIMessageChunk, startedAt, model, ...(ownFirstChunk === undefined ? {} : { firstChunkAt: startedAt + ownFirstChunk }) });
        return String(reply?.content);
      };
      const replies = together ? await Promise.all([call(slow), call(fast)]) : [await call(slow), await call(fast)];
      return { returnValues: { output: replies.join(" ") }, log: "" };
    }),
  );
}

/** The agent's two calls' chat spans; with `ownFirstChunk`, the agent reports that many ms after each call's start as its first chunk's time. */
async function chatSpans(together: boolean, ownFirstChunk?: number) {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
  const fast = new ScriptedChatModel({ responses: ["fast reply"] });
  const slow = new ScriptedChatModel({ responses: ["slow reply"], latencyMs: 300 });
  const executor = new AgentExecutor({ agent: twoCallAgent(fast, slow, together, ownFirstChunk), tools: [], telemetry: { tracer } });
  await lastValueFrom(executor.stream({ input: "hi" }).pipe(toArray()));
  return exporter.getFinishedSpans().filter((span) => span.name.startsWith("chat"));
}

describe("time to first chunk with two model calls in one step", () => {
  it("gives each of two calls made one after the other its own time", async () => {
    const spans = await chatSpans(false);
    expect(spans).toHaveLength(2);
    const [slow, fast] = spans.map((span) => span.attributes[TTFC] as number);
    expect(slow).toBeGreaterThanOrEqual(0.25);
    expect(fast).toBeLessThan(0.25);
  });

  it("gives none to calls that overlap, rather than one call's time to the other", async () => {
    const spans = await chatSpans(true);
    expect(spans).toHaveLength(2);
    expect(spans.map((span) => span.attributes[TTFC])).toEqual([undefined, undefined]);
  });

  it("keeps the time an agent reports for its own call over the one the executor saw for the step", async () => {
    // The agent knows which chunk was whose; the executor only sees the step's chunks.
    const spans = await chatSpans(true, 2_000);
    expect(spans.map((span) => span.attributes[TTFC])).toEqual([2, 2]);
    const sequential = await chatSpans(false, 2_000);
    expect(sequential.map((span) => span.attributes[TTFC])).toEqual([2, 2]);
  });
});
