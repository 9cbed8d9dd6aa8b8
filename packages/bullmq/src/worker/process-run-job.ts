import { InvalidArgumentError } from "@agentrx/core";
import { type AgentExecutor, type Decision, RunBusyError, type RunInfo, RunLeaseLostError, RunNotFoundError, type RunStore, RunStoreError } from "@agentrx/executors";
import { DelayedError, type Job, UnrecoverableError } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueNames } from "../internal/queue-names";
import { type RunJobData, ofEarlierRun, readJobData } from "../internal/run-job-data";
import type { WireItem } from "../internal/wire";
import { type SegmentOutcome, runSegment } from "./run-segment";
import { ENDED, cancelReason, settleRun } from "../internal/settle-run";
import { show } from "../internal/validate";
import type { WirePublisher } from "./wire-publisher";

/** A run this worker is running: how to stop it, and whether a stop hands it back. */
export interface ActiveRun {
  controller: AbortController;
  handOff: boolean;
}

/** What processing a job needs of its worker. @internal */
export interface WorkerContext {
  store: RunStore;
  executors: Record<string, () => AgentExecutor | Promise<AgentExecutor>>;
  names: QueueNames;
  redis: Redis;
  /** Publishes on the runs' channels (what is sent in one turn of the event loop, in one write). */
  publisher: WirePublisher;
  maxAttempts: number;
  /** This worker's lease owner id, for the writes it makes itself. */
  owner: string;
  /** Runs in progress here, by run id. */
  active: Map<string, ActiveRun>;
  onError: (error: unknown) => void;
  /**
   * The runs this worker has said it leaves to a newer release (once per run, not once per retry;
   * emptied past {@link MAX_TOLD_NEWER} so a worker left behind for days does not grow it forever).
   */
  toldNewerRelease: Set<string>;
}

/** What a job returns (BullMQ keeps it as the job's return value). */
export interface RunJobResult {
  runId: string;
  /** The run's status when the job ended. */
  status: string;
  /**
   * The job was queued for an earlier run of the same id (its record deleted since): it left the
   * run alone, and said nothing on the run's channel (its followers follow the newer run).
   */
  ofEarlierRun?: true;
}

/** How long to wait before retrying a job whose run is busy and whose lease end is unknown. */
const BUSY_RETRY_MS = 1000;
/** How long a job whose run a newer release recorded waits before a worker looks at it again. */
const NEWER_RELEASE_RETRY_MS = 5000;
/** How many runs {@link WorkerContext.toldNewerRelease} remembers before it starts again. */
const MAX_TOLD_NEWER = 10_000;

/**
 * Runs one job: checks the run's record and the cancel flag, then runs the next segment of the run
 * with the named executor (`resume`: a queued run starts there, or goes on with the decisions
 * `RunClient.resume` recorded for it; a crashed one continues from its record; a paused one takes
 * the decisions of a job queued by an earlier version). A run another process still holds is retried
 * when that lease expires (the job is delayed, not failed); a run that keeps killing its workers is
 * failed after `maxAttempts`; a run whose record cannot be read is failed at once (see
 * {@link failUnreadable}); a job queued for an earlier run of the same id leaves the run alone.
 *
 * @internal
 */
