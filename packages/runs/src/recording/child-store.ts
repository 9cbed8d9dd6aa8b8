// Test-only: the store a child process of the crash, kill and fencing tests records to, as the
// parent describes it on the command line.
import { RunBusyError, type RunStore } from "@agentrx/executors";
import { PostgresRunStore, SqliteRunStore } from "@agentrx/runs";

/** Where a child process's runs are recorded. */
export type ChildStoreTarget = { kind: "sqlite"; path: string } | { kind: "postgres"; connectionString: string; schema: string };

/** Opens the store a target names. */
export function openChildStore(target: ChildStoreTarget): RunStore {
  return target.kind === "sqlite" ? new SqliteRunStore({ path: target.path }) : new PostgresRunStore({ connectionString: target.connectionString, schema: target.schema });
}

/**
 * Calls `resume` until the store stops refusing it with `RunBusyError`: the lease a killed process
 * left behind has not expired yet. Settles as the first call that is not refused.
 */
export async function whenLeaseFree<T>(resume: () => PromiseLike<T>, retryMs = 50): Promise<T> {
  for (;;) {
    try {
      return await resume();
    } catch (error) {
      if (!RunBusyError.isInstance(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}
