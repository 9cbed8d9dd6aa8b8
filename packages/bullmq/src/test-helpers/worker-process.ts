// Test-only: one worker process of the multi-process tests, started by the test with
// `node --import tsx` (cwd the repository root, whose tsconfig maps @agentrx/* to the sources).
// Appends its tool side effects to a file, one line each: `start|done <n> <pid>`. Prints "ready"
// once it takes jobs; closes on SIGTERM. With `crash`, the tool kills its own process.
import { appendFileSync } from "node:fs";
import { PostgresRunStore } from "@agentrx/runs";
import { createRunWorker } from "../worker/create-run-worker";
import { doublingExecutor } from "./doubling-agent";

export interface WorkerProcessArgs {
  redisUrl: string;
  prefix: string;
  queueName: string;
  connectionString: string;
  schema: string;
  concurrency: number;
  latencyMs: number;
  toolMs: number;
  leaseMs: number;
  lockDuration: number;
  stalledInterval: number;
  maxAttempts: number;
  effects: string;
  crash?: boolean;
  /** The executor's `inDoubt` policy. */
  inDoubt?: "retry" | "interrupt" | "fail";
}

const args = JSON.parse(process.argv[2] as string) as WorkerProcessArgs;
const store = new PostgresRunStore({ connectionString: args.connectionString, schema: args.schema });
const worker = createRunWorker({
  connection: { url: args.redisUrl },
  store,
  executors: {
    double: () =>
      doublingExecutor({
        latencyMs: args.latencyMs,
        toolMs: args.toolMs,
        leaseMs: args.leaseMs,
        ...(args.inDoubt === undefined ? {} : { inDoubt: args.inDoubt }),
        onTool: (what, n) => {
          appendFileSync(args.effects, `${what} ${n} ${process.pid}\n`);
          if (args.crash && what === "start") process.kill(process.pid, "SIGKILL");
        },
      }),
  },
  queueName: args.queueName,
  prefix: args.prefix,
  concurrency: args.concurrency,
  lockDuration: args.lockDuration,
  stalledInterval: args.stalledInterval,
  maxAttempts: args.maxAttempts,
  onError: (error) => process.stderr.write(`worker ${process.pid}: ${(error as Error)?.stack ?? String(error)}\n`),
});
await worker.ready();
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
  void worker
    .close({ gracePeriodMs: 0 })
    .then(() => store.close())
    .finally(() => process.exit(0));
});
