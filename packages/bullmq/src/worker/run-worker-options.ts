import type { AgentExecutor, RunStore } from "@agentrx/executors";
import type { RunQueueConnection } from "../internal/redis-clients";

/**
 * Options of {@link createRunWorker}.
 *
 * @example
 * ```ts
 * import type { RunWorkerOptions } from "@agentrx/bullmq";
 * import type { AgentExecutor } from "@agentrx/executors";
 * import { MemoryRunStore } from "@agentrx/runs";
 * declare function supportExecutor(): AgentExecutor;
 *
 * const options: RunWorkerOptions = {
 *   connection: { host: "127.0.0.1", port: 6379 },
 *   store: new MemoryRunStore(), // a PostgresRunStore shared by every process, in production
 *   executors: { support: supportExecutor },
 *   concurrency: 20,
 * };
 * ```
 */
export interface RunWorkerOptions {
  /**
   * How to reach Redis, as BullMQ takes it: ioredis options (or `{ url }`) or an ioredis instance.
   * An instance must be made with `maxRetriesPerRequest: null` (the worker's blocking commands
   * wait through reconnects); one with ioredis' default (20) is refused. Options are checked at
   * once: a key ioredis does not take (`hots`), or a `url`, `host`, `port`, `path`, `db`,
   * `username`, `password`, `tls` or `family` of the wrong type, is refused with an
   * `InvalidArgumentError` naming it (pass an ioredis instance for an option the check does not know).
   */
  connection: RunQueueConnection;
  /**
   * Where runs are recorded, shared by every worker and client of the queue (a `PostgresRunStore`
   * in production: the store is the truth, Redis only moves work and wakes listeners).
   */
  store: RunStore;
  /**
   * Executor factories by name (at least one); a job names one. A factory is called once per job (return a
   * cached executor when building one is costly: an executor keeps no state between runs). Every
   * worker of a queue should know every name: a job naming an executor this worker lacks fails
   * its run, naming the executors it has.
   */
  executors: Record<string, () => AgentExecutor | Promise<AgentExecutor>>;
  /** Runs this worker runs at once. @default 10 */
  concurrency?: number;
  /** The BullMQ queue (the same on the clients). @default "agentrx-runs" */
  queueName?: string;
  /** BullMQ's key prefix, also used for the run channels (the same on the clients). @default "bull" */
  prefix?: string;
  /**
   * How many times a run may be taken by a worker that then died with it (killed, crashed, out of
   * memory) before the run is marked `failed`, with the reason recorded. Hand-offs on `close()`
   * do not count. @default 3
   */
  maxAttempts?: number;
  /**
   * BullMQ's `lockDuration` (ms): a worker that stops renewing its jobs' locks for this long is
   * taken for dead, and its jobs go to other workers at their next stalled check. @default 30000
   */
  lockDuration?: number;
  /** BullMQ's `stalledInterval` (ms): how often this worker looks for jobs of dead workers. @default 30000 */
  stalledInterval?: number;
  /**
   * Errors that belong to no run's record (Redis unreachable, a publish that failed, a job whose
   * data is malformed). It may be `async`; one that throws or rejects crashes nothing: the error
   * it was given and its own failure are logged with `console.error`.
   * @default logs them with `console.error`: a server that cannot be reached (`ECONNREFUSED`,
   * `ENOTFOUND`, ...) as one line, the same line at most once in 30 s (with how many came
   * meanwhile); any other error whole, every time
   */
  onError?: (error: unknown) => void;
}

/** Options of {@link RunWorker.close}. */
export interface CloseRunWorkerOptions {
  /**
   * How long to wait for the runs in progress to end before handing them back to the queue: each
   * is stopped, recorded as `queued` (not `cancelled`), and another worker resumes it from its
   * record (finished tool calls are not repeated; calls in flight run again). `0` hands them back
   * at once; `Infinity` waits for them all. @default 30000
   */
  gracePeriodMs?: number;
  /**
   * How long to wait, once the runs are told to go back to the queue (the grace period is over) or
   * have all ended, for them to be handed back (a write to the store, their jobs to Redis) and for
   * Redis to close the worker's connections. After that (Redis is unreachable, the store does not
   * answer, or a run ignores its `AbortSignal`) the worker drops its connections and `close()`
   * rejects with a `RunWorkerCloseError` naming the runs left in progress; the worker is closed
   * either way. The default is twice the executors' default `storeTimeoutMs`, so that a slow
   * store's hand-back is not cut short. `Infinity` waits however long it takes. @default 20000
   */
  forceAfterMs?: number;
}
