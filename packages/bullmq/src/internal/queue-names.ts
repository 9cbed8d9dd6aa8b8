// The names a worker and a client share: the BullMQ queue, the Redis channels that carry a run's
// live events and the cancels, the key that remembers a cancel, and job ids. @internal

/** The BullMQ queue of runs when `queueName` is not given. */
export const DEFAULT_QUEUE_NAME = "agentrx-runs";
/** BullMQ's own default key prefix. */
export const DEFAULT_PREFIX = "bull";
/** How long a cancel (or a resume's job id) is remembered in Redis, in seconds. */
export const CANCEL_TTL_SECONDS = 24 * 60 * 60;

/** Where one queue's runs meet: every name below is derived from `prefix` and `queueName`. */
export interface QueueNames {
  queueName: string;
  prefix: string;
  /** The channel a run's events are published on. */
  runChannel(runId: string): string;
  /** The channel cancels are published on (every worker of the queue listens). */
  cancelChannel: string;
  /** The key that says a run was cancelled (with a TTL). */
  cancelKey(runId: string): string;
  /** The key that holds the id of the run's latest resume job (with a TTL). */
  resumeKey(runId: string): string;
  /** Every key and channel of ours matches this pattern (for cleaning up). */
  pattern: string;
}

export function queueNames(queueName: string, prefix: string): QueueNames {
  const base = `${prefix}:${queueName}:agentrx`;
  return {
    queueName,
    prefix,
    runChannel: (runId) => `${base}:run:${runId}`,
    cancelChannel: `${base}:cancels`,
    cancelKey: (runId) => `${base}:cancelled:${runId}`,
    resumeKey: (runId) => `${base}:resume:${runId}`,
    pattern: `${base}:*`,
  };
}

/**
 * The BullMQ job id of a run's first job: one per run, so submitting a run twice queues it once.
 * BullMQ refuses ids with `:` and ids that are integers; the run id is URI-encoded (`:` becomes
 * `%3A`) behind a prefix.
 */
export function startJobId(runId: string): string {
  return `run-${encodeURIComponent(runId)}`;
}

/**
 * The start job id of a run whose usual one ({@link startJobId}) a worker still holds for an
 * earlier run of the same id (its record deleted since, its worker stalled or dead with its lock
 * not yet expired): BullMQ would drop a second job of that id as a duplicate. `createdAt` (the
 * run's record's) tells this run's from any other; `@` is never in a URI-encoded run id.
 */
export function fallbackStartJobId(runId: string, createdAt: number): string {
  return `${startJobId(runId)}@${createdAt}`;
}

/** The job id of a resume: a fresh one each time (two resumes of one pause: the first wins, the second is refused by the worker). */
export function resumeJobId(runId: string): string {
  return `resume-${encodeURIComponent(runId)}-${crypto.randomUUID()}`;
}
