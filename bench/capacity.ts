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
// that text (docs/performance.md). Every flag is checked before anything runs.
//
// Ctrl-C or SIGTERM stops the worker processes and removes what the scenario made (its PostgreSQL
// schemas, Redis keys and temporary directory) before the process exits (130 or 143).
import { type ChildProcess, spawn } from "node:child_process";
import { setMaxListeners } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { constants, cpus, loadavg, tmpdir } from "node:os";
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
/** Aborted when Ctrl-C or SIGTERM stops the scenario (see `capacity`): the level going cancels its runs. */
let interrupted: AbortSignal | undefined;

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
  /**
   * What ended the level early, e.g. "worker 2 exited with code 1 during level 250": the level
   * does not hold (whatever its figures), and the contestant's ramp stops there.
   */
  failure?: string;
}

/** The in-process contestants' names, in the order they run (what `--only` matches). */
const NAMES = {
  timer: "timer floor (the run's waits, no framework)",
  langChainFloor: "LangChain floor (the agent and tools in a bare loop)",
  noStore: "AgentRx in-process, no store",
  sqlite: "AgentRx in-process + SQLite",
  postgres: "AgentRx in-process + PostgreSQL",
  langGraph: "LangGraph createAgent + PostgresSaver",
  aiSdk: "AI SDK streamText (no store)",
} as const;
/** What `--only` matches for the worker rows (each row is named `workerRowName(count)`). */
const WORKER_ROWS = "AgentRx, BullMQ workers + PostgreSQL + follower";

function workerRowName(count: number): string {
  return `AgentRx, ${count} BullMQ worker${count === 1 ? "" : "s"} + PostgreSQL + follower`;
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
  if (listed !== undefined) return wholeNumbers(listed, "--levels");
  return argv.includes("--full") ? [50, 100, 250, 500, 1000, 2000, 5000] : [50, 100, 250, 500, 1000, 2000];
}

