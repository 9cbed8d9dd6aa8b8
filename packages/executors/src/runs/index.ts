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
} from "./run-store";
export { RunBusyError, RunLeaseLostError, RunNotFoundError, RunStoreError } from "./run-store-errors";