export async function processRunJob(context: WorkerContext, job: Job, token: string | undefined): Promise<RunJobResult> {
  const data = readJobData(job.data);
  if (typeof data === "string") {
    // It names no run whose record could say so: the worker's onError is where it is told.
    const error = new UnrecoverableError(`Job ${job.id} of queue "${context.names.queueName}" cannot be run: ${data}.`);
    context.onError(error);
    throw error;
  }
  const { runId } = data;
  if (context.active.has(runId)) return retryLater(job, token, Date.now() + BUSY_RETRY_MS); // a second job of a run running here
  const active: ActiveRun = { controller: new AbortController(), handOff: false };
  context.active.set(runId, active);
  const channel = context.names.runChannel(runId);
  const send = (items: WireItem[]) => context.publisher.send(channel, items);
  let status: string | undefined;
  let earlier = false;
  try {
    const processed = await processRun(context, job, token, data, active, send);
    const result: RunJobResult = typeof processed === "string" ? { runId, status: processed } : processed;
    status = result.status;
    earlier = result.ofEarlierRun === true;
    return result;
  } catch (error) {
    if (RunBusyError.isInstance(error)) return retryLater(job, token, (error.leaseExpiresAt ?? Date.now() + BUSY_RETRY_MS) + 20);
    if (recordedByNewerRelease(error)) return leaveToNewerRelease(context, job, token, runId, error);
    if (unreadable(error)) throw await failUnreadable(context, runId, error);
    throw error;
  } finally {
    context.active.delete(runId);
    // Followers read the record again: it says how the run stands now. A job of an earlier run of
    // this id has nothing to say to the followers of the run that has the id now.
    if (!earlier) send([{ end: { status: status ?? "unknown" } }]);
    context.publisher.flush();
  }
}

async function processRun(
  context: WorkerContext,
  job: Job,
  token: string | undefined,
  data: RunJobData,
  active: ActiveRun,
  send: (items: WireItem[]) => void,
): Promise<string | RunJobResult> {
  const { store, owner } = context;
  const { runId } = data;
  // Registered as active before this check: a cancel published from here on reaches the run.
  const [cancelled, info] = await Promise.all([context.redis.exists(context.names.cancelKey(runId)), store.getRun(runId)]);
  // Queued for an earlier run of this id (its record deleted since): the run has a job of its own.
  if (info !== undefined && ofEarlierRun(data, info)) return { runId, status: info.status, ofEarlierRun: true };
  if (cancelled === 1) {
    await settleRun(store, runId, owner, "cancelled", cancelReason(info));
    return "cancelled";
  }
  if (info === undefined) throw new UnrecoverableError(new RunNotFoundError({ operation: "run job", runId }).message);
  if (ENDED.has(info.status) && (data.kind === "start" || info.status === "finished")) return info.status;
  if (ENDED.has(info.status) && endedSinceAsked(data, info)) return info.status;
  if (info.status === "interrupted" && data.decisions === undefined && data.kind === "start") return info.status;
  const crashes = job.stalledCounter ?? 0;
  if (crashes >= context.maxAttempts) {
    const reason = `The run's worker stopped ${crashes} times while running it (killed, crashed or out of memory); it was given up after maxAttempts (${context.maxAttempts}) attempts.`;
    await settleRun(store, runId, owner, "failed", reason);
    return "failed";
  }
  const factory = context.executors[data.executor];
  if (factory === undefined) {
    const known = Object.keys(context.executors);
    const reason = `No executor named "${data.executor}" on this worker (it has ${known.length === 0 ? "none" : known.map((name) => JSON.stringify(name)).join(", ")}); start workers with it in \`executors\`.`;
    await settleRun(store, runId, owner, "failed", reason);
    throw new UnrecoverableError(reason);
  }
  let executor: AgentExecutor;
  try {
    executor = await factory();
  } catch (error) {
    const reason = `The executor factory "${data.executor}" threw: ${(error as Error)?.message ?? String(error)}`;
    await settleRun(store, runId, owner, "failed", reason);
    throw new UnrecoverableError(reason);
  }
  if (typeof (executor as Partial<AgentExecutor> | null | undefined)?.resume !== "function") {
    // Not retried: the factory returns the same thing each time, and the run would wait as `queued`.
    const reason = `The executor factory "${data.executor}" returned ${show(executor)}, not an AgentExecutor (an object with a resume method).`;
    await settleRun(store, runId, owner, "failed", reason);
    throw new UnrecoverableError(reason);
  }
  const run = (decisions: Record<string, Decision> | undefined, known?: RunInfo) =>
    runSegment({ executor, store, runId, decisions, signal: active.controller.signal, handingOff: () => active.handOff, handBackOnLeaseLost: () => attemptsLeft(job), send, ...(known === undefined ? {} : { known }) });
  // The first segment starts from the run as read above (one read of it per job, not two).
  let outcome = await run(decisionsFor(data, info), info);
  if (outcome.kind === "replayed" && outcome.status === "interrupted" && data.decisions !== undefined && info.status !== "interrupted") {
    // A resume whose worker died before it recorded the decisions: the run is paused again.
    outcome = await run(data.decisions);
  }
  const status = await finish(context, runId, outcome, job, token, active);
  if (status === "interrupted" && (await cancelledWhilePausing(context, runId))) return "cancelled";
  return status;
}

