// The capacity scenario: how many concurrent runs one process holds at a realistic load (see
// bench/capacity-setup.ts: 1 s to the first token, 50 tokens at 50 tokens/s, two 100 ms tools per
// tool turn, 3 model calls a run). Per concurrency level, N runs start spread over one second and
// each is timed from start to its last event; a run's added latency per step is its wall time over
// the ideal (every model call and tool at its scripted duration), divided by its 3 steps.
//
// Contestants: two floors (the run's waits as bare timers; the same agent runnable and tool in a
// bare loop, what any executor over a LangChain chat model pays), AgentRx in-process (no store,
// SQLite, PostgreSQL), LangGraph's `createAgent` with
// `PostgresSaver`, the AI SDK's `streamText` loop (no persistence), and AgentRx on 1, 2 and 4
// `@agentrx/bullmq` worker processes recording into PostgreSQL, each run followed live through
// `RunClient.events` from this process. PostgreSQL (DATABASE_URL) and Redis (REDIS_URL) rows are
// left out, with a line saying why, where those servers are not reachable.
//
// The default ramp is 50, 100, 250, 500, 1,000, 2,000 runs (a few minutes); `--full` adds 5,000,
// and `--levels=200,800` takes any list; `--in-process` leaves the worker rows out,
// `--workers=1,4` takes the worker process counts, `--only=sqlite` the contestants whose name has
// that text (docs/performance.md).
import { type ChildProcess, spawn } from "node:child_process";
import { setMaxListeners } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createToolCallingAgent } from "@agentrx/agents";
import { RunClient } from "@agentrx/bullmq";
import type { AgentStep } from "@agentrx/core";
import type { AgentExecutor, AgentStreamEvent } from "@agentrx/executors";
import { PostgresRunStore, SqliteRunStore } from "@agentrx/runs";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import pg from "pg";
import type { Observable } from "rxjs";
import { countToolResults } from "./ai-sdk";
import type { WorkerReport } from "./capacity-worker";
import {
  ANSWER,
  FIRST_TOKEN_MS,
  IDEAL_RUN_MS,
  STEPS,
  TOKEN_MS,
  TOOL_MS,
  capacityExecutor,
  capacityModel,
  sleepTool,
  timerFloorRun,
  turnOf,
} from "./capacity-setup";
import { collectGarbage } from "./measure";
import { prompt } from "./setup";
import { sleep, sleepUntil } from "./sleep";
import type { Row } from "./scenarios";
import { DATABASE_URL, REDIS_URL, type WorkerArgs, dropRedisPrefix, unreachable } from "./services";

const WORKER = fileURLToPath(new URL("./capacity-worker.ts", import.meta.url));
const SPREAD_MS = 1000;
/** A level's ramp stops for a contestant once p99 added latency per step passes this (it is saturated). */
const SATURATED_MS = 1000;
const TARGET = { p99Ms: 25, lagMs: 50, heapKb: 30 };

/** One concurrency level of one contestant. */
export interface LevelResult {
  contestant: string;
  runs: number;
  p50Ms: number;
  p99Ms: number;
  lagP99Ms: number;
  heapKbPerRun: number;
  cpuMsPerRun: number;
  errors: number;
  seconds: number;
  /** Worker rows: CPU of this process (submitting and following the runs) per run. */
  clientCpuMsPerRun?: number;
}

interface Contestant {
  name: string;
  /**
   * One run; resolves true when it streamed its tokens and ended with the answer. `signal` aborts
   * at the level's deadline: a run still going then is cancelled, so it does not load the next level.
   */
  run: (index: number, level: number, signal: AbortSignal) => Promise<boolean>;
  close: () => Promise<void>;
}

