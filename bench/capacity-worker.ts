// One worker process of the capacity scenario (bench/capacity.ts): the capacity load's executor on
// `createRunWorker`, recording into PostgreSQL. Started with `node --import tsx` and an IPC
// channel; prints "ready" once it takes jobs. On the message "begin" it starts measuring (event-loop
// lag, the heap mid-level, CPU) and answers "begun"; on "end" it sends what it measured back.
// It closes its BullMQ worker and store and exits on SIGTERM, on SIGINT (Ctrl-C reaches the whole
// process group) and when its IPC channel closes (the bench that started it went away).
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createRunWorker } from "@agentrx/bullmq";
import { PostgresRunStore } from "@agentrx/runs";
import type { WorkerArgs } from "./services";
import { HEAP_SAMPLE_MS, retainedHeap } from "./capacity";
import { capacityExecutor } from "./capacity-setup";
import { collectGarbage } from "./measure";

/** What a worker measured over one level. */
export interface WorkerReport {
  type: "report";
  lagP99Ms: number;
  /** Heap the runs in flight held (after a full collection), mid-level. */
  heapBytes: number;
  cpuMs: number;
}

const args = JSON.parse(process.argv[2] as string) as WorkerArgs;
const store = new PostgresRunStore({ connectionString: args.connectionString, schema: args.schema });
const executor = capacityExecutor(store);
const worker = createRunWorker({
  connection: { url: args.redisUrl },
  store,
  executors: { bench: () => executor },
  queueName: args.queueName,
  prefix: args.prefix,
  concurrency: args.concurrency,
});

let closing = false;
/** Closes the BullMQ worker (its runs go back to the queue) and the store, then exits: 0, or 1 when closing failed. */
function shutDown(why: string): void {
  if (closing) return;
  closing = true;
  void worker
    .close({ gracePeriodMs: 0 })
    .then(() => store.close())
    .then(
      () => process.exit(0),
      (error: Error) => {
        process.stderr.write(`capacity worker (${why}): closing failed: ${error.message}\n`);
        process.exit(1);
      },
    );
}
// Before `ready()`: a worker told to stop while it starts stops too.
process.on("SIGTERM", () => shutDown("SIGTERM"));
process.on("SIGINT", () => shutDown("SIGINT"));
process.on("disconnect", () => shutDown("the bench's IPC channel closed"));
if (!process.connected) shutDown("started without an IPC channel to the bench");

try {
  await worker.ready();
  if (!closing) process.stdout.write("ready\n");
} catch (error) {
  if (!closing) throw error; // told to stop while starting: `shutDown` exits
}

const lag = monitorEventLoopDelay({ resolution: 10 });
let sampler: ReturnType<typeof setTimeout> | undefined;
let heap = 0;
let cpu = process.cpuUsage();

/** Sends to the bench, unless the channel has closed (then `disconnect` is closing this process). */
function answer(message: object): void {
  if (process.connected) process.send?.(message, undefined, undefined, (error) => error && process.stderr.write(`capacity worker: could not answer the bench: ${error.message}\n`));
}

process.on("message", (message: string) => {
  if (message === "begin") {
    collectGarbage();
    const baseline = process.memoryUsage().heapUsed;
    heap = 0;
    cpu = process.cpuUsage();
    lag.reset();
    lag.enable();
    sampler = setTimeout(() => (heap = retainedHeap(baseline)), HEAP_SAMPLE_MS);
    // The full collection above blocks this process for a while: the bench submits the level's
    // runs only once every worker has said it is done, or the first runs would wait behind it.
    answer({ type: "begun" });
  } else if (message === "end") {
    clearTimeout(sampler);
    lag.disable();
    const { user, system } = process.cpuUsage(cpu);
    const report: WorkerReport = { type: "report", lagP99Ms: lag.percentile(99) / 1e6, heapBytes: heap, cpuMs: (user + system) / 1000 };
    answer(report);
  }
});
