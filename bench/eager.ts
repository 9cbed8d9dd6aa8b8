// Eager tool dispatch: one turn whose model streams three tool calls 300 ms apart, the first tool
// taking 900 ms and the other two 300 ms, then a short answer; the run's wall time with and without
// `eagerTools`, against the limit this stream allows, and each tool's start against its call's
// completion (when the stream moved on from it).
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";
import type { Row } from "./scenarios";
import { prompt } from "./setup";

const DURATIONS: Record<string, number> = { a: 900, b: 300, c: 300 };

async function run(eagerTools: boolean): Promise<{ wall: number; starts: Record<string, number>; completions: number[] }> {
  const t0 = performance.now();
  const starts: Record<string, number> = {};
  const work = tool(
    async ({ name }: { name: string }) => {
      starts[name] = performance.now() - t0;
      await new Promise((resolve) => setTimeout(resolve, DURATIONS[name]));
      return `${name} done`;
    },
    { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
  );
  // Each tool call is one chunk, 300 ms after the previous one (the first at 300 ms).
  const llm = new ScriptedChatModel({
    tokenDelayMs: 300,
    toolCallChunkSize: 1_000,
    responses: [{ toolCalls: ["a", "b", "c"].map((name) => ({ name: "work", args: { name } })) }, "Done."],
  });
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [work], prompt }), tools: [work], eagerTools });
  // When each tool-call chunk arrived and when the first model call ended: a call is complete when
  // the next one arrives, or the stream ends.
  const arrivals: number[] = [];
  let ended: number | undefined;
  const watch = {
    handleLLMNewToken(_token: string, _idx: unknown, _run: string, _parent?: string, _tags?: string[], fields?: { chunk?: unknown }) {
      const chunk = fields?.chunk as { message?: { tool_call_chunks?: unknown[] } } | undefined;
      if (chunk?.message?.tool_call_chunks?.length) arrivals.push(performance.now() - t0);
    },
    handleLLMEnd() {
      ended ??= performance.now() - t0;
    },
  };
  // stream(): the model streams in both variants (under invoke it would answer at once without eagerTools).
  await lastValueFrom(executor.stream({ input: "go" }, { callbacks: [watch] }));
  const completions = [arrivals[1] ?? 0, arrivals[2] ?? 0, ended ?? 0];
  return { wall: performance.now() - t0, starts, completions };
}

export async function eagerDispatch(): Promise<Row[]> {
  await run(true); // warm-up
  const off = await run(false);
  const on = await run(true);
  // With calls complete when the stream moves on: a runs 600-1500, b 900-1200, c 900-1200.
  const limit = (on.completions[0] as number) + 900; // a, the longest, starts when b arrives (about 600 ms)
  const lag = Math.max(...["a", "b", "c"].map((name, index) => (on.starts[name] ?? Number.POSITIVE_INFINITY) - (on.completions[index] as number)));
  process.stderr.write(
    `eager tool starts (ms): ${["a", "b", "c"].map((name, index) => `${name} ${on.starts[name]?.toFixed(0)} (complete at ${on.completions[index]?.toFixed(0)})`).join(", ")}\n`,
  );
  return [
    { scenario: "3 streamed tool calls, eagerTools", metric: "wall ms", agentrx: on.wall, floor: off.wall, check: { label: "wall - limit", value: on.wall - limit, limit: 15 } },
    { scenario: "3 streamed tool calls, eagerTools", metric: "start lag ms", agentrx: lag, check: { label: "max start lag", value: lag, limit: 5 } },
  ];
}