/** `--flag=1,2,3` as numbers, or an error naming the flag and what it got. */
function wholeNumbers(arg: string, flag: string): number[] {
  const text = arg.slice(flag.length + 1);
  const numbers = text.split(",").map((item) => (item.trim() === "" ? Number.NaN : Number(item)));
  if (numbers.some((number) => !Number.isInteger(number) || number < 1)) {
    throw new Error(`capacity: ${flag} takes positive whole numbers separated by commas, got "${arg}".`);
  }
  return numbers;
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/**
 * Starts `level` runs spread over `SPREAD_MS` and waits for them all (or a deadline: an unfinished
 * run counts as an error). Returns each finished run's added latency per step, and the errors.
 * When `stop` resolves first (a worker process exited), the runs still going are cancelled and
 * counted as errors, and `failure` says why.
 */
async function drive(
  level: number,
  run: (index: number, signal: AbortSignal) => Promise<boolean>,
  stop?: Promise<string>,
): Promise<{ added: number[]; errors: number; seconds: number; failure?: string }> {
  const added: number[] = [];
  let errors = 0;
  let late = 0;
  let firstError: unknown;
  const started = performance.now();
  const deadline = new AbortController();
  setMaxListeners(0, deadline.signal); // every run of the level listens to it
  const onInterrupt = () => deadline.abort(interrupted?.reason);
  interrupted?.addEventListener("abort", onInterrupt, { once: true });
  const all = Promise.all(
    Array.from({ length: level }, async (_, index) => {
      await sleep((index * SPREAD_MS) / level);
      if (deadline.signal.aborted) {
        errors++; // the level was stopped before this run's turn to start
        return;
      }
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
  const stopped = stop?.then((failure) => ({ failure }));
  const ended = await Promise.race([all, timeout, ...(stopped ? [stopped] : [])]);
  let failure: string | undefined;
  if (ended === "late" || (typeof ended === "object" && ended !== null && "failure" in ended)) {
    failure = ended === "late" ? undefined : ended.failure;
    // Cancel what is still going (it would load the next level), and give it a moment to stop.
    deadline.abort(new Error(failure === undefined ? "capacity: the level's deadline passed" : `capacity: ${failure}`));
    await Promise.race([all, sleep(10_000)]);
    errors = level - added.length;
    if (failure === undefined) process.stderr.write(`capacity: ${level - added.length} of ${level} runs had not ended at the level's deadline (cancelled: ${late})\n`);
  }
  clearTimeout(timer);
  interrupted?.removeEventListener("abort", onInterrupt);
  if (firstError !== undefined) process.stderr.write(`capacity: a run failed: ${(firstError as Error).message ?? String(firstError)}\n`);
  return { added, errors, seconds: (performance.now() - started) / 1000, ...(failure === undefined ? {} : { failure }) };
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

/** A worker process of the capacity scenario, watched from the bench process. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Its number, from 1, as messages name it. */
  number: number;
  /** Resolves, once the process has exited, with how: "worker 2 exited with code 1" (or "with signal SIGKILL"). */
  exited: Promise<string>;
  /** Resolves once the process has exited and its output has closed. */
  stopped: Promise<void>;
}

/** The worker processes started and not yet exited: what Ctrl-C stops (see `capacity`). */
const liveWorkers = new Set<WorkerProcess>();

/**
 * Watches a worker process: how it exits, and that it is stopped on Ctrl-C. A `send` to it always
 * passes a callback (see `tell`), so a process gone is an error there, never an unhandled 'error'
 * event; this listener reports what else fails (a spawn or a kill) as how the process ended.
 */
export function watchWorker(child: ChildProcess, number: number): WorkerProcess {
  let resolveExited: (how: string) => void = () => undefined;
  const exited = new Promise<string>((resolve) => (resolveExited = resolve));
  const worker: WorkerProcess = { child, number, exited, stopped: new Promise<void>((resolve) => child.once("close", () => resolve())) };
  child.once("exit", (code, signal) => resolveExited(`worker ${number} exited with ${signal === null ? `code ${code}` : `signal ${signal}`}`));
  child.on("error", (error) => {
    process.stderr.write(`capacity: worker ${number}: ${error.message}\n`);
    resolveExited(`worker ${number} failed: ${error.message}`);
  });
  liveWorkers.add(worker);
  void exited.then(() => liveWorkers.delete(worker));
  return worker;
}

/**
 * Starts `count` worker processes with `spawnWorker` (given each one's number, from 1) and waits
 * until each has printed "ready". When one exits first, every one already started is stopped and
 * the promise rejects with which one and how.
 */
export async function startWorkers(count: number, spawnWorker: (number: number) => ChildProcess): Promise<WorkerProcess[]> {
  const workers: WorkerProcess[] = [];
  try {
    // Every process is spawned (and listed) before the first await: a failure stops them all.
    await Promise.all(
      Array.from({ length: count }, (_, index) => {
        const worker = watchWorker(spawnWorker(index + 1), index + 1);
        workers.push(worker);
        return new Promise<void>((resolve, reject) => {
          let output = "";
          worker.child.stdout?.on("data", (chunk: Buffer) => {
            output += chunk.toString();
            if (output.includes("ready")) resolve();
          });
          void worker.exited.then((how) => reject(new Error(`capacity: ${how} before it was ready`)));
        });
      }),
    );
    return workers;
  } catch (error) {
    await stopWorkers(workers);
    throw error;
  }
}

/** Stops worker processes: SIGTERM (they close their BullMQ worker and store), SIGKILL for any still there after `graceMs`. */
export async function stopWorkers(workers: Iterable<WorkerProcess>, graceMs = 10_000): Promise<void> {
  const stopping = [...workers];
  for (const worker of stopping) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGTERM");
  const all = Promise.all(stopping.map((worker) => worker.stopped));
  if ((await Promise.race([all.then(() => "stopped"), sleep(graceMs).then(() => "late")])) === "late") {
    for (const worker of stopping) {
      if (worker.child.exitCode !== null || worker.child.signalCode !== null) continue;
      process.stderr.write(`capacity: worker ${worker.number} had not stopped ${graceMs / 1000} s after SIGTERM: SIGKILL\n`);
      worker.child.kill("SIGKILL");
    }
    await all;
  }
}

/**
 * The next IPC message of `type` from a worker process; rejects, saying how, when the process
 * exits first ("capacity: worker 2 exited with code 1 during level 250").
 */
function nextMessage<T extends { type: string }>(worker: WorkerProcess, type: T["type"], level: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const listener = (message: T) => {
      if (message?.type !== type) return;
      worker.child.off("message", listener);
      resolve(message);
    };
    worker.child.on("message", listener);
    void worker.exited.then((how) => {
      worker.child.off("message", listener);
      reject(new Error(`capacity: ${how} during level ${level}`));
    });
  });
}

/**
 * Sends `message` to a worker process. A process whose IPC channel has closed (it exited) rejects
 * with how it exited, instead of the unhandled ERR_IPC_CHANNEL_CLOSED of a bare `send`.
 */
function tell(worker: WorkerProcess, message: "begin" | "end", level: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = async (why: string) => {
      const how = await Promise.race([worker.exited, sleep(2000).then(() => `worker ${worker.number} could not be sent "${message}" (${why})`)]);
      reject(new Error(`capacity: ${how} during level ${level}`));
    };
    if (!worker.child.connected) return void failed("its IPC channel is closed");
    worker.child.send(message, (error) => (error ? void failed(error.message) : resolve()));
  });
}

