// The browser build of `@agentrx/runs` (the package's `browser` export condition): everything of
// ./index.ts except the stores that need Node: `SqliteRunStore` (better-sqlite3, a native addon,
// and node:fs/node:path for its file) and `PostgresRunStore` (the `pg` driver, which speaks TCP
// through node:net and node:tls). Leaving them out, rather than exporting stubs that throw, lets a
// bundler name the missing export when a browser build imports one. The `agentrx` command and its
// UI server are a separate executable (dist/cli), never reachable from here.
export { MemoryRunStore } from "./memory/index";
export type { MemoryRunStoreOptions } from "./memory/index";
export { postgresMigrationSql } from "./postgres/postgres-migrations";
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
export { diffRuns, readRunRecord } from "./diff/index";
export { promptsOf, readPrompts } from "./prompts/index";
export type { RecordedPrompt } from "./prompts/index";
export type { DiffPair, DiffToolCall, FirstDivergence, IterationDiff, RunDiff, RunRecord } from "./diff/index";
export type { ReplayRunOptions, ReplayTiming } from "./replay/index";
export { RecordedChatModel, ReplayDivergenceError } from "./recorded-chat-model/index";
export type { MessageDifference, ModelCallInput, RecordedChatModelCallOptions, RecordedChatModelOptions, ReplayDivergenceReason } from "./recorded-chat-model/index";
export { ThreadMemory, estimateMessageTokens, estimateTextTokens } from "./thread-memory/index";
export type { AddThreadMessagesOptions, ThreadMemoryOptions } from "./thread-memory/index";
// Server-Sent Events on a Node-style `http` response (no Node built-in imported: it works on any
// runtime with `node:http`'s ServerResponse API). Their parameters are typed structurally
// (`SseResponse`, `SseRequest`), so these declarations need no `@types/node` in a browser project.
export { SseWriter, decodePathSegment, parseLastEventId } from "./sse/sse-writer";
export type { SseMessage, SseRequest, SseResponse, SseSocket, SseWriterOptions } from "./sse/sse-writer";
