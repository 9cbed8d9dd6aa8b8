export { MemoryRunStore } from "./memory/index";
export type { MemoryRunStoreOptions } from "./memory/index";
export { SqliteRunStore } from "./sqlite/index";
export type { SqliteRunStoreOptions } from "./sqlite/index";
export { PostgresRunStore, postgresMigrationSql } from "./postgres/index";
export type {
  PostgresConnectionStringOptions,
  PostgresPool,
  PostgresPoolClient,
  PostgresPoolOptions,
  PostgresQueryResult,
  PostgresRunStoreOptions,
} from "./postgres/index";
export { RunBusyError, RunLeaseLostError, RunNotFoundError, RunStoreError } from "@agentrx/executors";
export type {
  ClaimRun,
  JsonObject,
  JsonValue,
  ListRunsOptions,
  NewRun,
  RunCheckpoint,
  RunInfo,
  RunStatus,
  RunStore,
  RunUpdate,
  RunWrite,
  StoredRunEvent,
} from "@agentrx/executors";