/** Waits for all of `promises`; the first rejection is the result, and none is left unhandled. */
async function allOf<T>(promises: Promise<T>[]): Promise<T[]> {
  for (const promise of promises) promise.catch(() => undefined);
  return Promise.all(promises);
}

/**
 * One level on worker processes: each worker starts measuring ("begin", "begun"), `run` drives the
 * level's runs, each worker sends what it measured ("end", "report"). A worker that exits (or
 * cannot be told) during the level ends it: the level's row counts the runs that did not finish as
 * errors and says what happened in `failure`; nothing is thrown.
 */
export async function workerLevel(
  workers: readonly WorkerProcess[],
  level: number,
  name: string,
  run: (index: number, signal: AbortSignal) => Promise<boolean>,
): Promise<LevelResult> {
  const failed = (failure: unknown, errors: number, seconds = 0): LevelResult => ({
    contestant: name,
    runs: level,
    p50Ms: Number.NaN,
    p99Ms: Number.NaN,
    lagP99Ms: Number.NaN,
    heapKbPerRun: Number.NaN,
    cpuMsPerRun: Number.NaN,
    errors,
    seconds,
    failure: (failure instanceof Error ? failure.message : String(failure)).replace(/^capacity: /, ""),
  });
  try {
    const begun = workers.map((worker) => nextMessage<{ type: "begun" }>(worker, "begun", level));
    await allOf<unknown>([...workers.map((worker) => tell(worker, "begin", level)), ...begun]);
  } catch (error) {
    return failed(error, level); // no run started
  }
  const reports = workers.map((worker) => nextMessage<WorkerReport>(worker, "report", level));
  for (const report of reports) report.catch(() => undefined); // awaited below, unless the level fails first
  const gone = Promise.race(workers.map((worker) => worker.exited)).then((how) => `${how} during level ${level}`);
  const clientCpu = process.cpuUsage();
  const { added, errors, seconds, failure } = await drive(level, run, gone);
  const { user, system } = process.cpuUsage(clientCpu);
  if (failure !== undefined) return failed(failure, errors, seconds);
  let measured: WorkerReport[];
  try {
    measured = (await allOf<unknown>([...workers.map((worker) => tell(worker, "end", level)), ...reports])).slice(workers.length) as WorkerReport[];
  } catch (error) {
    return failed(error, errors, seconds);
  }
  return {
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
}

/** AgentRx on `count` BullMQ worker processes, each run followed live from this process. */
async function workerLevels(count: number, levels: number[], ctx: { prefix: string; schema: string; store: PostgresRunStore }): Promise<LevelResult[]> {
  const queueName = `capacity-${count}`;
  const concurrency = Math.max(...levels);
  const args: WorkerArgs = { redisUrl: REDIS_URL, prefix: ctx.prefix, queueName, connectionString: DATABASE_URL, schema: ctx.schema, concurrency };
  // Profiling flags given to the bench (`node --cpu-prof ...`) profile the workers too.
  const profiling = process.execArgv.filter((arg) => arg.startsWith("--cpu-prof") || arg.startsWith("--heap-prof"));
  const workers = await startWorkers(count, () =>
    spawn(process.execPath, ["--expose-gc", ...profiling, "--import", "tsx", WORKER, JSON.stringify(args)], { stdio: ["ignore", "pipe", "inherit", "ipc"] }),
  );
  const client = new RunClient({ connection: { url: REDIS_URL }, store: ctx.store, queueName, prefix: ctx.prefix });
  const name = workerRowName(count);
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
      const result = await workerLevel(workers, level, name, run);
      if (interrupted?.aborted) break; // Ctrl-C: the level did not finish, and the bench is stopping
      results.push(result);
      report(result);
      if (!(result.p99Ms <= SATURATED_MS) || result.errors > 0 || result.failure !== undefined) break;
    }
  } finally {
    await client.close().catch((error: Error) => process.stderr.write(`capacity: closing the RunClient failed: ${error.message}\n`));
    await stopWorkers(workers);
  }
  return results;
}

