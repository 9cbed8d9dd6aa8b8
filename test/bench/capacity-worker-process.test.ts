// bench/capacity-worker.ts, the real worker process of the capacity scenario: it ends when the
// bench that started it goes away (its IPC channel closes), as well as on SIGTERM. Needs Redis
// and PostgreSQL (skipped with one line without them, unless CI is set).
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_URL, REDIS_URL, type WorkerArgs, dropRedisPrefix } from "../../bench/services";
import { dropSchema, missingServers, redisKeys } from "./bench-servers";

const WORKER = fileURLToPath(new URL("../../bench/capacity-worker.ts", import.meta.url));
const BENCH_TSCONFIG = fileURLToPath(new URL("../../bench/tsconfig.json", import.meta.url));
const missing = await missingServers("the capacity worker process tests");

describe.skipIf(missing !== "")("the capacity worker process (Redis, PostgreSQL)", () => {
  const id = `${process.pid}-${Date.now().toString(36)}`;
  const prefix = `agentrx-bench-capacity-test-${id}`;
  const schema = `agentrx_bench_capacity_test_${id.replace(/-/g, "_")}`;
  let child: ChildProcess | undefined;

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await dropRedisPrefix(prefix);
    await dropSchema(schema);
  });

  /** Starts the worker (as the bench does: the built packages) and waits for its "ready". */
  async function startWorker(): Promise<{ child: ChildProcess; exit: Promise<number | string> }> {
    const args: WorkerArgs = { redisUrl: REDIS_URL, prefix, queueName: "capacity-test", connectionString: DATABASE_URL, schema, concurrency: 5 };
    const started = spawn(process.execPath, ["--expose-gc", "--import", "tsx", WORKER, JSON.stringify(args)], {
      stdio: ["ignore", "pipe", "inherit", "ipc"],
      env: { ...process.env, TSX_TSCONFIG_PATH: BENCH_TSCONFIG },
    });
    child = started;
    const exit = new Promise<number | string>((resolve) => started.once("exit", (code, signal) => resolve(code ?? signal ?? "?")));
    await new Promise<void>((resolve, reject) => {
      started.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
      void exit.then((how) => reject(new Error(`the worker exited (${how}) before it was ready`)));
    });
    return { child: started, exit };
  }

  it("exits, closing its BullMQ worker and store, when its IPC channel closes (the bench went away)", async () => {
    const { child: worker, exit } = await startWorker();
    expect(await redisKeys(`${prefix}:*`)).not.toEqual([]); // it is a BullMQ worker on that prefix
    worker.disconnect();
    const how = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve("still running 8 s after the disconnect"), 8000))]);
    expect(how).toBe(0);
  });

  it("exits 0 on SIGTERM", async () => {
    const { child: worker, exit } = await startWorker();
    worker.kill("SIGTERM");
    const how = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve("still running 8 s after SIGTERM"), 8000))]);
    expect(how).toBe(0);
  });
});
