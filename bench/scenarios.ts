// The scenarios of docs/performance.md. Each returns rows for the table.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { AgentExecutor as ClassicAgentExecutor } from "@langchain/classic/agents";
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { aiSdkLoop } from "./ai-sdk";
import { collectGarbage, median, rotate, timeInterleaved, withPeakHeap } from "./measure";
import { type ClassicAgent, contestants, prompt, stepScript } from "./setup";

export interface Row {
  scenario: string;
  metric: string;
  agentrx: number;
  floor?: number;
  /** The floor with an AbortSignal on every call (what cancellation costs in @langchain/core). */
  floorSignal?: number;
  classic?: number;
  /** The AI SDK's `generateText` loop over a model with the same script and latency (no persistence). */
  aiSdk?: number;
  /** LangChain v1's `createAgent` (the `langchain` package) on the same script. */
  langchainV1?: number;
  /** The figure the target is about, e.g. agentrx / floor. */
  check: { label: string; value: number; limit: number; atLeast?: boolean };
}

const noop = tool(async ({ i }: { i: number }) => `ok ${i}`, {
  name: "noop",
  description: "Does nothing.",
  schema: z.object({ i: z.number() }),
});

const sleep100 = tool(
  ({ i }: { i: number }, config) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve(`slept ${i}`), 100);
      config?.signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(config.signal?.reason);
      }, { once: true });
    }),
  { name: "sleep", description: "Sleeps 100 ms.", schema: z.object({ i: z.number() }) },
);

function resetting(c: ReturnType<typeof contestants>) {
  const wrap = (run: (input: string) => Promise<unknown>) => async () => {
    await run("go");
    c.reset();
  };
  return { agentrx: wrap(c.agentrx), floor: wrap(c.floor), floorSignal: wrap(c.floorSignal), classic: wrap(c.classic) };
}

/** Per-step cost of a run of `steps` zero-latency tool steps, in ms, per contestant. */
async function perStepCost(steps: number, warmup: number, runs: number) {
  const c = contestants([noop], stepScript(steps, { tool: "noop" }));
  const times = await timeInterleaved(resetting(c), { warmup, runs });
  const per = (name: string) => (times[name] ?? 0) / steps;
  return { agentrx: per("agentrx"), floor: per("floor"), floorSignal: per("floorSignal"), classic: per("classic") };
}

export async function perStepOverhead(): Promise<Row[]> {
  const cost = await perStepCost(20, 30, 60);
  return [
    {
      scenario: "20 tool steps, 0 latency",
      metric: "ms per step",
      ...cost,
      check: { label: "agentrx/floor", value: cost.agentrx / cost.floor, limit: 1.25 },
    },
    {
      scenario: "20 tool steps, 0 latency",
      metric: "ms per step",
      ...cost,
      check: { label: "agentrx/classic", value: cost.agentrx / cost.classic, limit: 0.6 },
    },
  ];
}

export async function parallelTools(): Promise<Row[]> {
  const c = contestants([sleep100], stepScript(8, { tool: "sleep", callsPerTurn: 8 }));
  const times = await timeInterleaved(resetting(c), { warmup: 1, runs: 5 });
  return [
    {
      scenario: "1 turn of 8 parallel 100 ms tools",
      metric: "wall ms",
      agentrx: times.agentrx ?? 0,
      floor: times.floor ?? 0,
      floorSignal: times.floorSignal ?? 0,
      classic: times.classic ?? 0,
      check: { label: "agentrx wall ms", value: times.agentrx ?? 0, limit: 110 },
    },
  ];
}

export async function linearity(): Promise<Row[]> {
  const short = await perStepCost(10, 10, 15);
  const long = await perStepCost(200, 1, 5);
  const growth = {
    agentrx: long.agentrx / short.agentrx,
    floor: long.floor / short.floor,
    floorSignal: long.floorSignal / short.floorSignal,
    classic: long.classic / short.classic,
  };
  return [
    {
      scenario: "200 steps vs 10 steps",
      metric: "per-step cost ratio",
      ...growth,
      check: { label: "agentrx/floor", value: growth.agentrx / growth.floor, limit: 1.1 },
    },
  ];
}