function report(result: LevelResult): void {
  const figure = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(1));
  process.stderr.write(
    `  ${result.contestant} x ${result.runs}: p50 ${figure(result.p50Ms)} ms, p99 ${figure(result.p99Ms)} ms per step, ` +
      `lag p99 ${figure(result.lagP99Ms)} ms, ${heapCell(result.heapKbPerRun)} KB/run, ${figure(result.cpuMsPerRun)} CPU ms/run, ` +
      `${result.clientCpuMsPerRun === undefined ? "" : `${figure(result.clientCpuMsPerRun)} client CPU ms/run, `}${result.errors} errors (${result.seconds.toFixed(1)} s)` +
      `${result.failure === undefined ? "" : `: ${result.failure}`}\n`,
  );
}

/** Whether a level meets the targets: p99 added per step, event-loop lag, no errors, not ended early. */
export function holds(result: LevelResult): boolean {
  return result.failure === undefined && result.errors === 0 && result.p99Ms <= TARGET.p99Ms && result.lagP99Ms <= TARGET.lagMs;
}

/**
 * The runs a contestant held: the largest level it met the targets at below the first level it
 * missed, the levels taken in increasing order (0 when it missed the lowest). A level passed above
 * a miss does not count: one run's timing decides p99 at a low level, and what the ramp asks is
 * how far the load goes before the first miss.
 */
export function held(results: readonly LevelResult[], contestant: string): number {
  let most = 0;
  for (const result of results.filter((candidate) => candidate.contestant === contestant).sort((a, b) => a.runs - b.runs)) {
    if (!holds(result)) break;
    most = result.runs;
  }
  return most;
}

/**
 * A level's KB/run cell: "~0" when the heap read after the level's collection was below the
 * baseline taken before it (what the runs hold is less than the heap moves by itself: noise).
 */
function heapCell(kb: number): string {
  if (Number.isNaN(kb)) return "-";
  return kb < 0 ? "~0" : kb.toFixed(1);
}

