import { isAbortError } from "@agentrx/core";
import { RunLeaseLostError } from "@agentrx/executors";

/**
 * Whether a run's error means it was cancelled rather than failed: its `AbortSignal` (or the
 * request's) aborted it, or another process cancelled its record (`cancelRun`, what `agentrx ui`'s
 * Cancel does), which the running process hears as a refused write (docs/runs.md, cancellation).
 */
export function isRunCancellation(error: unknown): boolean {
  return isAbortError(error) || (RunLeaseLostError.isInstance(error) && error.cancelled === true);
}