export async function concurrentRuns(): Promise<Row[]> {
  const c = contestants([noop], stepScript(3, { tool: "noop" }), { latencyMs: 20 });
  const batch = (run: (input: string) => Promise<unknown>) => async () => {
    await Promise.all(Array.from({ length: 500 }, (_, index) => run(`go ${index}`)));
    c.reset();
  };
  const variants = {
    agentrx: batch(c.agentrx),
    floor: batch(c.floor),
    floorSignal: batch(c.floorSignal),
    classic: batch(c.classic),
    aiSdk: batch(aiSdkLoop(3, 20)),
  };
  for (const run of Object.values(variants)) await run(); // warm-up
  const wall: Record<string, number[]> = { agentrx: [], floor: [], floorSignal: [], classic: [], aiSdk: [] };
  const heap: Record<string, number[]> = { agentrx: [], floor: [], floorSignal: [], classic: [], aiSdk: [] };
  for (let round = 0; round < 6; round++) {
    for (const [name, run] of rotate(Object.entries(variants), round)) {
      const { ms, peakHeapMb } = await withPeakHeap(run);
      wall[name]?.push(ms);
      heap[name]?.push(peakHeapMb);
    }
  }
  const pick = (samples: Record<string, number[]>) => ({
    agentrx: median(samples.agentrx ?? []),
    floor: median(samples.floor ?? []),
    floorSignal: median(samples.floorSignal ?? []),
    classic: median(samples.classic ?? []),
    aiSdk: median(samples.aiSdk ?? []),
  });
  const w = pick(wall);
  const h = pick(heap);
  return [
    {
      scenario: "500 concurrent 3-step runs, 20 ms model",
      metric: "wall ms",
      ...w,
      check: { label: "agentrx/floor", value: w.agentrx / w.floor, limit: 1.25 },
    },
    {
      scenario: "500 concurrent 3-step runs, 20 ms model",
      metric: "peak heap MB",
      ...h,
      check: { label: "agentrx/classic", value: h.agentrx / h.classic, limit: 1 },
    },
    {
      scenario: "500 concurrent 3-step runs, 20 ms model",
      metric: "wall ms",
      ...w,
      check: { label: "agentrx/ai-sdk", value: w.agentrx / w.aiSdk, limit: 1 },
    },
    {
      scenario: "500 concurrent 3-step runs, 20 ms model",
      metric: "peak heap MB",
      ...h,
      check: { label: "agentrx/ai-sdk", value: h.agentrx / h.aiSdk, limit: 1 },
    },
  ];
}

/** A scripted model that records when it yields its first text chunk. */
class TimedModel extends ScriptedChatModel {
  firstChunkAt = 0;

  override async *_streamResponseChunks(
    ...args: Parameters<ScriptedChatModel["_streamResponseChunks"]>
  ): AsyncGenerator<ChatGenerationChunk> {
    let first = true;
    for await (const chunk of super._streamResponseChunks(...args)) {
      if (first && chunk.text) {
        first = false;
        this.firstChunkAt = performance.now();
      }
      yield chunk;
    }
  }
}

export async function tokenStreaming(): Promise<Row[]> {
  const TOKENS = 20_000;
  const text = Array.from({ length: TOKENS }, (_, index) => `t${index % 1000}`).join(" ");
  const model = new TimedModel({ responses: [text], onExhausted: "cycle" });
  const agent = createToolCallingAgent({ llm: model, tools: [noop], prompt });
  const executor = new AgentExecutor({ agent, tools: [noop] });
  // Classic's steps carry string observations, which AgentRx's agents read too (its own may also carry images).
  const classic = new ClassicAgentExecutor({ agent: agent as unknown as ClassicAgent, tools: [noop] });

  const direct = async () => {
    let count = 0;
    for await (const chunk of await model.stream("go")) if (typeof chunk.content === "string" && chunk.content) count++;
    return count;
  };
  const delays: number[] = [];
  const viaStream = () =>
    new Promise<number>((resolve, reject) => {
      let count = 0;
      executor.stream({ input: "go" }).subscribe({
        next: (event) => {
          if (event.type !== "token") return;
          if (count === 0) delays.push(performance.now() - model.firstChunkAt);
          count++;
        },
        error: reject,
        complete: () => resolve(count),
      });
    });
  const viaClassic = async () => {
    let count = 0;
    for await (const event of classic.streamEvents({ input: "go" }, { version: "v2" })) {
      if (event.event === "on_chat_model_stream" && event.data.chunk?.content) count++;
    }
    return count;
  };
  const rate = async (run: () => Promise<number>) => {
    const start = performance.now();
    const count = await run();
    (model.calls as unknown[]).length = 0;
    return (count / (performance.now() - start)) * 1000;
  };
  const rates: Record<string, number[]> = { direct: [], agentrx: [], classic: [] };
  for (let round = 0; round < 8; round++) {
    collectGarbage();
    const d = await rate(direct);
    const a = await rate(viaStream);
    const c = await rate(viaClassic);
    if (round < 2) continue;
    rates.direct?.push(d);
    rates.agentrx?.push(a);
    rates.classic?.push(c);
  }
  delays.splice(0, 2);
  const r = { agentrx: median(rates.agentrx ?? []), floor: median(rates.direct ?? []), classic: median(rates.classic ?? []) };
  const firstTokenDelay = median(delays);
  return [
    {
      scenario: `token events (${TOKENS} tokens)`,
      metric: "tokens/s",
      ...r,
      check: { label: "agentrx/direct", value: r.agentrx / r.floor, limit: 0.8, atLeast: true },
    },
    {
      scenario: "first token: model -> subscriber",
      metric: "ms",
      agentrx: firstTokenDelay,
      check: { label: "agentrx delay ms", value: firstTokenDelay, limit: 0.5 },
    },
  ];
}
