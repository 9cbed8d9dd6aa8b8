// How the capacity scenario starts, drives and stops its worker processes when one of them fails:
// stand-in workers (plain Node scripts on an IPC channel that answer as bench/capacity-worker.ts
// does, or exit), so no servers are needed.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { type WorkerProcess, startWorkers, stopWorkers, watchWorker, workerLevel } from "../../bench/capacity";

/** A stand-in worker: says "ready" (unless `exitBeforeReady`), answers "begin" and "end" as the real one does, and runs `onBegin` when told to begin. */
function standIn(behaviour: { exitBeforeReady?: number; onBegin?: string; onEnd?: string } = {}): ChildProcess {
  const script = `
    ${behaviour.exitBeforeReady !== undefined ? `process.exit(${behaviour.exitBeforeReady});` : ""}
    process.stdout.write("ready\\n");
    setInterval(() => undefined, 1000);
    process.on("message", (message) => {
      if (message === "begin") { process.send({ type: "begun" }); ${behaviour.onBegin ?? ""} }
      if (message === "end") { ${behaviour.onEnd ?? ""} process.send({ type: "report", lagP99Ms: 11, heapBytes: 2048, cpuMs: 10 }); }
    });`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit", "ipc"] });
  children.push(child);
  return child;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** A run of the level: succeeds after `ms`, or rejects when the level is cancelled. */
const run = (ms: number) => (_index: number, signal: AbortSignal) =>
  new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => resolve(true), ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

describe("the capacity scenario's worker processes", () => {
  it("one that exits before it is ready: every worker already started is stopped, and the error says which and how", async () => {
    const started: ChildProcess[] = [];
    const failure = startWorkers(3, (number) => {
      const child = number === 2 ? standIn({ exitBeforeReady: 7 }) : standIn();
      started.push(child);
      return child;
    });
    await expect(failure).rejects.toThrow(/capacity: worker 2 exited with code 7 before it was ready/);
    expect(started).toHaveLength(3);
    for (const child of started) expect(alive(child)).toBe(false);
  });

  it("one that dies mid-level: the level is an error row saying so, no unhandled error, and the workers stop", async () => {
    const unhandled: unknown[] = [];
    const record = (error: unknown) => unhandled.push(error);
    process.on("uncaughtException", record);
    process.on("unhandledRejection", record);
    try {
      const workers = await startWorkers(2, (number) => standIn(number === 2 ? { onBegin: "setTimeout(() => process.exit(3), 300);" } : {}));
      const started = performance.now();
      const result = await workerLevel(workers, 4, "AgentRx, 2 BullMQ workers + PostgreSQL + follower", run(20_000));
      expect(performance.now() - started).toBeLessThan(12_000); // the level ends when the worker does, not at its deadline
      expect(result.failure).toBe("worker 2 exited with code 3 during level 4");
      expect(result.errors).toBe(4);
      expect(result.runs).toBe(4);
      await stopWorkers(workers);
      for (const worker of workers) expect(alive(worker.child)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("uncaughtException", record);
      process.off("unhandledRejection", record);
    }
  });

  it("one gone before the level begins: sending to it fails as an error row, not as an unhandled ERR_IPC_CHANNEL_CLOSED", async () => {
    const unhandled: unknown[] = [];
    const record = (error: unknown) => unhandled.push(error);
    process.on("uncaughtException", record);
    process.on("unhandledRejection", record);
    try {
      const workers = await startWorkers(2, () => standIn());
      const gone = workers[1] as WorkerProcess;
      gone.child.kill("SIGKILL");
      await gone.exited;
      const result = await workerLevel(workers, 3, "AgentRx, 2 BullMQ workers + PostgreSQL + follower", run(10));
      expect(result.failure).toBe("worker 2 exited with signal SIGKILL during level 3");
      expect(result.errors).toBe(3);
      await stopWorkers(workers);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("uncaughtException", record);
      process.off("unhandledRejection", record);
    }
  });

  it("one that exits after the level's runs, before its report: an error row", async () => {
    const workers = await startWorkers(1, () => standIn({ onEnd: "process.exit(5);" }));
    const result = await workerLevel(workers, 2, "AgentRx, 1 BullMQ worker + PostgreSQL + follower", run(10));
    expect(result.failure).toBe("worker 1 exited with code 5 during level 2");
    await stopWorkers(workers);
  });

  it("a level all workers see through reports what they measured", async () => {
    const workers = await startWorkers(2, () => standIn());
    const result = await workerLevel(workers, 2, "AgentRx, 2 BullMQ workers + PostgreSQL + follower", run(10));
    expect(result).toMatchObject({ runs: 2, errors: 0, lagP99Ms: 11, heapKbPerRun: 2, cpuMsPerRun: 10 });
    expect(result.failure).toBeUndefined();
    await stopWorkers(workers);
    expect(workers.map((worker) => alive(worker.child))).toEqual([false, false]);
  });

  it("watchWorker says how a process ended", async () => {
    const worker = watchWorker(standIn(), 4);
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe("worker 4 exited with signal SIGTERM");
  });
});