/** The concurrency levels: `--levels=a,b,c`, `--full`, or the default short ramp. */
export function capacityLevels(argv: readonly string[]): number[] {
  const listed = argv.find((arg) => arg.startsWith("--levels="));
  if (listed !== undefined) {
    const levels = listed.slice("--levels=".length).split(",").map(Number);
    if (levels.length === 0 || levels.some((level) => !Number.isInteger(level) || level < 1)) {
      throw new Error(`capacity: --levels takes positive whole numbers separated by commas, got "${listed}".`);
    }
    return levels;
  }
  return argv.includes("--full") ? [50, 100, 250, 500, 1000, 2000, 5000] : [50, 100, 250, 500, 1000, 2000];
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/**
 * Starts `level` runs spread over `SPREAD_MS` and waits for them all (or a deadline: an unfinished
 * run counts as an error). Returns each finished run's added latency per step, and the errors.
 */
async function drive(level: number, run: (index: number, signal: AbortSignal) => Promise<boolean>): Promise<{ added: number[]; errors: number; seconds: number }> {
  const added: number[] = [];
  let errors = 0;
  let late = 0;
  let firstError: unknown;
  const started = performance.now();
  const deadline = new AbortController();
  setMaxListeners(0, deadline.signal); // every run of the level listens to it
  const all = Promise.all(
    Array.from({ length: level }, async (_, index) => {
      await sleep((index * SPREAD_MS) / level);
      const start = performance.now();
      try {
        if (await run(index, deadline.signal)) added.push((performance.now() - start - IDEAL_RUN_MS) / STEPS);
        else errors++;
      } catch (error) {
        if (deadline.signal.aborted) late++;
        else firstError ??= error;
        errors++;
      }
    }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), SPREAD_MS + IDEAL_RUN_MS * 4 + 30_000)));
  if ((await Promise.race([all, timeout])) === "late") {
    // Cancel what is still going (it would load the next level), and give it a moment to stop.
    deadline.abort(new Error("capacity: the level's deadline passed"));
    await Promise.race([all, sleep(10_000)]);
    errors = level - added.length;
    process.stderr.write(`capacity: ${level - added.length} of ${level} runs had not ended at the level's deadline (cancelled: ${late})\n`);
  }
  clearTimeout(timer);
  if (firstError !== undefined) process.stderr.write(`capacity: a run failed: ${(firstError as Error).message ?? String(firstError)}\n`);
  return { added, errors, seconds: (performance.now() - started) / 1000 };
}

/**
 * When a level's heap is read: every run has started and is in its second turn. A full garbage
 * collection first, so the figure is what the runs in flight hold, not garbage waiting for a sweep.
 */
export const HEAP_SAMPLE_MS = SPREAD_MS + 3000;

/** Heap held now above `baseline`, after a full collection. */
export function retainedHeap(baseline: number): number {
  collectGarbage();
  return process.memoryUsage().heapUsed - baseline;
}

/** A level in this process: event-loop lag, heap and CPU measured here. */
async function inProcessLevel(contestant: Contestant, level: number): Promise<LevelResult> {
  collectGarbage();
  const baseline = process.memoryUsage().heapUsed;
  let heap = 0;
  const sampler = setTimeout(() => (heap = retainedHeap(baseline)), HEAP_SAMPLE_MS);
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const cpu = process.cpuUsage();
  const { added, errors, seconds } = await drive(level, (index, signal) => contestant.run(index, level, signal));
  const { user, system } = process.cpuUsage(cpu);
  lag.disable();
  clearTimeout(sampler);
  return {
    contestant: contestant.name,
    runs: level,
    p50Ms: percentile(added, 50),
    p99Ms: percentile(added, 99),
    lagP99Ms: lag.percentile(99) / 1e6,
    heapKbPerRun: heap / 1024 / level,
    cpuMsPerRun: (user + system) / 1000 / level,
    errors,
    seconds,
  };
}

/** Follows an AgentRx run's events: true when tokens came and the output is the answer. */
function consume(events$: Observable<AgentStreamEvent>): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    let tokens = 0;
    let answered = false;
    events$.subscribe({
      next: (event) => {
        if (event.type === "token") tokens++;
        else if (event.type === "output") answered = typeof event.output === "string" && event.output.endsWith(ANSWER);
      },
      error: reject,
      complete: () => resolve(answered && tokens > 0),
    });
  });
}

function agentrx(name: string, executor: AgentExecutor, close: () => Promise<void> = async () => undefined): Contestant {
  return { name, run: (index, _level, signal) => consume(executor.stream({ input: `go ${index}` }, { signal })), close };
}

