import { InvalidArgumentError } from "@agentrx/core";
import { RunFinishedError, RunLeaseLostError, RunStoreError } from "@agentrx/executors";

/** The error of every call made after `close()`. */
export function closedStoreError(store: string, operation: string, runId?: string): RunStoreError {
  return new RunStoreError({
    operation,
    runId,
    message: `${store} is closed: ${operation} cannot run after close(). Create a new store to use it again.`,
  });
}

/**
 * `error` as a `RunStoreError` naming the store, the operation and the run (or `subject`, e.g.
 * `thread "t1"`, for calls about something else); the driver's error becomes its `cause`.
 */
export function wrapStoreError(store: string, operation: string, runId: string | undefined, error: unknown, subject?: string): RunStoreError | InvalidArgumentError | RunFinishedError {
  if (RunStoreError.isInstance(error) || InvalidArgumentError.isInstance(error) || RunFinishedError.isInstance(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const detail = `${error instanceof Error ? error.message : String(error)}${typeof code === "string" && code ? ` (${code})` : ""}`;
  const about = subject !== undefined ? ` for ${subject}` : runId === undefined ? "" : ` for run "${runId}"`;
  return new RunStoreError({ operation, runId, message: `${store}: ${operation} failed${about}: ${detail}`, cause: error });
}

/**
 * Loads an optional driver package with `load` (a dynamic `import()`), or rejects with a
 * `RunStoreError` that says which package to install.
 */
export async function loadDriver<T>(store: string, packageName: string, load: () => Promise<unknown>): Promise<T> {
  let loaded: unknown;
  try {
    loaded = await load();
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code;
    const missing = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
    throw new RunStoreError({
      operation: "open",
      message: missing
        ? `${store} needs the "${packageName}" package, which is not installed: npm install ${packageName}`
        : `${store}: the "${packageName}" package could not be loaded (${(cause as Error)?.message ?? String(cause)}). Reinstall it: npm install ${packageName}`,
      cause,
    });
  }
  const module = loaded as { default?: unknown };
  return (module.default ?? module) as T;
}

/** The error of a write whose first event does not follow the run's last one. */
export function seqError(store: string, runId: string, eventCount: number, firstSeq: number): RunStoreError {
  const kind = firstSeq <= eventCount ? "repeats a recorded seq" : "leaves a gap";
  return new RunStoreError({
    operation: "write",
    runId,
    message: `${store}: the write to run "${runId}" starts at seq ${firstSeq}, but the run has ${eventCount} event(s), so the next seq is ${eventCount + 1}; it ${kind}. Nothing of the write was applied.`,
  });
}

/**
 * The error of a write refused because its writer lost the run: another owner holds the lease, or
 * the write's `epoch` is older than the run's (another claim came since). Names the epochs when the
 * writer gave one; says so when the run was cancelled from another process (`cancelRun`).
 */
export function leaseLostError(store: string, runId: string, owner: string, epoch: number | undefined, current: { owner: string | null; epoch: number; status?: string }): RunLeaseLostError {
  if (current.status === "cancelled" && current.owner === null) {
    return new RunLeaseLostError({
      runId,
      owner,
      ...(epoch === undefined ? {} : { epoch }),
      cancelled: true,
      message: `${store}: run "${runId}" was cancelled from another process (cancelRun), so this write was refused and the run stops here.`,
    });
  }
  if (epoch === undefined || current.owner !== owner || current.epoch === epoch) return new RunLeaseLostError({ runId, owner });
  return new RunLeaseLostError({
    runId,
    owner,
    epoch,
    message: `${store}: run "${runId}" is at epoch ${current.epoch}, but this write carries epoch ${epoch}: the run was claimed again since this process took it, so the write was refused and the run stops here.`,
  });
}

/** The statuses `cancelRun` cancels: a run that has not ended. */
export const CANCELLABLE_STATUSES: readonly string[] = ["queued", "running", "interrupted"];
