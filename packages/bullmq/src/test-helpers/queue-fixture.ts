// Test-only: a queue of this test file's own (its Redis prefix and PostgreSQL schema), with the
// store, clients and in-process workers a test needs, all closed by `close()`.
import type { AgentExecutor } from "@agentrx/executors";
import { PostgresRunStore } from "@agentrx/runs";
import { type Job, Queue } from "bullmq";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { RunClient } from "../client/run-client";
import type { RunClientOptions } from "../client/run-client-options";
import { type RunWorker, createRunWorker } from "../worker/create-run-worker";
import type { RunWorkerOptions } from "../worker/run-worker-options";
import { type TestServers, until } from "./test-servers";

export interface QueueFixture {
  store: PostgresRunStore;
  /** The current queue: `next()` moves to a fresh one, so each test has its own jobs and workers. */
  queueName: string;
  next(): string;
  connection: { url: string };
  client(options?: Partial<RunClientOptions>): RunClient;
  worker(executors: Record<string, () => AgentExecutor>, options?: Partial<RunWorkerOptions>): RunWorker;
  /** The current BullMQ queue, for looking at jobs. */
  queue(): Queue;
  /**
   * The job once BullMQ has moved it to `completed` or `failed`. A run's result is recorded before
   * its job's processor returns, so `attemptsMade` read right after `client.result` may still miss
   * the last attempt.
   */
  settledJob(jobId: string): Promise<Job>;
  /** A second store on the same database and schema: what another process opens. */
  otherStore(): PostgresRunStore;
  close(): Promise<void>;
}

export function queueFixture(servers: TestServers, name: string): QueueFixture {
  const postgres = servers.postgres;
  if (postgres === undefined) throw new Error("queueFixture needs PostgreSQL");
  const store = new PostgresRunStore({ connectionString: postgres.connectionString, schema: postgres.schema });
  const connection = { url: servers.redisUrl };
  const closers: (() => Promise<void>)[] = [];
  const queues = new Map<string, Queue>();
  let count = 0;
  return {
    store,
    queueName: `${name}-0`,
    next() {
      return (this.queueName = `${name}-${++count}`);
    },
    connection,
    client(options = {}) {
      const queueName = this.queueName;
      const client = new RunClient({ connection, store, queueName, prefix: servers.prefix, pollIntervalMs: 500, ...options });
      closers.push(() => client.close());
      return client;
    },
    worker(executors, options = {}) {
      const queueName = this.queueName;
      const worker = createRunWorker({ connection, store, executors, queueName, prefix: servers.prefix, onError: () => undefined, ...options });
      closers.push(() => worker.close({ gracePeriodMs: 0 }));
      return worker;
    },
    otherStore() {
      const other = new PostgresRunStore({ connectionString: postgres.connectionString, schema: postgres.schema });
      closers.push(() => other.close());
      return other;
    },
    queue() {
      let queue = queues.get(this.queueName);
      if (queue === undefined) {
        const opened = new Queue(this.queueName, { connection, prefix: servers.prefix });
        queues.set(this.queueName, (queue = opened));
        closers.push(async () => {
          await opened.obliterate({ force: true }).catch(() => undefined);
          await opened.close();
        });
      }
      return queue;
    },
    async settledJob(jobId) {
      const queue = this.queue();
      let job: Job | undefined;
      await until(async () => {
        job = await queue.getJob(jobId);
        const state = await job?.getState();
        return state === "completed" || state === "failed";
      }, `job ${jobId} to complete or fail`);
      return job as Job;
    },
    async close() {
      for (const close of closers.reverse()) await close().catch(() => undefined);
      await store.close();
    },
  };
}

/**
 * The queue fixture of a `describe` block: made (and the servers checked) before its tests, moved
 * to a fresh queue before each test, closed with the servers' clean-up after them. The object
 * returned stands for the fixture once it is made.
 */
export function useQueueFixture(servers: TestServers, name: string): QueueFixture {
  let fixture: QueueFixture | undefined;
  const made = (): QueueFixture => {
    if (fixture === undefined) throw new Error(`the queue fixture "${name}" is used before its tests run`);
    return fixture;
  };
  beforeAll(() => {
    servers.assertReachable();
    fixture = queueFixture(servers, name);
  });
  beforeEach(() => {
    made().next();
  });
  afterAll(async () => {
    await fixture?.close();
    await servers.cleanup();
  });
  return new Proxy({} as QueueFixture, {
    get: (_, key) => Reflect.get(made(), key),
    set: (_, key, value) => Reflect.set(made(), key, value),
  });
}
