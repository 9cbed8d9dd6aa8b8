import type { Decision, JsonObject, RunInfo } from "@agentrx/executors";

/** The BullMQ job name of a run's first job. */
export const START_JOB = "start";
/** The BullMQ job name of a resume (after a pause, a cancel or a failure). */
export const RESUME_JOB = "resume";

/**
 * What a run job carries: plain JSON, never functions. The run itself (its inputs, its events)
 * is in the store, and the worker runs on that; the inputs are copied here only so that queue
 * tools show what a job is.
 *
 * @internal
 */
export interface RunJobData {
  schemaVersion: 1;
  /** `start`: the run's first job; `resume`: continue it (with `decisions` for a pause). */
  kind: "start" | "resume";
  runId: string;
  /** The name of the executor factory (a key of the worker's `executors`). */
  executor: string;
  /**
   * The run's inputs as a `start` event records them (start jobs), for queue tools to show: an
   * image of more than `MAX_RECORDED_IMAGE_CHARS` of base64 is a text that names it. Never run on.
   */
  inputs?: JsonObject;
  threadId?: string;
  /**
   * Decisions on a paused run's interrupts, by interrupt id: resume jobs of earlier versions only.
   * `RunClient.resume` records decisions in the run's record before it queues the job, which then
   * carries none (a job Redis loses does not lose them).
   */
  decisions?: Record<string, Decision>;
  /**
   * The run's epoch (its fencing token) when the resume was asked for (resume jobs): a run that
   * ended after that (cancelled through the store, failed, resumed and stopped again) is left as it
   * ended, not brought back by a job that predates its end.
   */
  epoch?: number;
  /**
   * The `createdAt` of the run's record the job was queued for: a job queued for an earlier run of
   * the same id (its record deleted since) is not this run's, and a worker leaves the run alone
   * (see {@link ofEarlierRun}). Absent from jobs of earlier versions.
   */
  createdAt?: number;
  /**
   * The `metadata.submissionId` of the run's record the job was queued for (a random id
   * `RunClient.submit` gives each record): it tells the job's run from an earlier one of the same
   * id created in the same millisecond, which `createdAt` cannot. Absent from jobs of earlier
   * versions, and of runs whose record has none.
   */
  submissionId?: string;
}

/** The key of a run's `metadata` under which `RunClient.submit` records its {@link RunJobData.submissionId}. */
export const SUBMISSION_ID = "submissionId";

/** The record's submission id (see {@link RunJobData.submissionId}), when it has one. */
export function submissionIdOf(record: Pick<RunInfo, "metadata">): string | undefined {
  const id = record.metadata?.[SUBMISSION_ID];
  return typeof id === "string" ? id : undefined;
}

/**
 * Whether a job was queued for an earlier run of the same id than `record` (that run's record was
 * deleted, and the id submitted again). A job that names its record's submission id is the run's
 * when the record has that id; one that names only a `createdAt` (queued by an earlier version), when
 * it is the record's. A job that names neither (of an earlier version, or data that cannot be read)
 * is taken as the run's.
 *
 * @internal
 */
export function ofEarlierRun(data: unknown, record: Pick<RunInfo, "createdAt" | "metadata">): boolean {
  const job = data as Partial<RunJobData> | null | undefined;
  if (typeof job?.submissionId === "string") return job.submissionId !== submissionIdOf(record);
  return typeof job?.createdAt === "number" && job.createdAt !== record.createdAt;
}

/** The job's data, or a reason it cannot be run. */
export function readJobData(data: unknown): RunJobData | string {
  if (data === null || typeof data !== "object") return "its data is not an object";
  const job = data as Partial<RunJobData>;
  if (job.kind !== "start" && job.kind !== "resume") return `its kind is ${JSON.stringify(job.kind)}, not "start" or "resume"`;
  if (typeof job.runId !== "string" || job.runId === "") return "it has no runId";
  if (typeof job.executor !== "string" || job.executor === "") return "it names no executor";
  if (job.decisions !== undefined && (job.decisions === null || typeof job.decisions !== "object" || Array.isArray(job.decisions))) {
    return "its decisions are not an object";
  }
  if (job.epoch !== undefined && !Number.isInteger(job.epoch)) return "its epoch is not an integer";
  if (job.createdAt !== undefined && !Number.isFinite(job.createdAt)) return "its createdAt is not a number";
  if (job.submissionId !== undefined && typeof job.submissionId !== "string") return "its submissionId is not a string";
  return job as RunJobData;
}
