import { InvalidArgumentError, MAX_TIMER_DELAY_MS, checkOptionKeys } from "@agentrx/core";
import { type ConnectionOptions, Worker } from "bullmq";
import { ChannelHub } from "../internal/channel-hub";
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME, queueNames } from "../internal/queue-names";
import { isRedisInstance, openRedisClients } from "../internal/redis-clients";
import { RunWorkerCloseError } from "../errors/run-worker-close-error";
import { defaultOnError } from "./default-on-error";
import { guardOnError } from "./guard-on-error";
import { WirePublisher } from "./wire-publisher";
import { checkConnection } from "../internal/check-connection";
import { checkInteger, checkName, checkObject, checkStore, fail } from "../internal/validate";
import { type ActiveRun, type WorkerContext, processRunJob } from "./process-run-job";
import type { CloseRunWorkerOptions, RunWorkerOptions } from "./run-worker-options";

const WHERE = "createRunWorker";
/** How long `close()` waits for the hand-back and Redis once the runs are told to go back, by default: twice the default store timeout. */
const FORCE_AFTER_MS = 20_000;
const KNOWN = new Set(["connection", "store", "executors", "concurrency", "queueName", "prefix", "maxAttempts", "lockDuration", "stalledInterval", "onError"]);

/** A running worker: see {@link createRunWorker}. */
export interface RunWorker {
  /** The BullMQ worker underneath (its events, `pause()`, `isRunning()`...). */
  readonly worker: Worker;
  /** Resolves once the worker listens for cancels and takes jobs, or was closed before (no error then). */
  ready(): Promise<void>;
  /** How many runs are in progress on this worker now. */
  readonly activeRuns: number;
  /**
   * Stops taking jobs, waits up to `gracePeriodMs` for the runs in progress, hands the others back
   * to the queue (recorded as `queued`, resumed by another worker from their record), and closes
   * the worker's connections. Calling it again returns the same promise; a shorter `gracePeriodMs`
   * (or `forceAfterMs`) given then hands the runs back (or gives up) sooner. Options it refuses
   * (rejects) change nothing.
   *
   * @throws RunWorkerCloseError (rejects) when Redis (or a run that would not stop) kept it waiting
   *   `forceAfterMs` after the runs were handed back or had ended: it dropped the connections, and
   *   the worker is closed all the same
   */
  close(options?: CloseRunWorkerOptions): Promise<void>;
}

/**
 * Starts a worker that takes run jobs from a BullMQ queue and runs them with the named executor,
 * recording each run in the shared `store` and publishing its events on Redis as they are
 * recorded (tokens as they stream), for `RunClient.events` to follow.
 *
 * - A job carries only JSON: the run id, the executor's name, and for a resume the decisions. The
 *   run's inputs and history are in the store: the worker continues the run from its record with
 *   `executor.resume(runId, { store })` (a queued run starts there).
 * - `RunClient.cancel(runId)` reaches the run's `AbortSignal` on whichever worker runs it.
 * - A worker that dies (SIGKILL, a crash, OOM) leaves its jobs to BullMQ's stalled-job check:
 *   another worker takes each, waits for the dead worker's lease on the run to expire (the
 *   executor's `leaseMs`), and resumes the run; finished tool calls are not repeated. After
 *   `maxAttempts` dead workers the run is failed, with the reason recorded.
 *
 * @example
 * ```ts
 * import { createRunWorker } from "@agentrx/bullmq";
 * import { AgentExecutor } from "@agentrx/executors";
 * import { PostgresRunStore } from "@agentrx/runs";
 * declare function supportExecutor(): AgentExecutor;
 *
 * const worker = createRunWorker({
 *   connection: { host: "127.0.0.1", port: 6379 },
 *   store: new PostgresRunStore({ connectionString: process.env.DATABASE_URL! }),
 *   executors: { support: supportExecutor },
 *   concurrency: 20,
 * });
 * process.on("SIGTERM", () => void worker.close({ gracePeriodMs: 20_000 }).catch(console.error)); // rejects (RunWorkerCloseError) when Redis does not answer
 * ```
 *
 * @throws InvalidArgumentError naming the option when an option cannot work
 */
