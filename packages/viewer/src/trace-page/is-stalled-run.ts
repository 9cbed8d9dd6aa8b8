// Runtime-neutral: used by the server (the list's and the trace page's data) and bundled into the
// pages' scripts (the tooltip).
import type { RunInfo } from "@agentrx/executors";

/**
 * Whether a `running` run's lease had lapsed by `now` (epoch milliseconds): the process that ran it
 * stopped (or lost its store) without ending it, so nothing runs it until it is resumed. A run
 * without a lease (`leaseExpiresAt` absent) is not stalled. The viewers compute `now` when they
 * read the run (see docs/trace-viewer.md), so a test passes its own.
 *
 * @example
 * ```ts
 * import { isStalledRun } from "@agentrx/viewer/trace-page";
 *
 * const run = { status: "running" as const, leaseExpiresAt: 1_000 };
 * console.log(isStalledRun(run, 999)); // false: the lease still holds
 * console.log(isStalledRun(run, 1_000)); // true
 * ```
 */
export function isStalledRun(run: Pick<RunInfo, "status" | "leaseExpiresAt">, now: number): boolean {
  return run.status === "running" && run.leaseExpiresAt !== undefined && run.leaseExpiresAt <= now;
}

/** What the pages show for a stalled run's status (as `agentrx runs` prints it). @internal */
export const STALLED_STATUS_LABEL = "running (stalled)";

/**
 * The tooltip of a stalled run's status: why it is stalled and how to go on.
 *
 * @internal
 */
export function stalledRunHint(runId: string): string {
  return `Stalled: the process running this run stopped without ending it (its lease lapsed), so nothing runs it now. Resume it where its record ends with executor.resume(${JSON.stringify(runId)}).`;
}
