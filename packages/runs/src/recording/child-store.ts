// Test-only: the store a child process of the crash, kill and fencing tests records to, as the
// parent describes it on the command line.
import type { RunStore } from "@agentrx/executors";
import { PostgresRunStore, SqliteRunStore } from "@agentrx/runs";

/** Where a child process's runs are recorded. */
export type ChildStoreTarget = { kind: "sqlite"; path: string } | { kind: "postgres"; connectionString: string; schema: string };

/** Opens the store a target names. */
export function openChildStore(target: ChildStoreTarget): RunStore {
  return target.kind === "sqlite" ? new SqliteRunStore({ path: target.path }) : new PostgresRunStore({ connectionString: target.connectionString, schema: target.schema });
}
