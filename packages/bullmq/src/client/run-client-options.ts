import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Decision, RunStore } from "@agentrx/executors";
import type { RunQueueConnection } from "../internal/redis-clients";

/**
 * Options of {@link RunClient}.
 *
 * @example
 * ```ts
 * import type { RunClientOptions } from "@agentrx/bullmq";
 * import { MemoryRunStore } from "@agentrx/runs";
 *
 * const options: RunClientOptions = { connection: { url: "redis://127.0.0.1:6379" }, store: new MemoryRunStore() };
 * ```
 */
export interface RunClientOptions {
  /**
   * How to reach Redis, as BullMQ takes it: ioredis options (or `{ url }`) or an ioredis instance.
   * Options are checked at once: a key ioredis does not take (`hots`), or a `url`, `host`, `port`,
   * `path`, `db`, `username`, `password`, `tls` or `family` of the wrong type, is refused with an
   * `InvalidArgumentError` naming it (pass an ioredis instance for an option the check does not know).
   */
  connection: RunQueueConnection;
  /** The run store the workers record in (the same `PostgresRunStore`). */
  store: RunStore;
  /** The BullMQ queue (the workers' `queueName`). @default "agentrx-runs" */
  queueName?: string;
  /** BullMQ's key prefix (the workers' `prefix`). @default "bull" */
  prefix?: string;
  /**
   * A followed run whose channel has been quiet this long (ms) has its record read again: a safety
   * net for messages lost while Redis was unreachable. @default 5000
   */
  pollIntervalMs?: number;
  /**
   * The tools of the workers' executors (the same tool objects, or ones with the same names and
   * schemas): `resume` then checks an edited input (`{ type: "edit" }`) against its tool's schema
   * and refuses one that does not fit, before anything is recorded. Without them an edit is checked
   * for its shape only, and input a tool's schema refuses becomes that call's observation on the
   * worker (the tool does not run). @default []
   */
  tools?: readonly StructuredToolInterface[];
}

/** Options of {@link RunClient.submit}. */
export interface SubmitRunOptions {
  /** The conversation the run belongs to (as `config.threadId` of the executor). */
  threadId?: string;
  /**
   * The run's id: one the store does not hold (the id of a run deleted from it may be used again).
   * @default a fresh UUID
   */
  runId?: string;
}

/** Options of {@link RunClient.events}. */
export interface RunEventsOptions {
  /**
   * Start after the recorded event with this `seq` (the last one a client received: an SSE
   * `Last-Event-ID`). @default 0, the run's first event
   */
  after?: number;
}

/** Options of {@link RunClient.resume}. */
export interface ResumeRunOptions {
  /** Decisions on a paused run's interrupts, by interrupt id. Without them a cancelled, failed or crashed run continues. */
  decisions?: Record<string, Decision>;
}

/** Options of {@link RunClient.reconcile}. */
export interface ReconcileOptions {
  /** Look at this many of the newest `queued` and `running` runs of the store at most. @default 1000 */
  limit?: number;
}

/** What {@link RunClient.reconcile} did. */
export interface ReconcileReport {
  /** Runs whose job was gone, queued again (as a resume job). */
  requeued: string[];
  /** Runs that could not progress, now recorded as `failed` with the reason. */
  failed: string[];
  /**
   * Runs cancelled while their worker held them (`RunClient.cancel`) whose worker is gone: now
   * recorded as `cancelled` (no worker is needed for that).
   */
  cancelled: string[];
}