/**
 * Whether a resume job comes too late for its run, which ended after the resume was asked for:
 * decisions are asked for a paused run only (`RunClient.resume` refuses them otherwise), so a
 * stopped run (cancelled through the store, say from `agentrx ui`, while the job waited) is not
 * the pause they decide; a resume without decisions that predates the run's last claim (its
 * `epoch` moved on: the run was cancelled, or resumed and stopped again, since) neither.
 */
function endedSinceAsked(data: RunJobData, info: RunInfo): boolean {
  if (data.kind !== "resume") return false;
  if (data.decisions !== undefined) return true;
  return data.epoch !== undefined && info.epoch !== undefined && info.epoch !== data.epoch;
}

/**
 * A cancel that came while the run was pausing reached a worker with no run left to abort (and
 * `RunClient.cancel` read the run as running): the cancel waits in Redis, so record it now.
 */
async function cancelledWhilePausing(context: WorkerContext, runId: string): Promise<boolean> {
  if ((await context.redis.exists(context.names.cancelKey(runId))) !== 1) return false;
  try {
    return await settleRun(context.store, runId, context.owner, "cancelled", cancelReason({ status: "interrupted", eventCount: 1 }));
  } catch (error) {
    if (RunBusyError.isInstance(error)) return false; // RunClient.cancel is recording it right now
    throw error;
  }
}

/** A resume passes its decisions when the run is paused; a run left `running` by a dead worker is resumed first. */
function decisionsFor(data: RunJobData, info: RunInfo): Record<string, Decision> | undefined {
  return info.status === "interrupted" ? data.decisions : undefined;
}

async function finish(context: WorkerContext, runId: string, outcome: SegmentOutcome, job: Job, token: string | undefined, active: ActiveRun): Promise<string> {
  if (outcome.kind !== "error") return outcome.status;
  const { error } = outcome;
  if (active.handOff) {
    // Stopped by close(): recorded as queued; the job goes back to the queue for another worker.
    await retryLater(job, token, Date.now());
  }
  if (active.controller.signal.aborted) return "cancelled";
  if (RunBusyError.isInstance(error)) throw error;
  if (InvalidArgumentError.isInstance(error) || RunNotFoundError.isInstance(error)) {
    // Refused (decisions for a run that is not paused, ...): the record is unchanged.
    throw new UnrecoverableError(error.message);
  }
  if (judgedLeaseLost(error)) return handBackAfterLeaseLost(context, runId, job, error);
  if (!outcome.started) throw error; // the store failed before the run started: BullMQ retries the job
  throw new UnrecoverableError((error as Error)?.message ?? String(error)); // the run failed: its record says why
}

/**
 * Whether this process stopped the run because it judged its own lease lost (`operation` "lease":
 * the watchdog; "toolStart": the check before a tool): its event loop was blocked, or the process
 * frozen, about as long as the lease, and no other process need have taken the run. ("write": the
 * store said another process holds it.)
 */
function judgedLeaseLost(error: unknown): error is RunLeaseLostError {
  return RunLeaseLostError.isInstance(error) && (error.operation === "lease" || error.operation === "toolStart");
}

/** Whether the job will be tried again if this attempt fails (BullMQ's `attempts`, 5 for a `RunClient`'s jobs). */
function attemptsLeft(job: Job): boolean {
  return job.attemptsMade + 1 < (job.opts.attempts ?? 1);
}

