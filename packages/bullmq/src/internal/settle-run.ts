import type { RunInfo, RunStatus, RunStore } from "@agentrx/executors";

/** How long the lease taken to write a run's end lasts (the write gives it up at once). */
const SETTLE_LEASE_MS = 10_000;

/** Statuses a run does not leave unless someone resumes it. */
export const ENDED: ReadonlySet<RunStatus> = new Set(["finished", "failed", "cancelled"]);

/**
 * Records the end of a run that is not running here (cancelled before it started or while paused,
 * failed after too many crashes, or with no executor to run it): takes its lease (compare-and-set,
 * so a process running it wins) and writes the status and reason. A cancel is written with the
 * store's `cancelRun` when it has one, so that the run's paused sub-runs (the other agent's run of a
 * `handoff` or `asTool` call that paused inside it) are cancelled with it (docs/approval.md, "A
 * pause inside a handoff"); a store without `cancelRun` gets the cancel as a write, and such
 * sub-runs stay paused. Resolves with `false`, writing nothing, when the run has ended already;
 * rejects with `RunBusyError` while another process holds its lease.
 *
 * @internal
 */
export async function settleRun(store: RunStore, runId: string, owner: string, status: "failed" | "cancelled", reason: string): Promise<boolean> {
  const info = await store.getRun(runId);
  if (info === undefined || ENDED.has(info.status)) return false;
  const claimed = await store.claimRun(runId, { owner, leaseMs: SETTLE_LEASE_MS, at: Date.now() });
  // A run that ended between the read and the claim (another process cancelled it, say) keeps
  // its status and its error, which the claim cleared; either way the lease is given back.
  const ended = ENDED.has(claimed.status);
  // Ours now (nobody else can claim it): the store cancels it, and its paused sub-runs, in one step.
  if (!ended && status === "cancelled" && store.cancelRun !== undefined) return store.cancelRun(runId, { reason, at: Date.now() });
  await store.write(runId, {
    owner,
    leaseMs: SETTLE_LEASE_MS,
    events: [],
    update: ended ? { status: claimed.status, ...(claimed.error === undefined ? {} : { error: claimed.error }), release: true } : { status, error: reason, release: true },
    at: Date.now(),
  });
  return !ended;
}

/**
 * Why a run that `RunClient.cancel` stopped before it ran here ended, by how it stood: paused, its
 * worker gone (a lease that lapsed, or, with `workerGone`, a worker no longer connected to Redis),
 * or queued, to start or to go on (a queued run with events has run before). `info` undefined: as
 * a queued run that never started.
 *
 * @internal
 */
export function cancelReason(info: Pick<RunInfo, "status" | "eventCount"> | undefined, { workerGone = false }: { workerGone?: boolean } = {}): string {
  const cancelled = "The run was cancelled (RunClient.cancel)";
  if (info?.status === "interrupted") return `${cancelled} while it was paused for approval.`;
  if (info?.status === "running" && workerGone) return `${cancelled} after the worker running it stopped (it left Redis before its lease expired).`;
  if (info?.status === "running") return `${cancelled} after the worker running it stopped (its lease had expired).`;
  return (info?.eventCount ?? 0) > 0 ? `${cancelled} before a worker resumed it.` : `${cancelled} before a worker started it.`;
}
