/** A worker's connection as BullMQ's `Queue.getWorkers()` lists it (Redis `CLIENT LIST`). @internal */
export interface ListedWorker {
  /** The connection's name: `<prefix>:<queue>:w:<worker name>` for a named worker. */
  rawname?: string;
}

/**
 * Whether the worker that runs a run is known to be gone: the run's job is active under a worker
 * (`processedBy`, the name `createRunWorker` gives each worker) whose connection Redis no longer
 * lists, while it lists other workers of the queue by name (so names are seen on this Redis: a
 * server that hides or refuses them tells nothing). A process that dies (killed, crashed, out of
 * memory) has its connections closed by its system at once; BullMQ notices only once the job's
 * lock lapses. Unknown, `false`: no active job (nobody runs it through the queue), a job that names
 * no worker, or the workers cannot be listed.
 *
 * @internal
 */
export async function workerGone(activeJobs: readonly { processedBy?: string | undefined }[], listWorkers: () => Promise<ListedWorker[]>): Promise<boolean> {
  if (activeJobs.length === 0) return false;
  const names: string[] = [];
  for (const job of activeJobs) {
    if (job.processedBy === undefined || job.processedBy === "") return false;
    names.push(job.processedBy);
  }
  let listed: ListedWorker[];
  try {
    listed = await listWorkers();
  } catch {
    return false;
  }
  if (listed.length === 0 || listed.some((worker) => typeof worker.rawname !== "string" || !worker.rawname.includes(":w:"))) return false;
  return !listed.some((worker) => names.some((name) => worker.rawname?.endsWith(`:w:${name}`)));
}
