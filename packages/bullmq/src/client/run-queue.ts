// What a RunClient keeps in Redis, beside the store: its connections (opened at the first call
// that needs them), the runs' jobs, the cancels that wait for a worker, and the runs' channels.
// @internal
import type { RunInfo } from "@agentrx/executors";
import { type ConnectionOptions, type Job, Queue } from "bullmq";
import { ChannelHub } from "../internal/channel-hub";
import { CANCEL_TTL_SECONDS, type QueueNames, fallbackStartJobId, resumeJobId, startJobId } from "../internal/queue-names";
import { type RedisClients, type RunQueueConnection, openRedisClients } from "../internal/redis-clients";
import { RESUME_JOB, type RunJobData, START_JOB, ofEarlierRun, submissionIdOf } from "../internal/run-job-data";
import { encodeWire } from "../internal/wire";
import { type LatestJob, PENDING_STATES, queuedAtEpoch } from "./reconcile-run";
import { workerGone } from "./worker-gone";

/** Retries of a job whose store failed before its run started (the run itself is never retried blindly). */
const JOB_ATTEMPTS = { attempts: 5, backoff: { type: "exponential", delay: 1000 } } as const;

/** A run as its jobs are told from an earlier run's of the same id: by its record's `metadata.submissionId` and `createdAt`. */
type RunRef = Pick<RunInfo, "runId" | "createdAt" | "metadata">;

interface Connected {
  redis: RedisClients;
  hub: ChannelHub;
  queue: Queue;
}

/**
 * A client's side of one queue in Redis: the jobs of its runs (the start job, one per run; the
 * latest resume job, remembered by id for a day; each job names the record it was queued for), the
 * cancels kept for whoever takes a run, and the runs' channels. Opens no connection until a call
 * needs one.
 *
 * @internal
 */
export class RunQueue {
  private connected: Connected | undefined;
  private closed = false;
  /** Rejects the calls in progress when the client closes (see `guard`). */
  private closing: { promise: Promise<never>; reject: (error: Error) => void } | undefined;

  constructor(
    private readonly connection: RunQueueConnection,
    readonly names: QueueNames,
  ) {}

  /** The connections, opened at the first call. @throws Error once the client is closed */
  open(): Connected {
    if (this.closed) throw new Error("RunClient: the client is closed; create a new one.");
    if (this.connected) return this.connected;
    const redis = openRedisClients(this.connection);
    const queue = new Queue(this.names.queueName, { connection: this.connection as ConnectionOptions, prefix: this.names.prefix });
    queue.on("error", () => undefined); // reconnects on its own; calls report their errors
    return (this.connected = { redis, hub: new ChannelHub(redis.subscriber), queue });
  }

  /**
   * Queues a new run's start job. What an earlier run of the same id (its record deleted since)
   * left in Redis is not this run's and goes first: its job (BullMQ keeps ended jobs a while) would
   * make BullMQ drop this one as a duplicate, and its cancel would cancel this run. A job of that
   * run that a worker still holds cannot be removed (a worker that stalled or died keeps its lock
   * until `lockDuration` lapses): this run's job is queued beside it, under
   * {@link fallbackStartJobId}, and the held one, when a worker takes it again, leaves this run
   * alone (its data names the earlier run's record, see `ofEarlierRun`).
   *
   * @throws Error when neither job id is free (the request is never dropped silently)
   */
  queueStart(run: RunRef, data: RunJobData): Promise<void> {
    return this.guard(async () => {
      const { redis } = this.open();
      const { runId, createdAt } = run;
      const [, queued] = await Promise.all([redis.command.del(this.names.cancelKey(runId), this.names.resumeKey(runId)), this.addUnlessHeld(startJobId(runId), data)]);
      if (queued || (await this.addUnlessHeld(fallbackStartJobId(runId, createdAt), data))) return;
      throw new Error(`the start jobs "${startJobId(runId)}" and "${fallbackStartJobId(runId, createdAt)}" of run "${runId}" are both held by a worker`);
    });
  }

