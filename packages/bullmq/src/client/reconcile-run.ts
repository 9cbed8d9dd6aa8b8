import type { RunInfo, RunStore } from "@agentrx/executors";
import { RunBusyError } from "@agentrx/executors";
import { RunStoppedError, recordedExecutor } from "../errors/run-stopped-error";
import type { RunJobData } from "../internal/run-job-data";
import { cancelReason, settleRun } from "../internal/settle-run";

/** BullMQ job states in which a job will still run (or runs now). @internal */
export const PENDING_STATES: ReadonlySet<string> = new Set(["waiting", "delayed", "active", "prioritized", "waiting-children"]);

/**
 * A queued run younger than this is left alone: `submit` (and a resume with decisions) records the
 * run as queued before it queues its job, and reconciling (or a resume without decisions) must not
 * queue a second job in between.
 *
 * @internal
 */
export const GRACE_MS = 1000;

/** What reconciling a run needs: narrow callbacks onto the queue and the store. @internal */
export interface ReconcileRunContext {
  /** The state of the run's latest job (its resume job, else its start job): `"unknown"` when there is none. */
  latestJob(runId: string): Promise<LatestJob>;
  /** Whether a cancel of the run waits in Redis for whoever takes the run (see `RunClient.cancel`). */
  cancelPending(runId: string): Promise<boolean>;
  /**
   * Records the run as cancelled, taking its lease first (compare-and-set: nobody else writes to it
   * after); resolves with `false`, writing nothing, when it ended or another process took it meanwhile.
   */
  settleCancel(info: RunInfo): Promise<boolean>;
  /** Queues a resume job for the run (`epoch`: the run's, as read). */
  queueResume(runId: string, executor: string, epoch?: number): Promise<void>;
  /** Records the run as failed with `reason` and rejects with `RunStoppedError`. */
  giveUp(runId: string, reason: string): Promise<never>;
}

/** The run's latest job, as reconciling reads it. @internal */
export interface LatestJob {
  /** Its BullMQ state (`"unknown"`: there is no such job). */
  state: string;
  /** Why it failed (a failed job). */
  failedReason?: string;
  /** The run's epoch when the job was queued (see {@link queuedAtEpoch}), when known. */
  epoch?: number;
}

/**
 * The run's epoch (its fencing token, which every claim raises) when a job was queued: a resume
 * job carries it; a start job was queued with a new run, recorded at epoch 1. `undefined` when
 * the job does not say (a resume from a store without epochs, data that cannot be read).
 *
 * @internal
 */
export function queuedAtEpoch(data: unknown): number | undefined {
  const job = data as Partial<RunJobData> | null | undefined;
  if (job?.kind === "start") return 1;
  return job?.kind === "resume" && Number.isInteger(job.epoch) ? job.epoch : undefined;
}

/**
 * Makes sure a stranded run (`queued` for over a second, or `running` under an expired lease) has a
 * job that will run it, or ends it. A cancel that waits for the run (sent while its worker, now
 * gone, held it) is recorded at once: nobody holds the run, and no worker is needed to stop it
 * (`RunStoppedError`). Otherwise a job waiting, delayed or active is enough; a job Redis lost (or one that
 * completed while the run still waits) is replaced by a resume job; a job that failed, or a record
 * that names no executor to queue it with, means the run cannot progress: it is given up (recorded
 * as failed, `RunStoppedError`), with a reason that says whether a worker had taken the run and
 * left it `running` (its epoch moved on since the job was queued: the run went on, then failed
 * without its end being recorded) or not (the job failed before the run could go on). Resolves
 * with what it did.
 *
 * @internal
 */
export async function reconcileRun(context: ReconcileRunContext, info: RunInfo, now = Date.now()): Promise<"waiting" | "requeued"> {
  const { runId } = info;
  const stranded = info.status === "queued" ? info.updatedAt + GRACE_MS <= now : info.status === "running" && (info.leaseExpiresAt ?? 0) < now;
  if (!stranded) return "waiting";
  if (await context.cancelPending(runId)) {
    if (await context.settleCancel(info)) throw new RunStoppedError({ runId, status: "cancelled", reason: cancelReason(info), executor: recordedExecutor(info) });
    return "waiting"; // it ended, or a worker took it meanwhile (and sees the cancel): its record says
  }
  const job = await context.latestJob(runId);
  if (PENDING_STATES.has(job.state)) return "waiting";
  if (job.state === "failed") {
    const reason = (job.failedReason || "no reason given").replace(/\.+$/, ""); // the label ends the sentence
    if (takenSince(info, job)) return context.giveUp(runId, `Its job failed after a worker took the run, and the run's end was not recorded: ${reason}.`);
    return context.giveUp(runId, `Its job failed before the run could go on: ${reason}.`);
  }
  const executor = info.metadata?.["executor"];
  if (typeof executor !== "string") {
    return context.giveUp(runId, "Its BullMQ job is gone (Redis lost it) and it cannot be queued again: its record names no executor (it was not submitted through RunClient.submit).");
  }
  await context.queueResume(runId, executor, info.epoch);
  return "requeued";
}

/**
 * Whether a worker took the run (claimed it) after `job` was queued and left it `running`: its
 * epoch moved on since (when the store or the job does not say, a `running` record is taken as
 * that worker's). A `queued` run waits to go on, whoever ran it before (a hand-back on `close()`).
 */
function takenSince(info: RunInfo, job: LatestJob): boolean {
  if (info.status !== "running") return false;
  return info.epoch === undefined || job.epoch === undefined || info.epoch > job.epoch;
}

/**
 * Records the run as failed with `reason` (unless it ended, or another process took it, meanwhile)
 * and rejects with `RunStoppedError` saying how the record ends it.
 *
 * @internal
 */
export async function giveUpRun(store: RunStore, owner: string, runId: string, reason: string): Promise<never> {
  try {
    await settleRun(store, runId, owner, "failed", reason);
  } catch (error) {
    if (!RunBusyError.isInstance(error)) throw error;
  }
  const info = await store.getRun(runId);
  const status = info?.status === "cancelled" ? "cancelled" : "failed";
  throw new RunStoppedError({ runId, status, reason: info?.error ?? reason, executor: recordedExecutor(info) });
}
