// One worker process of the queue scenario (bench/queue.ts): the bench's latency-bound executor on
// `createRunWorker`. Started with `node --import tsx`, inheriting the bench's TSX_TSCONFIG_PATH, so
// it runs the built packages. Prints "ready" once it takes jobs, then its CPU time on SIGTERM.
import { createRunWorker } from "@agentrx/bullmq";
import { PostgresRunStore } from "@agentrx/runs";
import type { WorkerArgs } from "./services";
import { queueExecutor } from "./queue-executor";

const args = JSON.parse(process.argv[2] as string) as WorkerArgs;
const store = new PostgresRunStore({ connectionString: args.connectionString, schema: args.schema });
const worker = createRunWorker({
  connection: { url: args.redisUrl },
  store,
  executors: { bench: () => queueExecutor() },
  queueName: args.queueName,
  prefix: args.prefix,
  concurrency: args.concurrency,
});
await worker.ready();
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
  void worker
    .close({ gracePeriodMs: 0 })
    .then(() => store.close())
    .finally(() => {
      const { user, system } = process.cpuUsage();
      process.stdout.write(`cpu ${(user + system) / 1000}\n`);
      process.exit(0);
    });
});
