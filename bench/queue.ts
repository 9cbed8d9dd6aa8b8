// The queue scenario: latency-bound runs (a 200 ms model, two tools) on @agentrx/bullmq worker
// processes. Throughput with 1, 2 and 4 workers at a fixed concurrency each, and the latency a run
// gains going through the queue and the store (submit to result, one run at a time) against the
// same executor invoked in-process. Needs Redis (REDIS_URL) and PostgreSQL (DATABASE_URL); without
// them the rows are left out, with one line saying why.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { RunClient } from "@agentrx/bullmq";
import { PostgresRunStore } from "@agentrx/runs";
import pg from "pg";
import { lastValueFrom } from "rxjs";
import { median } from "./measure";
import { queueExecutor } from "./queue-executor";
import type { Row } from "./scenarios";
import { DATABASE_URL, REDIS_URL, type WorkerArgs, dropRedisPrefix, unreachable } from "./services";

const WORKER = fileURLToPath(new URL("./queue-worker.ts", import.meta.url));
const CONCURRENCY = 10;
const ROUNDS = 4;

interface Worker {
  child: ChildProcess;
  stopped: Promise<void>;
}

/** CPU time of a process (user + system), in ms, from /proc; undefined where there is none. */
function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100/s)
  } catch {
    return undefined;
  }
}

