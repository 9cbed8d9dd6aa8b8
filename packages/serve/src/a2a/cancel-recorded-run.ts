// Cancelling the recorded run of an A2A task that no subscription of this process runs (a run
// paused for approval, or one another process runs), so that a cancelled task's run is cancelled
// too and cannot be resumed by a later answer (see docs/serving-a2a.md, "Cancelling a task"). @internal
import type { RunStatus, RunStore, RunUpdate } from "@agentrx/executors";

/** The statuses a cancel ends (as `RunStore.cancelRun` has them). */
const CANCELLABLE: ReadonlySet<RunStatus> = new Set<RunStatus>(["queued", "running", "interrupted"]);

/** How long the lease taken to record the cancel lasts (ms): the claim and the write follow each other at once. */
const CANCEL_LEASE_MS = 30_000;

/**
 * Records run `runId` as `cancelled` (with `reason` as its `error`), unless it has ended already.
 * Through the store's `cancelRun` when it has one; otherwise (the executor's in-process store of
 * approvals, a store of your own) by taking the run's lease and writing the cancel, so a run that
 * another process holds a live lease on is refused with the store's `RunBusyError`. A run that
 * ended between the read and the claim is given back as it was. Resolves with whether the run was
 * cancelled (false: it had ended, or the store does not have it).
 */
export async function cancelRecordedRun(store: RunStore, runId: string, reason: string): Promise<boolean> {
  if (typeof store.cancelRun === "function") return store.cancelRun(runId, { reason, at: Date.now() });
  const info = await store.getRun(runId);
  if (info === undefined || !CANCELLABLE.has(info.status)) return false;
  const owner = `a2a-cancel-${crypto.randomUUID()}`;
  const claimed = await store.claimRun(runId, { owner, leaseMs: CANCEL_LEASE_MS, at: Date.now() });
  const cancelled = CANCELLABLE.has(claimed.status);
  const update: RunUpdate = cancelled
    ? { status: "cancelled", error: reason, release: true }
    : { status: claimed.status, ...(claimed.error === undefined ? {} : { error: claimed.error }), release: true };
  await store.write(runId, { owner, leaseMs: CANCEL_LEASE_MS, events: [], update, at: Date.now(), ...(typeof claimed.epoch === "number" ? { epoch: claimed.epoch } : {}) });
  return cancelled;
}
