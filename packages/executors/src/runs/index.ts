export type {
  CancelRun,
  ClaimRun,
  ForkOf,
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
  RunWriteResult,
  RunMessageAppended,
  StoredRunEvent,
  StoredThreadMessage,
} from "./run-store";
export { RunBusyError, RunLeaseLostError, RunNotFoundError, RunStoreError } from "./run-store-errors";
export type { RunStoreErrorReason } from "./run-store-errors";
export { RECORD_ONLY_EVENT_TYPES, RunEventDecoder, decodeAction, encodeAction, encodeRunEvent } from "./run-event-codec";
export type { RecordedDecisions, RecordedModelCall, RecordedToolIntent } from "./run-event-codec";
export { digestMessages } from "./digest-messages";
export { MAX_RECORDED_IMAGE_CHARS, leftOutOfMessage } from "./json-value";
export { PausedCalls } from "./paused-calls";
export type { EditedCall } from "./paused-calls";
export { deserializeRunState, serializeRunState } from "./serialize-run-state";
export type { SerializedRunState } from "./serialize-run-state";
export { RunRecordFold, restoreRunState } from "./restore-run-state";
export type { RestoredRun } from "./restore-run-state";
export { REPLAY_PAGE_SIZE, corrupt as corruptEventError, messageOf as errorMessageOf, readRecordedEvents, recordedRunInfo } from "./read-recorded-events";
export { randomUuid } from "./random-uuid";
export { recordDecisions, type RecordDecisionsOptions, type RecordedDecisionsWrite } from "./record-decisions";