/** Busy and total jiffies of the whole machine, from /proc/stat. */
function machineCpu(): { busy: number; total: number } | undefined {
  try {
    const values = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").split(/\s+/).slice(1).map(Number);
    const total = values.reduce((sum, value) => sum + value, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

export async function queue(): Promise<Row[]> {
  const problems = await unreachable();
  const problem = problems.redis ?? problems.postgres;
  if (problem !== undefined) {
    process.stderr.write(`${problem}: the queue rows are left out.\n`);
    return [];
  }
  const id = Math.random().toString(36).slice(2, 8);
  const schema = `agentrx_bench_queue_${id}`;
  const prefix = `agentrx-bench-${id}`;
  const store = new PostgresRunStore({ connectionString: DATABASE_URL, schema });
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  const connection = { url: REDIS_URL };
  const workers: Worker[] = [];
  const clients: RunClient[] = [];
  let queues = 0;

  const startWorkers = async (count: number, queueName: string): Promise<Worker[]> => {
    const started = await Promise.all(
      Array.from({ length: count }, async () => {
        const args: WorkerArgs = { redisUrl: REDIS_URL, prefix, queueName, connectionString: DATABASE_URL, schema, concurrency: CONCURRENCY };
        // Profiling flags given to the bench (`node --cpu-prof ...`) profile each worker too.
        const profiling = process.execArgv.filter((arg) => arg.startsWith("--cpu-prof") || arg.startsWith("--heap-prof"));
        const child = spawn(process.execPath, [...profiling, "--import", "tsx", WORKER, JSON.stringify(args)], { stdio: ["ignore", "pipe", "inherit"] });
        const stopped = new Promise<void>((resolve) => child.once("close", () => resolve()));
        await new Promise<void>((resolve, reject) => {
          child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
          void stopped.then(() => reject(new Error("a bench worker process exited before it was ready")));
        });
        return { child, stopped };
      }),
    );
    workers.push(...started);
    return started;
  };
  const stopWorkers = async (stopping: Worker[]) => {
    for (const worker of stopping) worker.child.kill("SIGTERM");
    await Promise.all(stopping.map((worker) => worker.stopped));
  };
  const newClient = () => {
    const client = new RunClient({ connection, store, queueName: `bench-${++queues}`, prefix });
    clients.push(client);
    return client;
  };
  const finishedOf = async (runIds: string[]) =>
    Number((await pool.query({ text: `SELECT count(*) AS n FROM "${schema}".agentrx_runs WHERE status = 'finished' AND run_id = ANY($1)`, values: [runIds] })).rows[0]?.n ?? 0);

  try {
    await store.listRuns({ limit: 1 }); // creates the tables before the workers open the store
    // Latency of one run at a time: in-process (no store), then submit-to-result through the queue.
    const inProcess: number[] = [];
    let inProcessCpu = 0;
    for (let i = 0; i < 13; i++) {
      const start = performance.now();
      const cpu = process.cpuUsage();
      await lastValueFrom(queueExecutor().invoke({ input: "go" }));
      if (i >= 3) {
        inProcess.push(performance.now() - start);
        const { user, system } = process.cpuUsage(cpu);
        inProcessCpu += (user + system) / 1000 / 10;
      }
    }
    const latencyClient = newClient();
    const latencyWorkers = await startWorkers(1, `bench-${queues}`);
    const queued: number[] = [];
    for (let i = 0; i < 13; i++) {
      const start = performance.now();
      await latencyClient.result(await latencyClient.submit("bench", { input: "go" }));
      if (i >= 3) queued.push(performance.now() - start);
    }
    await stopWorkers(latencyWorkers);

    // Throughput with 1, 2 and 4 worker processes, CONCURRENCY runs at once each.
    const throughput: Record<number, { runsPerSecond: number; busy: number | undefined; workerCpu: number | undefined; cpuPerRun: number | undefined }> = {};
    for (const count of [1, 2, 4]) {
      const client = newClient();
      const started = await startWorkers(count, `bench-${queues}`);
      await Promise.all(Array.from({ length: count * 2 }, async () => client.result(await client.submit("bench", { input: "warm up" }))));
      const runs = count * CONCURRENCY * ROUNDS;
      const machineBefore = machineCpu();
      const cpuBefore = started.map((worker) => processCpuMs(worker.child.pid));
      const start = performance.now();
      const runIds = await Promise.all(Array.from({ length: runs }, (_, i) => client.submit("bench", { input: `run ${i}` })));
      while ((await finishedOf(runIds)) < runs) await new Promise((resolve) => setTimeout(resolve, 20));
      const seconds = (performance.now() - start) / 1000;
      const machineAfter = machineCpu();
      const cpuAfter = started.map((worker) => processCpuMs(worker.child.pid));
      const workerCpuMs = cpuAfter.every((ms, i) => ms !== undefined && cpuBefore[i] !== undefined)
        ? cpuAfter.reduce((sum: number, ms, i) => sum + ((ms as number) - (cpuBefore[i] as number)), 0)
        : undefined;
      throughput[count] = {
        runsPerSecond: runs / seconds,
        busy: machineBefore && machineAfter ? (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total) : undefined,
        workerCpu: workerCpuMs === undefined ? undefined : workerCpuMs / (seconds * 1000 * cpus().length),
        cpuPerRun: workerCpuMs === undefined ? undefined : workerCpuMs / runs,
      };
      await stopWorkers(started);
    }

    const inProcessMs = median(inProcess);
    const queuedMs = median(queued);
    const one = throughput[1]?.runsPerSecond ?? 0;
    const ideal = CONCURRENCY / (inProcessMs / 1000);
    const rows: Row[] = [
      {
        scenario: `queue: 200 ms model, 2 tools, 1 worker process x ${CONCURRENCY}`,
        metric: "runs/s",
        agentrx: one,
        floor: ideal,
        check: { label: "of ideal", value: one / ideal, limit: 0.8, atLeast: true },
      },
    ];
    for (const count of [2, 4]) {
      const runsPerSecond = throughput[count]?.runsPerSecond ?? 0;
      rows.push({
        scenario: `queue: the same, ${count} worker processes x ${CONCURRENCY}`,
        metric: "runs/s",
        agentrx: runsPerSecond,
        floor: ideal * count,
        check: { label: `${count}w/1w`, value: runsPerSecond / one, limit: count * 0.8, atLeast: true },
      });
    }
    for (const count of [1, 4]) {
      const { busy, workerCpu } = throughput[count] ?? {};
      if (busy === undefined) continue;
      rows.push({
        scenario: `queue: CPU while ${count} worker${count === 1 ? "" : "s"} ran (machine; workers' share as floor)`,
        metric: "busy fraction",
        agentrx: busy,
        ...(workerCpu === undefined ? {} : { floor: workerCpu }),
        check: { label: "machine busy", value: busy, limit: 0.8 },
      });
    }
    const cpuPerRun = throughput[4]?.cpuPerRun;
    if (cpuPerRun !== undefined) {
      rows.push({
        scenario: "queue: worker CPU per run (4 workers) vs the run in-process",
        metric: "CPU ms per run",
        agentrx: cpuPerRun,
        floor: inProcessCpu,
        check: { label: "x in-process", value: cpuPerRun / inProcessCpu, limit: 3 },
      });
    }
    rows.push({
      scenario: "queue: one run at a time, submit to result",
      metric: "ms per run",
      agentrx: queuedMs,
      floor: inProcessMs,
      check: { label: "added ms", value: queuedMs - inProcessMs, limit: 15 },
    });
    return rows;
  } finally {
    await stopWorkers(workers.filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null));
    for (const client of clients) await client.close().catch(() => undefined);
    await store.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pool.end();
    await dropRedisPrefix(prefix);
  }
}
