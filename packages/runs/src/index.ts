export { MemoryRunStore } from "./memory/index";
export type { MemoryRunStoreOptions } from "./memory/index";
export { SqliteRunStore } from "./sqlite/index";
export type { SqliteDriver, SqliteRunStoreOptions } from "./sqlite/index";
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
  NewThreadMessage,
  ReadThreadMessagesOptions,
  RunCheckpoint,
  RunInfo,
  RunStatus,
  RunStore,
  RunUpdate,
  RunWrite,
  StoredRunEvent,
  StoredThreadMessage,
} from "@agentrx/executors";
export { replayRun } from "./replay/index";
export type { ReplayRunOptions, ReplayTiming } from "./replay/index";
export { RecordedChatModel, ReplayDivergenceError } from "./recorded-chat-model/index";
export type { ModelCallInput, RecordedChatModelCallOptions, RecordedChatModelOptions, ReplayDivergenceReason } from "./recorded-chat-model/index";
export { ThreadMemory, estimateMessageTokens, estimateTextTokens } from "./thread-memory/index";
export type { AddThreadMessagesOptions, ThreadMemoryOptions } from "./thread-memory/index";