  /**
   * Queues a resume job for the run and remembers it as the run's latest (followers wait for it).
   * `epoch`: the run's epoch when the resume was asked for (a run that ended after that is not
   * brought back by this job). The job carries no decisions: they are in the run's record.
   * `clearCancel`: the resume continues a cancelled run, so its cancel is forgotten.
   */
  queueResume(run: RunRef, executor: string, epoch: number | undefined, clearCancel = false): Promise<void> {
    return this.guard(async () => {
      const { redis, queue } = this.open();
      const { runId, createdAt } = run;
      const submissionId = submissionIdOf(run);
      const data: RunJobData = {
        schemaVersion: 1,
        kind: "resume",
        runId,
        executor,
        createdAt,
        ...(submissionId === undefined ? {} : { submissionId }),
        ...(epoch === undefined ? {} : { epoch }),
      };
      const jobId = resumeJobId(runId);
      const remember = redis.command.multi();
      if (clearCancel) remember.del(this.names.cancelKey(runId));
      await remember.set(this.names.resumeKey(runId), jobId, "EX", CANCEL_TTL_SECONDS).exec();
      await queue.add(RESUME_JOB, data, { jobId, ...JOB_ATTEMPTS });
    });
  }

  /** Removes the run's start job unless a worker holds it (its worker ends it then). */
  removeStart(run: RunRef): Promise<void> {
    return this.guard(async () => {
      const job = await this.startJob(run);
      if (job?.id !== undefined) await this.open().queue.remove(job.id).catch(() => 0);
    });
  }

  /** The run's latest job (its resume job, else its start job), as reconciling reads it. */
  latestJob(run: RunRef): Promise<LatestJob> {
    return this.guard(async () => {
      const job = (await this.resumeJob(run)) ?? (await this.startJob(run));
      if (job === undefined) return { state: "unknown" };
      const epoch = queuedAtEpoch(job.data);
      return { state: await job.getState(), failedReason: job.failedReason, ...(epoch === undefined ? {} : { epoch }) };
    });
  }

  /** Whether the run's latest resume job is still to run (or running). */
  resumePending(runId: string): Promise<boolean> {
    return this.guard(async () => {
      const { redis, queue } = this.open();
      const jobId = await redis.command.get(this.names.resumeKey(runId));
      const job = jobId === null ? undefined : await queue.getJob(jobId);
      if (job === undefined) return false;
      return PENDING_STATES.has(await job.getState());
    });
  }

  /**
   * Whether the worker that runs the run is known to be gone (see `workerGone`): the run's active
   * jobs (its start job, its latest resume job) against the workers of the queue Redis lists.
   */
  workerGone(run: RunRef): Promise<boolean> {
    return this.guard(async () => {
      const { queue } = this.open();
      const jobs = await Promise.all([this.startJob(run), this.resumeJob(run)]);
      const active: { processedBy?: string }[] = [];
      for (const job of jobs) if (job !== undefined && (await job.getState()) === "active") active.push(job);
      return workerGone(active, () => queue.getWorkers());
    });
  }

  /**
   * Keeps a cancel of the run for a day (for whoever takes it) and tells the queue's workers:
   * those of `names`, the run's own queue and prefix (another queue's than this client's, say).
   */
  sendCancel(runId: string, names: QueueNames = this.names): Promise<void> {
    return this.guard(async () => {
      const { redis } = this.open();
      await redis.command.set(names.cancelKey(runId), "1", "EX", CANCEL_TTL_SECONDS);
      await redis.command.publish(names.cancelChannel, runId);
    });
  }

  /** Whether a cancel of the run waits in Redis for whoever takes the run. */
  cancelPending(runId: string): Promise<boolean> {
    return this.guard(async () => {
      return (await this.open().redis.command.exists(this.names.cancelKey(runId))) === 1;
    });
  }