export function createRunWorker(options: RunWorkerOptions): RunWorker {
  checkObject(WHERE, "options", options);
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) fail(WHERE, key, (options as unknown as Record<string, unknown>)[key], `one of the known options (${[...KNOWN].join(", ")}); remove it`);
  }
  const {
    connection,
    store,
    executors,
    concurrency = 10,
    queueName = DEFAULT_QUEUE_NAME,
    prefix = DEFAULT_PREFIX,
    maxAttempts = 3,
    lockDuration = 30_000,
    stalledInterval = 30_000,
    onError: givenOnError = defaultOnError(),
  } = options;
  checkConnection(WHERE, connection);
  // A worker blocks on Redis (BRPOPLPUSH): BullMQ refuses an instance whose commands give up after
  // a few reconnect attempts (ioredis' default is 20).
  const retries = isRedisInstance(connection) ? connection.options?.maxRetriesPerRequest : null;
  if (retries !== null && retries !== undefined && retries !== 0) {
    throw new InvalidArgumentError({
      argument: "connection",
      value: `an ioredis instance with maxRetriesPerRequest: ${String(retries)}`,
      message: `${WHERE}: \`connection\` is an ioredis instance with \`maxRetriesPerRequest: ${String(retries)}\`; a worker's must have \`maxRetriesPerRequest: null\` (its blocking commands wait through reconnects): create it with new Redis({ ..., maxRetriesPerRequest: null }), or pass ioredis options.`,
    });
  }
  checkStore(WHERE, store);
  checkObject(WHERE, "executors", executors);
  // A worker without executors would take every job of its queue and fail each run.
  if (Object.keys(executors).length === 0) fail(WHERE, "executors", executors, "executor factories by name, at least one (a worker with none would fail every run it takes)");
  for (const [name, factory] of Object.entries(executors)) {
    if (typeof factory !== "function") fail(WHERE, `executors.${name}`, factory, "a function that returns an AgentExecutor");
  }
  checkInteger(WHERE, "concurrency", concurrency, 1);
  checkName(WHERE, "queueName", queueName);
  checkName(WHERE, "prefix", prefix);
  checkInteger(WHERE, "maxAttempts", maxAttempts, 1);
  checkInteger(WHERE, "lockDuration", lockDuration, 100);
  checkInteger(WHERE, "stalledInterval", stalledInterval, 100);
  if (typeof givenOnError !== "function") fail(WHERE, "onError", givenOnError, "a function (error) => void");
  // Called from 'error' listeners, promises' catch and jobs: one that throws or rejects must crash nothing.
  const onError = guardOnError(givenOnError);

  const names = queueNames(queueName, prefix);
  const redis = openRedisClients(connection);
  const hub = new ChannelHub(redis.subscriber);
  const active = new Map<string, ActiveRun>();
  const context: WorkerContext = {
    store,
    executors,
    names,
    redis: redis.command,
    publisher: new WirePublisher(redis.command, onError),
    maxAttempts,
    owner: `worker:${process.pid}:${crypto.randomUUID().slice(0, 8)}`,
    active,
    onError,
    toldNewerRelease: new Set(),
  };
  // Once a job ends, a closing worker with no run left may have only Redis to wait for (see close()).
  let worker: Worker;
  try {
    worker = new Worker(names.queueName, (job, token) => processRunJob(context, job, token).finally(() => armForce()), {
      // Its jobs name it (`processedBy`) and Redis lists its connection by it: a client that cancels
      // a run can tell its worker is gone (see RunClient.cancel).
      name: context.owner,
      connection: connection as ConnectionOptions,
      prefix,
      concurrency,
      lockDuration,
      stalledInterval,
      // A run may be handed over this many times by dead workers; the next taker fails it.
      maxStalledCount: maxAttempts,
      autorun: false,
      removeOnComplete: { count: 1000 },
      removeOnFail: { age: 7 * 24 * 60 * 60 },
    });
  } catch (error) {
    // The connections opened for it are not left open (they would keep the process alive).
    void redis.close();
    throw error;
  }
  worker.on("error", onError);

  const cancelRun = (runId: string) => {
    const run = active.get(runId);
    if (run !== undefined && !run.handOff) run.controller.abort(new Error("the run was cancelled (RunClient.cancel)"));
  };
  /**
   * Cancels published while the subscriber connection was down were not heard: once it is back
   * (subscribed again: a PING answered after its SUBSCRIBE), the runs in progress here look for
   * the cancel key each cancel leaves.
   */
  const catchUpCancels = async () => {
    try {
      await redis.subscriber.ping();
      const runIds = [...active.keys()];
      if (runIds.length === 0) return;
      const flags = await Promise.all(runIds.map((runId) => redis.command.exists(names.cancelKey(runId))));
      runIds.forEach((runId, index) => flags[index] === 1 && cancelRun(runId));
    } catch (error) {
      onError(error);
    }
  };
  let stopListening: (() => void) | undefined;
  let closed = false;
  const start = async () => {
    const stop = await hub.listen(names.cancelChannel, cancelRun);
    if (closed) return stop();
    const stopReconnect = hub.onReconnect(() => void catchUpCancels());
    stopListening = () => {
      stop();
      stopReconnect();
    };
    void worker.run().catch(onError);
    await worker.waitUntilReady();
  };
  // A close() during startup (a SIGTERM as the process starts) closes the connections under it:
  // that is no failure, and ready() resolves.
  const ready = start().catch((error: unknown) => {
    if (!closed) throw error;
  });
  ready.catch(onError);

  let handedOff = false;
  const handOff = () => {
    handedOff = true;
    armForce();
    for (const run of active.values()) {
      run.handOff = true;
      run.controller.abort(new Error("the worker is shutting down; the run goes back to the queue"));
    }
  };
  // The earliest hand-off any close() asked for: a second close() with a shorter grace period
  // (a second SIGTERM, a deadline) hands the runs back sooner.
  let handOffAt = Infinity;
  let handOffTimer: ReturnType<typeof setTimeout> | undefined;
  const scheduleHandOff = (gracePeriodMs: number) => {
    const at = Date.now() + gracePeriodMs;
    if (settled || !(at < handOffAt)) return;
    handOffAt = at;
    if (handOffTimer !== undefined) clearTimeout(handOffTimer);
    handOffTimer = setTimeout(handOff, gracePeriodMs);
  };
  let closing: Promise<void> | undefined;
  // Giving up on Redis: `forceAfterMs` (the shortest any close() asked for) after the runs were
  // told to go back to the queue or had all ended, whichever came first. A run still within its grace period is
  // waited for: the wait starts again at its hand-off or its end.
  let forceAfterMs = Infinity;
  let forceFrom: number | undefined;
  let forceTimer: ReturnType<typeof setTimeout> | undefined;
  let giveUp: ((error: RunWorkerCloseError) => void) | undefined;
  let forced = false;
  // The shutdown is over: a later close() returns its promise and arms no timer (which would keep the process alive).
  let settled = false;
  const force = () => {
    forceTimer = undefined;
    if (!handedOff && active.size > 0) {
      forceFrom = undefined; // a run taken as the worker closed, within its grace period
      return;
    }
    forced = true;
    // An ioredis instance given is the caller's: only the connection BullMQ opened beside it is dropped.
    const dropped = isRedisInstance(connection) ? worker.getBackend().disconnectBlocking(false) : worker.disconnect();
    dropped.catch(() => undefined);
    redis.drop();
    giveUp?.(new RunWorkerCloseError({ runIds: [...active.keys()], forceAfterMs }));
  };
  function armForce(): void {
    if (closing === undefined || forced || settled || forceAfterMs > MAX_TIMER_DELAY_MS || !(handedOff || active.size === 0)) return;
    forceFrom ??= Date.now();
    if (forceTimer !== undefined) clearTimeout(forceTimer);
    forceTimer = setTimeout(force, Math.max(0, forceFrom + forceAfterMs - Date.now()));
  }
  const shutDown = async (): Promise<void> => {
    closed = true;
    const givenUp = new Promise<never>((_, reject) => (giveUp = reject));
    const orderly = (async () => {
      try {
        await worker.close();
      } finally {
        stopListening?.();
        await redis.close();
      }
    })();
    // Whichever loses is left to settle on its own.
    for (const settles of [givenUp, orderly]) settles.catch(() => undefined);
    try {
      await Promise.race([orderly, givenUp]);
    } finally {
      settled = true;
      if (handOffTimer !== undefined) clearTimeout(handOffTimer);
      if (forceTimer !== undefined) clearTimeout(forceTimer);
      handOffTimer = forceTimer = undefined;
      stopListening?.();
    }
  };
  const close = (closeOptions: CloseRunWorkerOptions = {}): Promise<void> => {
    // Checked before anything is done: a close() refused for its options leaves the worker as it was.
    try {
      checkObject("RunWorker.close", "options", closeOptions);
      checkOptionKeys("RunWorker.close", closeOptions, ["gracePeriodMs", "forceAfterMs"], "options.");
      const { gracePeriodMs = 30_000, forceAfterMs: forceAfter = FORCE_AFTER_MS } = closeOptions;
      if (!(typeof gracePeriodMs === "number" && gracePeriodMs >= 0)) fail("RunWorker.close", "gracePeriodMs", gracePeriodMs, "a number of milliseconds >= 0 (or Infinity)");
      if (!(typeof forceAfter === "number" && forceAfter >= 0)) fail("RunWorker.close", "forceAfterMs", forceAfter, "a number of milliseconds >= 0 (or Infinity)");
      // Beyond what a timer can hold (about 24.8 days), as Infinity: Node would fire it at once.
      if (gracePeriodMs <= MAX_TIMER_DELAY_MS) scheduleHandOff(gracePeriodMs);
      forceAfterMs = Math.min(forceAfterMs, forceAfter);
    } catch (error) {
      return Promise.reject(error);
    }
    closing ??= shutDown();
    armForce();
    return closing;
  };

  return {
    worker,
    ready: () => ready,
    get activeRuns() {
      return active.size;
    },
    close,
  };
}