/**
 * A run this worker stopped on a lease it judged lost (see {@link judgedLeaseLost}) is handed back
 * as a crashed worker's is, rather than failed for good: while the job has attempts left, the
 * executor's end write records it `queued` (see `runSegment`), and the job is retried (an attempt,
 * after its backoff), so a worker resumes the run from its record: the tool calls it aborted are
 * in doubt, and the executor's `inDoubt` policy applies (docs/deploying.md). A run another process
 * took over meanwhile (its epoch moved on) is left to it: the job ends with the run's status. On
 * the job's last attempt the run stays `failed` with the error, and the job fails.
 */
async function handBackAfterLeaseLost(context: WorkerContext, runId: string, job: Job, error: RunLeaseLostError): Promise<string> {
  const info = await context.store.getRun(runId);
  if (info !== undefined && info.epoch !== error.epoch) return info.status; // claimed since: the run is another process's
  if (!attemptsLeft(job) || info === undefined) throw new UnrecoverableError(error.message);
  // `queued` (the end write landed) or still `running` (it did not: resumed once its lease lapsed).
  throw error; // BullMQ retries the job
}

/** Whether the store says the run's record cannot be read (a retry would read the same record). */
function unreadable(error: unknown): error is RunStoreError {
  return RunStoreError.isInstance(error) && error.reason === "corrupt";
}

/** Whether the store says a newer release recorded the run (`reason: "unsupported"`): this worker must not touch it. */
function recordedByNewerRelease(error: unknown): error is RunStoreError {
  return RunStoreError.isInstance(error) && error.reason === "unsupported";
}

/**
 * A run a newer release recorded (a rolling deploy: a new worker checkpointed it, then handed it
 * back or died): this worker leaves it untouched and delays its job by
 * {@link NEWER_RELEASE_RETRY_MS}, which BullMQ does not count as an attempt, so the job waits for
 * a worker of that release however long the deploy takes, and is never failed for it. The
 * worker's `onError` is told once per run (a worker that keeps seeing it is one left behind).
 */
async function leaveToNewerRelease(context: WorkerContext, job: Job, token: string | undefined, runId: string, error: RunStoreError): Promise<never> {
  const told = context.toldNewerRelease;
  if (!told.has(runId)) {
    if (told.size >= MAX_TOLD_NEWER) told.clear();
    told.add(runId);
    context.onError(new Error(`Run "${runId}" was recorded by a newer release of AgentRx than this worker's, so this worker leaves it to a worker of that release: its job waits (retried every ${NEWER_RELEASE_RETRY_MS / 1000} s, not counted as an attempt). Upgrade this worker. (${error.message})`, { cause: error }));
  }
  return retryLater(job, token, Date.now() + NEWER_RELEASE_RETRY_MS);
}

/**
 * A run whose record cannot be read (a gap in its events, a `schemaVersion` no release wrote, a
 * row that does not decode) will not heal by retrying its job: it is recorded as failed, with the
 * store's reason, and the job fails at once (transient store failures, such as a timeout or an
 * unreachable database, are retried; a record a newer release wrote, `reason: "unsupported"`, is
 * left to a worker of that release, see {@link leaveToNewerRelease}). A record that cannot be
 * written either (its row does not decode) stays as it is: reading it tells its followers the same.
 */
async function failUnreadable(context: WorkerContext, runId: string, error: RunStoreError): Promise<UnrecoverableError> {
  const reason = `The run's record cannot be read, so no worker can run it (a retry would read the same record): ${error.message}`;
  try {
    await settleRun(context.store, runId, context.owner, "failed", reason);
  } catch (settleError) {
    if (!unreadable(settleError)) context.onError(settleError);
  }
  return new UnrecoverableError(reason);
}

/** Moves the job to the delayed set until `at` and tells BullMQ so (this is not a failure). */
async function retryLater(job: Job, token: string | undefined, at: number): Promise<never> {
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}
