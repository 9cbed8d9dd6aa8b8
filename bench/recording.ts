// Recording scenarios: what recording a run into a store costs, per step and for many runs at once,
// and whether what a step writes stays the same size as the run grows.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedCall } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { MemoryRunStore, PostgresRunStore, SqliteRunStore } from "@agentrx/runs";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";
import { median, rotate, timeInterleaved, withPeakHeap } from "./measure";
import type { Row } from "./scenarios";
import { prompt, stepScript } from "./setup";

const noop = tool(async ({ i }: { i: number }) => `ok ${i}`, { name: "noop", description: "Does nothing.", schema: z.object({ i: z.number() }) });

function executorOf(steps: number, store: RunStore | undefined, latencyMs = 0, recordModelCalls = true) {
  const model = new ScriptedChatModel({ responses: [stepScript(steps, { tool: "noop" })], onExhausted: "cycle", latencyMs });
  const agent = createToolCallingAgent({ llm: model, tools: [noop], prompt });
  const executor = new AgentExecutor({ agent, tools: [noop], maxIterations: 1000, recordModelCalls, ...(store ? { store } : {}) });
  const run = async (input = "go") => {
    await lastValueFrom(executor.invoke({ input }));
  };
  return { run, reset: () => ((model.calls as ScriptedCall[]).length = 0) };
}

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function postgresStore(): Promise<{ store: PostgresRunStore; drop: () => Promise<void> } | undefined> {
  const schema = `agentrx_bench_${Math.random().toString(36).slice(2, 8)}`;
  const store = new PostgresRunStore({ connectionString: DATABASE_URL, schema });
  try {
    await store.listRuns({ limit: 1 });
  } catch (error) {
    process.stderr.write(`PostgreSQL is not reachable (${(error as Error).message}): its recording rows are left out.\n`);
    await store.close().catch(() => undefined);
    return undefined;
  }
  return {
    store,
    drop: async () => {
      await store.close();
      const pg = (await import("pg")).default;
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** Wraps a store to count the bytes each write sends (events and run update, as JSON). */
function countingStore(inner: RunStore): { store: RunStore; bytes: () => number } {
  let bytes = 0;
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name === "write") {
        return (runId: string, write: Parameters<RunStore["write"]>[1]) => {
          bytes += JSON.stringify(write.events).length + JSON.stringify(write.update ?? {}).length;
          return target.write(runId, write);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, bytes: () => bytes };
}

export async function recording(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "agentrx-bench-"));
  const sqlite = new SqliteRunStore({ path: join(dir, "runs.db") });
  const postgres = await postgresStore();
  const rows: Row[] = [];
  try {
    // Per-step cost, 20 zero-latency tool steps, recording off / SQLite / PostgreSQL.
    const off = executorOf(20, undefined);
    const onSqlite = executorOf(20, sqlite);
    const onPostgres = postgres ? executorOf(20, postgres.store) : undefined;
    const eventsOnly = executorOf(20, sqlite, 0, false);
    const pgEventsOnly = postgres ? executorOf(20, postgres.store, 0, false) : undefined;
    const variants: Record<string, () => Promise<unknown>> = {
      off: async () => (await off.run(), off.reset()),
      sqlite: async () => (await onSqlite.run(), onSqlite.reset()),
      eventsOnly: async () => (await eventsOnly.run(), eventsOnly.reset()),
    };
    if (onPostgres) variants["postgres"] = async () => (await onPostgres.run(), onPostgres.reset());
    if (pgEventsOnly) variants["pgEventsOnly"] = async () => (await pgEventsOnly.run(), pgEventsOnly.reset());
    const times = await timeInterleaved(variants, { warmup: 20, runs: 40 });
    const per = (name: string) => (times[name] ?? 0) / 20;
    rows.push({
      scenario: "20 tool steps, recorded in SQLite",
      metric: "ms per step",
      agentrx: per("sqlite"),
      floor: per("off"),
      check: { label: "sqlite/off", value: per("sqlite") / per("off"), limit: 1.5 },
    });
    rows.push({
      scenario: "the same, recordModelCalls: false",
      metric: "ms per step",
      agentrx: per("eventsOnly"),
      floor: per("off"),
      check: { label: "sqlite/off", value: per("eventsOnly") / per("off"), limit: 1.5 },
    });
    if (onPostgres) {
      rows.push({
        scenario: "20 tool steps, recorded in PostgreSQL",
        metric: "ms per step",
        agentrx: per("postgres"),
        floor: per("off"),
        check: { label: "postgres/off", value: per("postgres") / per("off"), limit: 2 },
      });
      rows.push({
        scenario: "the same, recordModelCalls: false",
        metric: "ms per step",
        agentrx: per("pgEventsOnly"),
        floor: per("off"),
        check: { label: "postgres/off", value: per("pgEventsOnly") / per("off"), limit: 2 },
      });
    }

    // Bytes a step writes: the marginal cost of 10 more steps after 10 and after 200.
    const bytesOf = async (steps: number) => {
      const counting = countingStore(new MemoryRunStore());
      await executorOf(steps, counting.store).run();
      return counting.bytes();
    };
    const at10 = ((await bytesOf(20)) - (await bytesOf(10))) / 10;
    const at200 = ((await bytesOf(210)) - (await bytesOf(200))) / 10;
    rows.push({
      scenario: "bytes written per step (SQLite form)",
      metric: "bytes at 10 -> at 200",
      agentrx: at200,
      floor: at10,
      check: { label: "at200/at10", value: at200 / at10, limit: 1.1 },
    });

    // 500 concurrent recorded 3-step runs with 20 ms model latency, against recording off.
    const concurrentOff = executorOf(3, undefined, 20);
    const concurrentOn = executorOf(3, sqlite, 20);
    const batch = (subject: ReturnType<typeof executorOf>) => async () => {
      await Promise.all(Array.from({ length: 500 }, (_, index) => subject.run(`go ${index}`)));
      subject.reset();
    };
    const batches = { off: batch(concurrentOff), sqlite: batch(concurrentOn) };
    for (const run of Object.values(batches)) await run();
    const wall: Record<string, number[]> = { off: [], sqlite: [] };
    const heap: Record<string, number[]> = { off: [], sqlite: [] };
    for (let round = 0; round < 4; round++) {
      for (const [name, run] of rotate(Object.entries(batches), round)) {
        const { ms, peakHeapMb } = await withPeakHeap(run);
        wall[name]?.push(ms);
        heap[name]?.push(peakHeapMb);
      }
    }
    const wallOff = median(wall["off"] ?? []);
    const wallOn = median(wall["sqlite"] ?? []);
    rows.push({
      scenario: "500 concurrent recorded runs (SQLite)",
      metric: "wall ms",
      agentrx: wallOn,
      floor: wallOff,
      check: { label: "sqlite/off", value: wallOn / wallOff, limit: 1.5 },
    });
    rows.push({
      scenario: "500 concurrent recorded runs (SQLite)",
      metric: "peak heap MB",
      agentrx: median(heap["sqlite"] ?? []),
      floor: median(heap["off"] ?? []),
      check: { label: "sqlite/off", value: median(heap["sqlite"] ?? []) / median(heap["off"] ?? []), limit: 1.5 },
    });
  } finally {
    await sqlite.close();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