/** The capacity table: a row per contestant and level, the levels ended early, and what the columns mean. */
export function capacityTable(results: readonly LevelResult[]): string[] {
  const header = ["contestant", "runs", "p50 ms/step", "p99 ms/step", "lag p99 ms", "KB/run", "CPU ms/run", "client CPU", "errors", "holds"];
  const format = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(1));
  const table = results.map((result) => [
    result.contestant,
    String(result.runs),
    format(result.p50Ms),
    format(result.p99Ms),
    format(result.lagP99Ms),
    heapCell(result.heapKbPerRun),
    format(result.cpuMsPerRun),
    result.clientCpuMsPerRun === undefined ? "-" : format(result.clientCpuMsPerRun),
    String(result.errors),
    holds(result) ? "yes" : "no",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((cells) => (cells[column] ?? "").length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ");
  const lines = [
    `capacity: 3 model calls a run (1 s to first token, 50 tokens at 50/s), two ${TOOL_MS} ms tools per tool turn; ideal run ${IDEAL_RUN_MS} ms`,
    `machine: ${cpus().length} CPUs, load average ${loadavg().map((value) => value.toFixed(1)).join(" ")} (1, 5, 15 min) at the end`,
    "client CPU = the bench process's CPU per run on worker rows: submitting each run and following it live (RunClient)",
    `holds = no errors, p99 added per step <= ${TARGET.p99Ms} ms, event-loop lag p99 <= ${TARGET.lagMs} ms (the worker's, for worker rows)`,
  ];
  if (results.some((result) => result.heapKbPerRun < 0)) {
    lines.push("KB/run ~0 = the heap after the level's collection was below the baseline taken before the level: what the runs hold is less than the heap moves by itself");
  }
  lines.push(line(header), line(widths.map((width) => "-".repeat(width))), ...table.map(line));
  const failures = results.filter((result) => result.failure !== undefined);
  if (failures.length > 0) lines.push("levels ended early:", ...failures.map((result) => `  ${result.contestant} x ${result.runs}: ${result.failure}`));
  return lines;
}

const FLAGS = ["--levels=", "--full", "--in-process", "--workers=", "--only=", "--help"];
const USAGE = `npm run bench -- capacity [--levels=100,500 | --full] [--in-process] [--workers=1,2,4] [--only=<text>]
  --levels=a,b   the concurrency levels (default: 50, 100, 250, 500, 1000, 2000)
  --full         the default ramp and 5000
  --in-process   leave the BullMQ worker rows out
  --workers=1,4  the worker process counts (default: 1, 2, 4)
  --only=text    only the contestants whose name contains the text (e.g. sqlite, langgraph, worker)
Ctrl-C stops the worker processes and removes the bench's schemas, Redis keys and temporary directory before it exits.`;

/** The capacity scenario's options (docs/performance.md, "Running it"). */
export interface CapacityOptions {
  /** `--help`: print the flags and run nothing. */
  help: boolean;
  /** The concurrency levels (`--levels`, `--full`). */
  levels: number[];
  /** The worker process counts (`--workers`). */
  workers: number[];
  /** `--in-process`: no worker rows. */
  inProcess: boolean;
  /** `--only`, lower-cased: only the contestants whose name contains it. */
  only?: string;
}

function matches(name: string, only: string | undefined): boolean {
  return only === undefined || name.toLowerCase().includes(only);
}

/**
 * Reads and checks every flag of the capacity scenario, before anything runs: an unknown flag (a
 * typo would otherwise run the whole default ramp), a bad `--levels` or `--workers`, and an
 * `--only` that selects no contestant (with `--in-process`: none of the in-process ones) are refused
 * with an error that says so.
 */
export function parseCapacityFlags(argv: readonly string[]): CapacityOptions {
  const unknown = argv.filter((arg) => arg.startsWith("--") && !FLAGS.some((flag) => (flag.endsWith("=") ? arg.startsWith(flag) : arg === flag)));
  if (unknown.length > 0) throw new Error(`capacity: unknown flag ${unknown.join(", ")}; usage:\n${USAGE}`);
  const levels = capacityLevels(argv);
  const workersArg = argv.find((arg) => arg.startsWith("--workers="));
  const workers = workersArg === undefined ? [1, 2, 4] : wholeNumbers(workersArg, "--workers");
  const inProcess = argv.includes("--in-process");
  const onlyArg = argv.find((arg) => arg.startsWith("--only="));
  const only = onlyArg?.slice("--only=".length).toLowerCase();
  if (onlyArg !== undefined && only !== undefined) {
    if (only === "") throw new Error(`capacity: --only takes the text of a contestant's name (e.g. --only=sqlite); usage:\n${USAGE}`);
    const selectable = [...Object.values(NAMES), ...(inProcess ? [] : [WORKER_ROWS])];
    if (!selectable.some((name) => matches(name, only))) {
      const why = inProcess && matches(WORKER_ROWS, only) ? " (--in-process leaves the worker rows out)" : "";
      throw new Error(`capacity: ${onlyArg} selects no contestant${why}; the contestants: ${[...Object.values(NAMES), WORKER_ROWS].join("; ")}.`);
    }
  }
  return { help: argv.includes("--help"), levels, workers, inProcess, only };
}

/** Refuses what `parseCapacityFlags` refuses. */
export function checkCapacityFlags(argv: readonly string[]): void {
  parseCapacityFlags(argv);
}

/** Runs `work` (a step of the clean-up), giving up after `ms`; a failure is printed with what to do by hand. */
async function cleanUpStep(what: string, work: () => Promise<unknown> | unknown, byHand: string, ms = 10_000): Promise<void> {
  try {
    const outcome = await Promise.race([Promise.resolve().then(work).then(() => "done"), sleep(ms).then(() => "late")]);
    if (outcome === "late") process.stderr.write(`capacity: could not ${what} within ${ms / 1000} s${byHand ? `; ${byHand}` : ""}\n`);
  } catch (error) {
    process.stderr.write(`capacity: could not ${what} (${(error as Error).message ?? String(error)})${byHand ? `; ${byHand}` : ""}\n`);
  }
}

/**
 * The capacity scenario (`npm run bench -- capacity`, docs/performance.md): checks its flags, ramps
 * each contestant selected, prints its table and returns the bench's summary rows. What it makes
 * (schemas, Redis keys, a temporary directory, worker processes) is removed when it ends, and on
 * Ctrl-C or SIGTERM, after which the process exits 130 or 143.
 */
export async function capacity(): Promise<CapacityRow[]> {
  const options = parseCapacityFlags(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return [];
  }
  const { levels, only } = options;
  const problems = await unreachable();
  if (problems.postgres) process.stderr.write(`${problems.postgres}: the PostgreSQL capacity rows (LangGraph, workers) are left out.\n`);
  if (problems.redis) process.stderr.write(`${problems.redis}: the worker capacity rows are left out.\n`);
  const id = Math.random().toString(36).slice(2, 8);
  const schema = `agentrx_bench_capacity_${id}`;
  const graphSchema = `agentrx_bench_langgraph_${id}`;
  const prefix = `agentrx-bench-capacity-${id}`;
  const inProcess: { name: string; postgres?: true; make: () => Promise<Contestant> }[] = [
    { name: NAMES.timer, make: async () => ({ name: NAMES.timer, run: async () => (await timerFloorRun(), true), close: async () => undefined }) }, // ends by itself
    { name: NAMES.langChainFloor, make: async () => langChainFloor() },
    { name: NAMES.noStore, make: async () => agentrx(NAMES.noStore, capacityExecutor()) },
    { name: NAMES.sqlite, make: async () => agentrx(NAMES.sqlite, capacityExecutor(sqlite)) },
    { name: NAMES.postgres, postgres: true, make: async () => agentrx(NAMES.postgres, capacityExecutor(postgres)) },
    { name: NAMES.langGraph, postgres: true, make: () => langGraph(graphSchema, pool as pg.Pool) },
    { name: NAMES.aiSdk, make: aiSdk },
  ];
  const running = inProcess.filter((entry) => matches(entry.name, only) && !(entry.postgres && problems.postgres));
  const workerRows = !options.inProcess && matches(WORKER_ROWS, only) && !problems.postgres && !problems.redis;
  if (running.length === 0 && !workerRows) {
    // Only an --only can leave nothing: the timer floor needs no server.
    throw new Error(`capacity: nothing left to run: the contestants --only=${only} selects need the servers that are not reachable (above).`);
  }
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const sqlite = new SqliteRunStore({ path: join(dir, "runs.db") });
  const pool = problems.postgres ? undefined : new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  const postgres = problems.postgres ? undefined : new PostgresRunStore({ connectionString: DATABASE_URL, schema });

  // What the scenario made is removed once, when it ends or on Ctrl-C / SIGTERM (then the process
  // exits 130 / 143). The terminal sends Ctrl-C to the worker processes too; they close and exit.
  let cleaning: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      await stopWorkers(liveWorkers, 5000);
      await cleanUpStep("close the SQLite store", () => sqlite.close(), "");
      if (postgres) await cleanUpStep("close the PostgreSQL store", () => postgres.close(), "");
      if (pool) {
        for (const name of [schema, graphSchema]) {
          await cleanUpStep(`drop the schema ${name}`, () => pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`), `drop it by hand: DROP SCHEMA "${name}" CASCADE`);
        }
        await cleanUpStep("close the PostgreSQL pool", () => pool.end(), "");
      }
      await cleanUpStep(`remove ${dir}`, () => rmSync(dir, { recursive: true, force: true }), `remove it by hand: rm -r ${dir}`);
      if (!problems.redis) {
        await cleanUpStep(`delete the Redis keys ${prefix}:*`, () => dropRedisPrefix(prefix), `delete them by hand: redis-cli --scan --pattern '${prefix}:*' | xargs redis-cli unlink`);
      }
    })());
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // the warm-up runs and each level listen to it
  interrupted = stop.signal;
  let signalled: NodeJS.Signals | undefined;
  let repeated = false;
  const exitOnSignal = (signal: NodeJS.Signals) => process.exit(128 + (constants.signals[signal] ?? 0));
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled !== undefined) {
      // Ctrl-C reaches this process from the terminal and again through bench/index.ts: say it once.
      if (!repeated) process.stderr.write(`capacity: ${signal}: still removing what the bench made; it exits when done\n`);
      repeated = true;
      return;
    }
    signalled = signal;
    process.stderr.write(`capacity: ${signal}: stopping the worker processes and removing the bench's schemas, Redis keys (${prefix}:*) and ${dir}...\n`);
    stop.abort(new Error(`capacity: stopped by ${signal}`));
    void cleanUp().finally(() => exitOnSignal(signal));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const results: LevelResult[] = [];
  try {
    for (const entry of running) {
      stop.signal.throwIfAborted();
      const contestant = await entry.make();
      try {
        await Promise.all(Array.from({ length: 4 }, (_, index) => contestant.run(index, 0, stop.signal))); // warm-up
        for (const level of levels) {
          const result = await inProcessLevel(contestant, level);
          stop.signal.throwIfAborted(); // Ctrl-C: the level did not finish, and the bench is stopping
          results.push(result);
          report(result);
          if (!(result.p99Ms <= SATURATED_MS) || result.errors > 0) break;
        }
      } finally {
        await contestant.close();
      }
    }
    if (workerRows && postgres) {
      await postgres.listRuns({ limit: 1 }); // creates the tables before the workers open the store
      for (const count of options.workers) {
        stop.signal.throwIfAborted();
        results.push(...(await workerLevels(count, levels, { prefix, schema, store: postgres })));
      }
    }
  } finally {
    await cleanUp();
    if (signalled !== undefined) exitOnSignal(signalled); // what failed meanwhile was the clean-up's doing
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    interrupted = undefined;
  }
  for (const line of capacityTable(results)) console.log(line);
  console.log("");
  return summaryRows(results);
}

function levelsOf(results: LevelResult[]): number[] {
  return results.map((result) => result.runs);
}

/**
 * A row of the bench's summary table from the capacity scenario. Its columns: `agentrx` is AgentRx
 * as the row says; `floor` the LangChain floor; `aiSdk` the AI SDK's `streamText` loop; `langgraph`
 * LangGraph's `createAgent` with `PostgresSaver` (bench/index.ts prints that legend with them).
 */
export type CapacityRow = Row & { langgraph?: number };

/**
 * The rows of the bench's table: the targets the capacity table is about. "Held" is `held`: the
 * largest level below the contestant's first miss. A heap below the level's baseline counts as 0.
 */
export function summaryRows(results: LevelResult[]): CapacityRow[] {
  const rows: CapacityRow[] = [];
  const oneWorker = workerRowName(1);
  const fourWorkers = workerRowName(4);
  const graph = NAMES.langGraph;
  const sdk = NAMES.aiSdk;
  const inProcess = NAMES.postgres;
  const noStore = NAMES.noStore;
  const lcFloor = NAMES.langChainFloor;
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
      scenario: `capacity: runs 4 worker processes hold vs 1 (which held ${heldBy(oneWorker)})${heldBy(oneWorker) === top ? " (1 held the whole ramp: raise --levels)" : ""}`,
      metric: "concurrent runs",
      agentrx: heldBy(fourWorkers),
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
      langgraph: heldBy(graph),
      check: { label: "agentrx - langgraph", value: heldBy(inProcess) - heldBy(graph), limit: 0, atLeast: true },
    });
  }
  const recorded = results.filter((result) => (result.contestant === inProcess || result.contestant === NAMES.sqlite) && !Number.isNaN(result.heapKbPerRun));
  const heaviest = recorded.filter((result) => result.runs === Math.max(...recorded.map((r) => r.runs)));
  if (heaviest.length > 0) {
    const kb = Math.max(0, ...heaviest.map((result) => result.heapKbPerRun));
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
  const pairs = [
    { ours: inProcess, other: graph, versus: "LangGraph + PostgresSaver", column: "langgraph" },
    { ours: noStore, other: sdk, versus: "the AI SDK's streamText (no store)", column: "aiSdk" },
  ] as const;
  for (const { ours, other, versus, column } of pairs) {
    const mine = cpuAt(ours);
    const theirs = cpuAt(other);
    if (mine === undefined || theirs === undefined) continue;
    rows.push({
      scenario: `capacity: CPU per run at ${low} runs, ${ours} vs ${versus}`,
      metric: "CPU ms per run",
      agentrx: mine,
      [column]: theirs,
      check: { label: "agentrx/other", value: mine / theirs, limit: 1 },
    });
  }
  return rows;
}