/**
 * The LangChain floor: the load's agent runnable and tool in a bare loop (call the agent, run the
 * turn's tools at once, repeat), each call given the run's AbortSignal, its tokens read through a
 * callback handler run inline (`awaitHandlers`, as AgentRx's own is; LangChain's background
 * callback queue costs far more at this load). What any executor over a LangChain chat model pays
 * at this load; what AgentRx adds is the difference.
 */
function langChainFloor(): Contestant {
  const agent = createToolCallingAgent({ llm: capacityModel(), tools: [sleepTool], prompt });
  return {
    name: "LangChain floor (the agent and tools in a bare loop)",
    run: async (index, _level, signal) => {
      const counter = new TokenCounter();
      const config = { signal, callbacks: [counter] };
      let steps: AgentStep[] = [];
      for (;;) {
        const output = await agent.invoke({ input: `go ${index}`, steps }, config);
        if ("returnValues" in output) return counter.tokens > 0 && String(output.returnValues["output"]).endsWith(ANSWER);
        const actions = Array.isArray(output) ? output : [output];
        const done = await Promise.all(actions.map(async (action) => ({ action, observation: String(await sleepTool.invoke(action.toolInput as { i: number }, { signal: config.signal })) })));
        steps = steps.concat(done);
      }
    },
    close: async () => undefined,
  };
}

/** Counts a model's streamed tokens, inline, and listens to nothing else. */
class TokenCounter extends BaseCallbackHandler {
  name = "bench_token_counter";
  override awaitHandlers = true;
  override ignoreChain = true;
  override ignoreAgent = true;
  override ignoreRetriever = true;
  tokens = 0;

  override handleLLMNewToken(): void {
    this.tokens++;
  }
}

async function langGraph(schema: string, pool: pg.Pool): Promise<Contestant> {
  const { createAgent } = await import("langchain");
  const { PostgresSaver } = await import("@langchain/langgraph-checkpoint-postgres");
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  const checkpointer = PostgresSaver.fromConnString(DATABASE_URL, { schema });
  await checkpointer.setup();
  const agent = createAgent({ model: capacityModel(), tools: [sleepTool], checkpointer, systemPrompt: "You are a benchmark agent." });
  return {
    name: "LangGraph createAgent + PostgresSaver",
    run: async (index, level, signal) => {
      let tokens = 0;
      let text = "";
      const stream = await agent.stream(
        { messages: [{ role: "user", content: `go ${index}` }] },
        { streamMode: "messages", configurable: { thread_id: `capacity-${level}-${index}` }, signal },
      );
      for await (const [chunk] of stream) {
        if (chunk.getType() !== "ai") continue;
        tokens++;
        text = chunk.text ? text + chunk.text : text;
      }
      return tokens > 0 && text.endsWith(ANSWER);
    },
    close: () => checkpointer.end(),
  };
}

/** The load's model as an AI SDK language model: the same timeline as the LangChain model's (its test compares them). */
export function aiSdkModel(): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: "bench",
    modelId: "capacity",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("the capacity model only streams")),
    doStream: async ({ prompt, abortSignal }) => {
      const { text, toolCalls } = turnOf(countToolResults(prompt));
      const words = text.match(/\S+\s*/g) ?? [];
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async start(controller) {
          try {
            // Each part is due at a fixed time from the call's start, as the LangChain model's chunks are.
            const began = performance.now();
            let due = began + FIRST_TOKEN_MS;
            controller.enqueue({ type: "stream-start", warnings: [] });
            await sleepUntil(due, abortSignal);
            controller.enqueue({ type: "text-start", id: "text" });
            for (const [position, word] of words.entries()) {
              if (position > 0) await sleepUntil((due += TOKEN_MS), abortSignal);
              controller.enqueue({ type: "text-delta", id: "text", delta: word });
            }
            controller.enqueue({ type: "text-end", id: "text" });
            for (const call of toolCalls) {
              await sleepUntil((due += TOKEN_MS), abortSignal);
              controller.enqueue({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.args) });
            }
            controller.enqueue({
              type: "finish",
              finishReason: { unified: toolCalls.length > 0 ? "tool-calls" : "stop", raw: undefined },
              usage: {
                inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: words.length, text: words.length, reasoning: 0 },
              },
            });
            controller.close();
          } catch (error) {
            controller.error(error);
          }
        },
      });
      return { stream };
    },
  };
}

