import type { RunInfo } from "@agentrx/executors";

/** A run as the `ui`'s list shows it. */
export interface RunListItem {
  runId: string;
  threadId?: string;
  status: string;
  stopReason?: string;
  /** The agent's iterations so far. */
  steps?: number;
  tokens?: number;
  /** Running time (over every segment). */
  durationMs: number;
  createdAt: number;
  updatedAt: number;
  /** Why it failed, or what of its record cannot be read. */
  error?: string;
}

/** The run list page's data (and what `GET /api/runs` answers). */
export interface RunListData {
  /** Where the runs are, e.g. `SQLite .agentrx/runs.db`. */
  source: string;
  runs: RunListItem[];
  /** How many runs the list shows at most. */
  limit: number;
}

/** @internal */
export function runListItemOf(run: RunInfo): RunListItem {
  const item: RunListItem = {
    runId: run.runId,
    status: run.status,
    durationMs: run.checkpoint?.elapsedMs ?? Math.max(0, run.updatedAt - run.createdAt),
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
  if (run.threadId !== undefined) item.threadId = run.threadId;
  if (run.stopReason !== undefined) item.stopReason = run.stopReason;
  if (run.checkpoint !== undefined) item.steps = run.checkpoint.iteration;
  if (run.usage?.total_tokens !== undefined) item.tokens = run.usage.total_tokens;
  if (run.error !== undefined) item.error = run.error;
  return item;
}
