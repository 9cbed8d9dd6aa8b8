// Test-only (not exported by the package): recorded runs for the trace page's and the CLI's tests,
// and for the screenshots in docs/trace-viewer.md.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type PriceTable, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { RetryableToolError, retryPolicy, timeoutPolicy, withPolicies } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/** Options of {@link recordTripRun}. */
export interface TripRunOptions {
  runId?: string;
  threadId?: string;
  /** Multiplies every delay (tool times, model latency): 1 for the docs' screenshots, less in tests. @default 1 */
  scale?: number;
  /** Replaces the hotel tool's answer (e.g. with markup, to test that it is shown as text). */
  hotelsAnswer?: string;
  /** Prices the model calls (the model reports the name `trip-model`), so the run has a cost. @default none */
  prices?: PriceTable;
}

/**
 * Records a trip-planning run into `store`: the model asks for three tools at once (flights are
 * slow; hotels fail once with a retryable error and succeed on the retry), then for the exchange
 * rate (its first attempt times out, the retry answers), then streams its answer. Resolves with
 * the run id.
 */
export async function recordTripRun(store: RunStore, options: TripRunOptions = {}): Promise<string> {
  const { runId = "trip-1", threadId = "support-42", scale = 1, hotelsAnswer, prices } = options;
  const ms = (value: number) => Math.max(1, Math.round(value * scale));
  const flights = tool(
    async ({ from, to }, config) => {
      await sleep(ms(1400), config?.signal);
      return `3 flights ${from} → ${to}: AF1234 07:10 (€189), KL1008 09:45 (€164), AF1680 18:20 (€142)`;
    },
    { name: "search_flights", description: "Flights between two cities.", schema: z.object({ from: z.string(), to: z.string(), date: z.string() }) },
  );
  const weather = tool(
    async ({ city }, config) => {
      await sleep(ms(180), config?.signal);
      return `${city}: 24°C, sunny; light wind`;
    },
    { name: "get_weather", description: "Weather forecast for a city.", schema: z.object({ city: z.string() }) },
  );
  let hotelCalls = 0;
  const hotels = withPolicies(
    tool(
      async ({ city }, config) => {
        hotelCalls++;
        await sleep(ms(220), config?.signal);
        if (hotelCalls === 1) throw new RetryableToolError({ message: "hotel API answered 503 Service Unavailable" });
        return hotelsAnswer ?? `${city}: Hôtel du Port (€96/night, 4.5★), Casa Blu (€120/night, 4.7★)`;
      },
      { name: "find_hotels", description: "Hotels in a city.", schema: z.object({ city: z.string(), nights: z.number() }) },
    ),
    [retryPolicy({ initialDelayMs: ms(150), jitter: false })],
  );
  let rateCalls = 0;
  const rates = withPolicies(
    tool(
      async ({ currency }, config) => {
        rateCalls++;
        await sleep(ms(rateCalls === 1 ? 5000 : 90), config?.signal);
        return `1 EUR = 1.0842 ${currency}`;
      },
      { name: "currency_rate", description: "Exchange rate from EUR.", schema: z.object({ currency: z.string() }) },
    ),
    [retryPolicy({ initialDelayMs: ms(50), jitter: false }), timeoutPolicy({ ms: ms(400) })],
  );
  const tools = [flights, weather, hotels, rates];
  const llm = new ScriptedChatModel({
    ...(prices !== undefined ? { model: "trip-model" } : {}),
    streaming: true,
    latencyMs: ms(350),
    tokenDelayMs: ms(12),
    responses: [
      {
        toolCalls: [
          { name: "search_flights", args: { from: "Paris", to: "Nice", date: "2026-06-12" } },
          { name: "get_weather", args: { city: "Nice" } },
          { name: "find_hotels", args: { city: "Nice", nights: 3 } },
        ],
      },
      { content: "Flights and hotels are in euros; let me get the dollar rate.", toolCalls: [{ name: "currency_rate", args: { currency: "USD" } }] },
      "The cheapest flight is AF1680 at 18:20 (€142, about $154). Nice will be sunny at 24°C; Hôtel du Port costs €96 a night, €288 for 3 nights (about $312).",
    ],
  });
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You plan trips. Call independent tools together."],
    ["human", "{input}"],
    ["placeholder", "{agent_scratchpad}"],
  ]);
  const agent = createToolCallingAgent({ llm, tools, prompt });
  const executor = new AgentExecutor({ agent, tools, store, maxIterations: 6, ...(prices !== undefined ? { prices } : {}) });
  await lastValueFrom(executor.stream({ input: "Plan a 3-night trip from Paris to Nice on June 12, prices in USD." }, { runId, threadId }));
  return runId;
}