async function aiSdk(): Promise<Contestant> {
  const { stepCountIs, streamText, tool } = await import("ai");
  const { z } = await import("zod");
  const model = aiSdkModel();
  const tools = {
    sleep: tool({
      description: "Sleeps 100 ms, then returns a value.",
      inputSchema: z.object({ i: z.number() }),
      execute: async ({ i }, { abortSignal }) => {
        await sleep(TOOL_MS, abortSignal);
        return `value ${i}`;
      },
    }),
  };
  return {
    name: "AI SDK streamText (no store)",
    run: async (index, _level, signal) => {
      const result = streamText({ model, tools, stopWhen: stepCountIs(10), system: "You are a benchmark agent.", prompt: `go ${index}`, abortSignal: signal });
      let tokens = 0;
      let text = "";
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") {
          tokens++;
          text += part.text;
        } else if (part.type === "error") throw part.error;
      }
      return tokens > 0 && text.endsWith(ANSWER);
    },
    close: async () => undefined,
  };
}

interface WorkerProcess {
  child: ChildProcess;
  stopped: Promise<void>;
}

/** The next IPC message of `type` from a worker process. */
function nextMessage<T extends { type: string }>(child: ChildProcess, type: T["type"]): Promise<T> {
  return new Promise<T>((resolve) => {
    const listener = (message: T) => {
      if (message?.type !== type) return;
      child.off("message", listener);
      resolve(message);
    };
    child.on("message", listener);
  });
}

/** AgentRx on `count` BullMQ worker processes, each run followed live from this process. */
async function workerLevels(count: number, levels: number[], ctx: { prefix: string; schema: string; store: PostgresRunStore }): Promise<LevelResult[]> {
  const queueName = `capacity-${count}`;
  const concurrency = Math.max(...levels);
  const workers: WorkerProcess[] = await Promise.all(
    Array.from({ length: count }, async () => {
      const args: WorkerArgs = { redisUrl: REDIS_URL, prefix: ctx.prefix, queueName, connectionString: DATABASE_URL, schema: ctx.schema, concurrency };
      // Profiling flags given to the bench (`node --cpu-prof ...`) profile the workers too.
      const profiling = process.execArgv.filter((arg) => arg.startsWith("--cpu-prof") || arg.startsWith("--heap-prof"));
      const child = spawn(process.execPath, ["--expose-gc", ...profiling, "--import", "tsx", WORKER, JSON.stringify(args)], { stdio: ["ignore", "pipe", "inherit", "ipc"] });
      const stopped = new Promise<void>((resolve) => child.once("close", () => resolve()));
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
        void stopped.then(() => reject(new Error("a capacity worker process exited before it was ready")));
      });
      return { child, stopped };
    }),
  );
  const client = new RunClient({ connection: { url: REDIS_URL }, store: ctx.store, queueName, prefix: ctx.prefix });
  const name = `AgentRx, ${count} BullMQ worker${count === 1 ? "" : "s"} + PostgreSQL + follower`;
  const run = async (index: number, signal?: AbortSignal) => {
    const runId = await client.submit("bench", { input: `go ${index}` });
    const cancel = () => void client.cancel(runId).catch(() => undefined);
    signal?.addEventListener("abort", cancel, { once: true });
    try {
      return await consume(client.events(runId));
    } finally {
      signal?.removeEventListener("abort", cancel);
    }
  };
  const results: LevelResult[] = [];
  try {
    await Promise.all(Array.from({ length: count * 2 }, (_, index) => run(index))); // warm-up
    for (const level of levels) {
      const begun = workers.map((worker) => nextMessage<{ type: "begun" }>(worker.child, "begun"));
      for (const worker of workers) worker.child.send("begin");
      await Promise.all(begun);
      const reports = workers.map((worker) => nextMessage<WorkerReport>(worker.child, "report"));
      const clientCpu = process.cpuUsage();
      const { added, errors, seconds } = await drive(level, run);
      const { user, system } = process.cpuUsage(clientCpu);
      for (const worker of workers) worker.child.send("end");
      const measured = await Promise.all(reports);
      const result: LevelResult = {
        contestant: name,
        runs: level,
        p50Ms: percentile(added, 50),
        p99Ms: percentile(added, 99),
        lagP99Ms: Math.max(...measured.map((report) => report.lagP99Ms)),
        heapKbPerRun: measured.reduce((sum, report) => sum + report.heapBytes, 0) / 1024 / level,
        cpuMsPerRun: measured.reduce((sum, report) => sum + report.cpuMs, 0) / level,
        errors,
        seconds,
        clientCpuMsPerRun: (user + system) / 1000 / level,
      };
      results.push(result);
      report(result);
      if (!(result.p99Ms <= SATURATED_MS) || errors > 0) break;
    }
  } finally {
    await client.close().catch(() => undefined);
    for (const worker of workers) worker.child.kill("SIGTERM");
    await Promise.all(workers.map((worker) => worker.stopped));
  }
  return results;
}

