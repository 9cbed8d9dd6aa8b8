import type { RunnableConfig } from "@langchain/core/runnables";
import type { RunRecorder } from "../runs/run-recorder";
import type { RunTelemetry } from "../telemetry/run-telemetry";
import type { SegmentTrace } from "../telemetry/segment-link";
import type { Decision } from "./events";
import type { ExecutorRun } from "./executor-run";
import type { RunState } from "./run-state";
import type { StopCondition } from "./stop-condition";

/** What one subscription needs to run. @internal */
export interface RunRequest {
  /** The run's state: fresh for a new run, restored from the record for a resumed one. */
  state: RunState;
  config: RunnableConfig;
  conditions: readonly StopCondition[];
  /** Forward model tokens (`stream()`), or only usage (`invoke`). */
  streamTokens: boolean;
  /** Whether anyone needs action/step/token/usage events (a stream, stop conditions, a recorder). */
  observeModel: boolean;
  /** Whether to watch the agent's model through callbacks (tokens, usage, recorded model calls). */
  watchModel: boolean;
  /**
   * Whether each model call's usage, with its model's name, comes from what the agent reports to
   * its model-call observer when no callbacks watch the model (prices and stop conditions, for an
   * agent that observes its model calls); else, unwatched, usage comes from the agent's output.
   */
  observeUsage?: boolean;
  /** Opens the run's record (creates or claims it); absent when the run is not recorded. */
  record?: (run: ExecutorRun) => Promise<RunRecorder>;
  /** Whether each model call's full request is recorded (the executor's `recordPrompts`). */
  recordPrompts?: boolean;
  /** Whether this run continues a recorded one. */
  resumed: boolean;
  /** Checked decisions on the interrupts the resumed run waits for (recorded ones included). */
  decisions?: Record<string, Decision>;
  /** For a fork: the run and iteration it was forked from (its start event says so). */
  forkOf?: { runId: string; iteration: number };
  /** For a fork: its last copied step's observation was edited (`edit.observation`): checked before it goes on. */
  forkEdited?: boolean;
  /** Decisions given to this resume (recorded as the segment starts). */
  newDecisions?: Record<string, Decision>;
  /** Ids of recorded decisions whose calls never started (`RestoredRun.unstartedDecisions`): not in doubt. */
  unstartedDecisions?: readonly string[];
  /** The run's spans, made from what it sees (set when traced without callbacks). */
  telemetry?: RunTelemetry;
  /** Where the run's checkpoint reads the `traceparent` it keeps: its span's when traced, else the last traced segment's (docs/telemetry.md). */
  trace?: SegmentTrace;
}
