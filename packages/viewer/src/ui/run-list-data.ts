import type { RunInfo, RunStatus } from "@agentrx/executors";
import { isStalledRun } from "../trace-page/is-stalled-run";

/** A run as the `ui`'s list shows it. */
export interface RunListItem {
  runId: string;
  threadId?: string;
  status: string;
  /**
   * Set on a `running` run whose lease had lapsed when the list was made (its process stopped
   * without ending it): the list shows it `running (stalled)`. See {@link isStalledRun}.
   */
  stalled?: true;
  /** The start of the run's input (the store's `inputPreview`, at most 200 characters), when the store keeps one. */
  input?: string;
  stopReason?: string;
  /** What the list's stop column says: see {@link runStopLabel}. */
  stop?: string;
  /** The agent's iterations (turns: an agent call and the tool calls it asked for) so far; the list's Turns column. */
  steps?: number;
  tokens?: number;
  /** What the run cost in US dollars (its usage's `cost.total`), when a model call of it was priced (the executor's `prices`). */
  cost?: number;
  /**
   * How many of its model calls the executor's `prices` could not price (its usage's
   * `unpricedCalls`; see docs/cost.md#calls-without-a-price): the cost leaves them out. Absent when none.
   */
  unpricedCalls?: number;
  /** Running time (over every segment). */
  durationMs: number;
  createdAt: number;
  updatedAt: number;
  /** Why it failed or was cancelled, or what of its record cannot be read. */
  error?: string;
}

/** The run list page's data (and what `GET /api/runs` answers). */
export interface RunListData {
  /** Where the runs are, e.g. `SQLite .agentrx/runs.db`. */
  source: string;
  runs: RunListItem[];
  /** How many runs the list shows at most. */
  limit: number;
  /** The words the runs were searched for (the store's full-text search over each run's input and answer), when the list was searched. */
  search?: string;
  /** The statuses the list was filtered by (`?status=failed,cancelled`), when it was. */
  status?: RunStatus[];
  /** The thread the list was filtered by (`?thread=...`), when it was. */
  threadId?: string;
  /**
   * What the runs are sorted by (`?sort=updated` or `?sort=cost`: the last written, or the most
   * expensive, first), when not by start (newest first, the default).
   */
  sort?: RunListSort;
}

/** What the run list can be sorted by besides its start (newest first): the last write, or the cost (most expensive first). */
export type RunListSort = "updated" | "cost";

/**
 * A run as the `ui`'s list shows it (and `GET /api/runs` answers), from its row; `now` (epoch
 * milliseconds, when the list is made) decides whether a running run is stalled.
 *
 * @internal
 */
export function runListItemOf(run: RunInfo, now: number): RunListItem {
  const item: RunListItem = {
    runId: run.runId,
    status: run.status,
    durationMs: run.checkpoint?.elapsedMs ?? Math.max(0, run.updatedAt - run.createdAt),
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
  if (run.threadId !== undefined) item.threadId = run.threadId;
  if (isStalledRun(run, now)) item.stalled = true;
  if (run.inputPreview !== undefined && run.inputPreview !== "") item.input = run.inputPreview;
  if (run.stopReason !== undefined) item.stopReason = run.stopReason;
  const stop = runStopLabel(run);
  if (stop !== undefined) item.stop = stop;
  if (run.checkpoint !== undefined) item.steps = run.checkpoint.iteration;
  if (run.usage?.total_tokens !== undefined) item.tokens = run.usage.total_tokens;
  if (run.usage?.cost !== undefined) item.cost = run.usage.cost.total;
  const unpriced = run.usage?.unpricedCalls;
  if (typeof unpriced === "number" && Number.isFinite(unpriced) && unpriced > 0) item.unpricedCalls = unpriced;
  if (run.error !== undefined) item.error = run.error;
  return item;
}

/**
 * What a runs list says of how a run stopped: `unreadable` when the store could not read its row
 * (`listRuns` lists such a row with an `error` starting `Corrupt record:`), else its stop reason
 * (`finish`, `max_iterations`, ...), else `cancelled` for a cancelled run; nothing for a run that
 * has not stopped. An `error` alone (a cancel's, a crash's) never makes a run unreadable.
 *
 * @example
 * ```ts
 * import { runStopLabel } from "@agentrx/viewer/trace-page";
 *
 * const at = Date.now();
 * console.log(runStopLabel({ runId: "r", status: "cancelled", inputs: {}, error: "The run was cancelled.", createdAt: at, updatedAt: at })); // "cancelled"
 * ```
 */
export function runStopLabel(run: Pick<RunInfo, "status" | "stopReason" | "error">): string | undefined {
  if (run.error?.startsWith("Corrupt record:")) return "unreadable";
  if (run.stopReason !== undefined) return run.stopReason;
  return run.status === "cancelled" ? "cancelled" : undefined;
}