  /**
   * Tells the run's followers that it ended, so they read its record again: those on the channel
   * of `names` (the run's own queue and prefix) and this client's (whose followers listen there).
   */
  publishEnd(runId: string, status: "cancelled", names: QueueNames = this.names): Promise<void> {
    return this.guard(async () => {
      const { redis } = this.open();
      const channels = new Set([names.runChannel(runId), this.names.runChannel(runId)]);
      await Promise.all([...channels].map((channel) => redis.command.publish(channel, encodeWire([{ end: { status } }]))));
    });
  }

  /**
   * Queues a start job under `jobId` unless a worker holds a job of that id (resolves `false`
   * then): a job of that id that nobody holds is an earlier run's, removed first.
   */
  private async addUnlessHeld(jobId: string, data: RunJobData): Promise<boolean> {
    const { queue } = this.open();
    if ((await queue.remove(jobId)) === 0) return false; // locked: a worker holds it
    await queue.add(START_JOB, data, { jobId, ...JOB_ATTEMPTS });
    return true;
  }

  /**
   * The run's start job: the one under its usual id, else the one queued beside a job of an
   * earlier run of its id that a worker held (see `queueStart`); never a job of an earlier run.
   */
  private async startJob(run: RunRef): Promise<Job | undefined> {
    const { queue } = this.open();
    for (const jobId of [startJobId(run.runId), fallbackStartJobId(run.runId, run.createdAt)]) {
      const job = await queue.getJob(jobId);
      if (job !== undefined && !ofEarlierRun(job.data, run)) return job;
    }
    return undefined;
  }

  /** The run's latest resume job, while Redis remembers it. */
  private async resumeJob(run: RunRef): Promise<Job | undefined> {
    const { redis, queue } = this.open();
    const jobId = await redis.command.get(this.names.resumeKey(run.runId));
    const job = jobId === null ? undefined : await queue.getJob(jobId);
    return job === undefined || ofEarlierRun(job.data, run) ? undefined : job;
  }

  /**
   * Runs a call's Redis work, rejecting when the client is closed before it is done: a command
   * waits through Redis' reconnects, and closing drops the connection without failing the commands
   * it held (an API request would wait forever).
   */
  private guard<T>(work: () => Promise<T>): Promise<T> {
    let closing = this.closing;
    if (closing === undefined) {
      let reject!: (error: Error) => void;
      const promise = new Promise<never>((_, rejectWith) => (reject = rejectWith));
      promise.catch(() => undefined); // no call may be waiting
      closing = this.closing = { promise, reject };
    }
    return Promise.race([work(), closing.promise]);
  }

  /**
   * Closes the connections (at once when Redis is unreachable); the runs followed error with
   * `error`, and calls still waiting for Redis reject, saying the client was closed.
   */
  async close(error: Error): Promise<void> {
    this.closed = true;
    this.closing?.reject(new Error("RunClient: the client was closed while this call waited for Redis; nothing more of it was done."));
    const connected = this.connected;
    this.connected = undefined;
    if (connected === undefined) return;
    connected.hub.closeAll(error);
    await closeQueue(connected.queue);
    await connected.redis.close();
  }
}

/**
 * Closes BullMQ's connection of the queue: with QUIT while it is connected (the replies to what was
 * sent come first), else at once. A QUIT on a connection that is down waits behind the commands
 * queued for Redis, that is until Redis is back (BullMQ's `Queue.close()` does not resolve before
 * then); dropping the connection abandons them, and the calls that queued them were rejected
 * already (see `guard`). Before its connection was first ready, BullMQ's own close drops it.
 */
async function closeQueue(queue: Queue): Promise<void> {
  const backend = queue.getBackend();
  const { connection } = backend;
  if (connection.status === "ready" && (await connection.client).status !== "ready") await backend.close(true);
  await queue.close(); // after a forced close, resolves at once (BullMQ closes a backend once)
}