/** Options of {@link writeSyntheticRun}. */
export interface SyntheticRunOptions {
  runId: string;
  /** Iterations, each with `toolsPerIteration` parallel tool calls. */
  iterations: number;
  toolsPerIteration: number;
  /** Characters of every observation. @default 30 */
  observationLength?: number;
  /** Characters of the observation of the first tool call. @default observationLength */
  firstObservationLength?: number;
  /** Leave the run `running`, without its output. @default false */
  running?: boolean;
  /** The run's first event's time. @default 1_700_000_000_000 */
  start?: number;
  /** Changes events before they are written (to damage a record, say). @default none */
  alter?: (event: StoredRunEvent) => StoredRunEvent;
}

/**
 * Writes a run's record directly (no executor), as the executor would: for large runs (1,000
 * steps, a 1 MB observation) that would be slow to run for real. Every model call takes 100 ms,
 * every tool call 50 ms plus 10 ms per position in its turn. Resolves with the events written.
 */
export async function writeSyntheticRun(store: RunStore, options: SyntheticRunOptions): Promise<StoredRunEvent[]> {
  const { runId, iterations, toolsPerIteration, observationLength = 30, running = false, start = 1_700_000_000_000 } = options;
  const { firstObservationLength = observationLength } = options;
  const alter = options.alter ?? ((event: StoredRunEvent) => event);
  const owner = "synthetic:1";
  await store.createRun({ runId, inputs: { input: "synthetic" }, status: "running", owner, leaseMs: 3_600_000, at: start });
  const events: StoredRunEvent[] = [];
  const add = (type: string, at: number, data: Record<string, unknown>) => events.push({ seq: events.length + 1, type, at, data: { type, at, ...data } as StoredRunEvent["data"] });
  const usage = { input_tokens: 100, output_tokens: 20, total_tokens: 120 };
  let t = start;
  add("start", t, { runId, inputs: { input: "synthetic" }, resumed: false });
  for (let iteration = 0; iteration < iterations; iteration++) {
    const ids = Array.from({ length: toolsPerIteration }, (_, index) => `call_${iteration}_${index}`);
    const toolCalls = ids.map((id, index) => ({ name: "lookup", args: { q: `item ${iteration}.${index}` }, id, type: "tool_call" }));
    const message = { type: "ai", data: { content: "", tool_calls: toolCalls, invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} } };
    t += 100;
    add("usage", t, { iteration, usage });
    add("model_call", t, { call: iteration, iteration, durationMs: 100, inputCount: 2 + iteration * 2, inputDigest: "0000000000000000", message });
    ids.forEach((id, index) => add("action", t, { iteration, index, action: { tool: "lookup", toolInput: { q: `item ${iteration}.${index}` }, toolCallId: id, log: "", messageLog: [message] } }));
    ids.forEach((_, index) => {
      const length = iteration === 0 && index === 0 ? firstObservationLength : observationLength;
      add("step", t + 50 + index * 10, { iteration, index, observation: `result ${iteration}.${index} `.padEnd(length, "x"), durationMs: 50 + index * 10 });
    });
    t += 50 + (toolsPerIteration - 1) * 10;
  }
  if (!running) {
    t += 100;
    add("usage", t, { iteration: iterations, usage });
    add("model_call", t, { call: iterations, iteration: iterations, durationMs: 100, inputCount: 2, inputDigest: "0000000000000000", message: { type: "ai", data: { content: "done", tool_calls: [], invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} } } });
    add("output", t, { runId, output: "done", returnValues: { output: "done" }, messages: [], stopReason: "finish", withSteps: false, usage });
  }
  for (let i = 0; i < events.length; i += 500) {
    const last = i + 500 >= events.length;
    await store.write(runId, {
      owner,
      leaseMs: 3_600_000,
      at: t,
      events: events.slice(i, i + 500).map(alter),
      ...(last && !running ? { update: { status: "finished" as const, stopReason: "finish", release: true } } : {}),
    });
  }
  return events;
}

/**
 * Writes a synthetic run (2 turns of 2 tool calls) whose event 4, the first turn's first action,
 * cannot be decoded; its step (event 6) then cannot be either. The events: 1 start, 2 usage,
 * 3 model_call, 4-5 actions, 6-7 steps, 8 usage, 9 model_call, 10-11 actions, 12-13 steps,
 * 14 usage, 15 model_call, 16 output.
 */
export async function writeDamagedRun(store: RunStore, runId: string): Promise<StoredRunEvent[]> {
  return writeSyntheticRun(store, {
    runId,
    iterations: 2,
    toolsPerIteration: 2,
    alter: (event) => (event.seq === 4 ? { ...event, data: { ...event.data, action: "garbage" } } : event),
  });
}