function report(result: LevelResult): void {
  process.stderr.write(
    `  ${result.contestant} x ${result.runs}: p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms per step, ` +
      `lag p99 ${result.lagP99Ms.toFixed(1)} ms, ${result.heapKbPerRun.toFixed(1)} KB/run, ${result.cpuMsPerRun.toFixed(1)} CPU ms/run, ` +
      `${result.clientCpuMsPerRun === undefined ? "" : `${result.clientCpuMsPerRun.toFixed(1)} client CPU ms/run, `}${result.errors} errors (${result.seconds.toFixed(1)} s)\n`,
  );
}

/** Whether a level meets the targets: p99 added per step, event-loop lag, no errors. */
export function holds(result: LevelResult): boolean {
  return result.errors === 0 && result.p99Ms <= TARGET.p99Ms && result.lagP99Ms <= TARGET.lagMs;
}

/** The largest level a contestant held (0 when none). */
function held(results: LevelResult[], contestant: string): number {
  return Math.max(0, ...results.filter((result) => result.contestant === contestant && holds(result)).map((result) => result.runs));
}

function printTable(results: LevelResult[]): void {
  const header = ["contestant", "runs", "p50 ms/step", "p99 ms/step", "lag p99 ms", "KB/run", "CPU ms/run", "client CPU", "errors", "holds"];
  const format = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(1));
  const table = results.map((result) => [
    result.contestant,
    String(result.runs),
    format(result.p50Ms),
    format(result.p99Ms),
    format(result.lagP99Ms),
    format(result.heapKbPerRun),
    format(result.cpuMsPerRun),
    result.clientCpuMsPerRun === undefined ? "-" : format(result.clientCpuMsPerRun),
    String(result.errors),
    holds(result) ? "yes" : "no",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((cells) => (cells[column] ?? "").length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ");
  console.log(`capacity: 3 model calls a run (1 s to first token, 50 tokens at 50/s), two ${TOOL_MS} ms tools per tool turn; ideal run ${IDEAL_RUN_MS} ms`);
  console.log(`machine: ${cpus().length} CPUs, load average ${loadavg().map((value) => value.toFixed(1)).join(" ")} (1, 5, 15 min) at the end`);
  console.log("client CPU = the bench process's CPU per run on worker rows: submitting each run and following it live (RunClient)");
  console.log(`holds = no errors, p99 added per step <= ${TARGET.p99Ms} ms, event-loop lag p99 <= ${TARGET.lagMs} ms (the worker's, for worker rows)`);
  console.log(line(header));
  console.log(line(widths.map((width) => "-".repeat(width))));
  for (const cells of table) console.log(line(cells));
  console.log("");
}

const FLAGS = ["--levels=", "--full", "--in-process", "--workers=", "--only="];
const USAGE = `npm run bench -- capacity [--levels=100,500 | --full] [--in-process] [--workers=1,2,4] [--only=<text>]
  --levels=a,b   the concurrency levels (default: 50, 100, 250, 500, 1000, 2000)
  --full         the default ramp and 5000
  --in-process   leave the BullMQ worker rows out
  --workers=1,4  the worker process counts (default: 1, 2, 4)
  --only=text    only the contestants whose name contains the text (e.g. sqlite, langgraph, worker)`;

/** Refuses a flag the capacity scenario does not know (a typo would otherwise run the whole default ramp). */
export function checkCapacityFlags(argv: readonly string[]): void {
  const unknown = argv.filter((arg) => arg.startsWith("--") && !FLAGS.some((flag) => (flag.endsWith("=") ? arg.startsWith(flag) : arg === flag)));
  if (unknown.length > 0) throw new Error(`capacity: unknown flag ${unknown.join(", ")}; usage:\n${USAGE}`);
}

export async function capacity(): Promise<Row[]> {
  if (process.argv.includes("--help")) {
    console.log(USAGE);
    return [];
  }
  checkCapacityFlags(process.argv.slice(2));
  const levels = capacityLevels(process.argv.slice(2));
  const problems = await unreachable();
  if (problems.postgres) process.stderr.write(`${problems.postgres}: the PostgreSQL capacity rows (LangGraph, workers) are left out.\n`);
  if (problems.redis) process.stderr.write(`${problems.redis}: the worker capacity rows are left out.\n`);
  const id = Math.random().toString(36).slice(2, 8);
  const schema = `agentrx_bench_capacity_${id}`;
  const graphSchema = `agentrx_bench_langgraph_${id}`;
  const prefix = `agentrx-bench-capacity-${id}`;
  const dir = mkdtempSync(join(tmpdir(), "agentrx-bench-capacity-"));
  const sqlite = new SqliteRunStore({ path: join(dir, "runs.db") });
  const pool = problems.postgres ? undefined : new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  const postgres = problems.postgres ? undefined : new PostgresRunStore({ connectionString: DATABASE_URL, schema });
  const results: LevelResult[] = [];
  try {
    const contestants: (() => Promise<Contestant>)[] = [
      async () => ({ name: "timer floor (the run's waits, no framework)", run: async () => (await timerFloorRun(), true), close: async () => undefined }), // ends by itself
      async () => langChainFloor(),
      async () => agentrx("AgentRx in-process, no store", capacityExecutor()),
      async () => agentrx("AgentRx in-process + SQLite", capacityExecutor(sqlite)),
      ...(postgres ? [async () => agentrx("AgentRx in-process + PostgreSQL", capacityExecutor(postgres))] : []),
      ...(pool ? [() => langGraph(graphSchema, pool)] : []),
      aiSdk,
    ];
    const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length).toLowerCase();
    for (const make of contestants) {
      const contestant = await make();
      if (only !== undefined && !contestant.name.toLowerCase().includes(only)) {
        await contestant.close();
        continue;
      }
      try {
        await Promise.all(Array.from({ length: 4 }, (_, index) => contestant.run(index, 0, new AbortController().signal))); // warm-up
        for (const level of levels) {
          const result = await inProcessLevel(contestant, level);
          results.push(result);
          report(result);
          if (!(result.p99Ms <= SATURATED_MS) || result.errors > 0) break;
        }
      } finally {
        await contestant.close();
      }
    }
    if (postgres && !problems.redis && !process.argv.includes("--in-process")) {
      await postgres.listRuns({ limit: 1 }); // creates the tables before the workers open the store
      const counts = process.argv.find((arg) => arg.startsWith("--workers="))?.slice("--workers=".length).split(",").map(Number) ?? [1, 2, 4];
      if (counts.some((count) => !Number.isInteger(count) || count < 1)) throw new Error("capacity: --workers takes positive whole numbers separated by commas.");
      if (only === undefined || "agentrx, bullmq workers + postgresql + follower".includes(only)) {
        for (const count of counts) results.push(...(await workerLevels(count, levels, { prefix, schema, store: postgres })));
      }
    }
  } finally {
    await sqlite.close();
    await postgres?.close();
    if (pool) {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await pool.query(`DROP SCHEMA IF EXISTS "${graphSchema}" CASCADE`).catch(() => undefined);
      await pool.end();
    }
    rmSync(dir, { recursive: true, force: true });
    if (!problems.redis) await dropRedisPrefix(prefix);
  }
  printTable(results);
  return summaryRows(results);
}

function levelsOf(results: LevelResult[]): number[] {
  return results.map((result) => result.runs);
}

/** The rows of the bench's table: the targets the capacity table is about. */
function summaryRows(results: LevelResult[]): Row[] {
  const rows: Row[] = [];
  const oneWorker = "AgentRx, 1 BullMQ worker + PostgreSQL + follower";
  const fourWorkers = "AgentRx, 4 BullMQ workers + PostgreSQL + follower";
  const graph = "LangGraph createAgent + PostgresSaver";
  const sdk = "AI SDK streamText (no store)";
  const inProcess = "AgentRx in-process + PostgreSQL";
  const noStore = "AgentRx in-process, no store";
  const lcFloor = "LangChain floor (the agent and tools in a bare loop)";
  const top = Math.max(0, ...results.map((result) => result.runs));
  const heldBy = (contestant: string) => held(results, contestant);
  if (results.some((result) => result.contestant === oneWorker)) {
    rows.push({
      scenario: `capacity: runs 1 worker process holds (ramp to ${top})`,
      metric: "concurrent runs",
      agentrx: heldBy(oneWorker),
      check: { label: "runs held", value: heldBy(oneWorker), limit: 2000, atLeast: true },
    });
  }
  if (results.some((result) => result.contestant === fourWorkers)) {
    const one = Math.max(1, heldBy(oneWorker));
    rows.push({
      // Both capped by the ramp's top level: when one worker holds it, the ratio is not measured.
      scenario: `capacity: runs 4 worker processes hold vs 1${heldBy(oneWorker) === top ? " (1 held the whole ramp: raise --levels)" : ""}`,
      metric: "concurrent runs",
      agentrx: heldBy(fourWorkers),
      floor: heldBy(oneWorker),
      check: { label: "4w/1w", value: heldBy(fourWorkers) / one, limit: 3.5, atLeast: true },
    });
  }
  // Runs each contestant held in one process, side by side: AgentRx without a store against the
  // LangChain floor and the AI SDK (neither records), AgentRx recording into PostgreSQL against
  // LangGraph with its PostgresSaver.
  const ran = (contestant: string) => results.some((result) => result.contestant === contestant);
  if (ran(noStore)) {
    rows.push({
      scenario: `capacity: runs one process holds, no store (ramp to ${top})`,
      metric: "concurrent runs",
      agentrx: heldBy(noStore),
      ...(ran(lcFloor) ? { floor: heldBy(lcFloor) } : {}),
      ...(ran(sdk) ? { aiSdk: heldBy(sdk) } : {}),
      check: { label: "agentrx - ai-sdk", value: heldBy(noStore) - heldBy(sdk), limit: 0, atLeast: true },
    });
  }
  if (ran(inProcess) && ran(graph)) {
    rows.push({
      scenario: `capacity: runs one process holds, recorded in PostgreSQL (ramp to ${top})`,
      metric: "concurrent runs",
      agentrx: heldBy(inProcess),
      langchainV1: heldBy(graph),
      check: { label: "agentrx - langgraph", value: heldBy(inProcess) - heldBy(graph), limit: 0, atLeast: true },
    });
  }
  const recorded = results.filter((result) => result.contestant === inProcess || result.contestant === "AgentRx in-process + SQLite");
  const heaviest = recorded.filter((result) => result.runs === Math.max(...recorded.map((r) => r.runs)));
  if (heaviest.length > 0) {
    const kb = Math.max(...heaviest.map((result) => result.heapKbPerRun));
    rows.push({
      scenario: `capacity: heap per run in flight, recorded, in-process (${heaviest[0]?.runs} runs)`,
      metric: "KB per run",
      agentrx: kb,
      check: { label: "KB/run", value: kb, limit: TARGET.heapKb },
    });
  }
  // CPU per run at the lowest level, against LangGraph and the AI SDK: what a run costs its process
  // (it bounds the runs a core holds, and moves less than latency when other work shares the machine).
  const low = Math.min(...levelsOf(results));
  const cpuAt = (contestant: string) => results.find((result) => result.contestant === contestant && result.runs === low)?.cpuMsPerRun;
  for (const [ours, other] of [
    [inProcess, graph],
    ["AgentRx in-process, no store", sdk],
  ] as const) {
    const mine = cpuAt(ours);
    const theirs = cpuAt(other);
    if (mine === undefined || theirs === undefined) continue;
    rows.push({
      scenario: `capacity: CPU per run at ${low} runs, AgentRx ${ours.replace("AgentRx ", "")} vs ${other} (floor column)`,
      metric: "CPU ms per run",
      agentrx: mine,
      floor: theirs,
      check: { label: "agentrx/other", value: mine / theirs, limit: 1 },
    });
  }
  return rows;
}
