import type { RunStatus, RunStore } from "@agentrx/executors";
import type { CliIo } from "./cli-io";
import { cliStyle, formatRunsTable, wantsColors } from "./format-runs-table";

/** What `agentrx runs` is asked for. */
export interface RunsCommandOptions {
  threadId?: string;
  status?: RunStatus[];
  limit: number;
  json: boolean;
  /** How the store is named in messages. */
  label: string;
}

/**
 * `agentrx runs`: the runs, newest first, as a table (or a JSON array of the store's `RunInfo`s).
 *
 * @internal
 */
export async function runsCommand(store: RunStore, options: RunsCommandOptions, io: CliIo): Promise<void> {
  const { threadId, status, limit, json, label } = options;
  const runs = await store.listRuns({ ...(threadId !== undefined ? { threadId } : {}), ...(status !== undefined ? { status } : {}), limit });
  if (json) {
    io.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    return;
  }
  const filtered = threadId !== undefined || status !== undefined;
  if (runs.length === 0) {
    io.stdout.write(filtered ? `No runs in ${label} match these filters.\n` : `No runs in ${label} yet. Runs are recorded by an executor with a store: new AgentExecutor({ ..., store }).\n`);
    return;
  }
  const style = cliStyle(wantsColors(io.stdout, io.env));
  io.stdout.write(`${formatRunsTable(runs, style)}\n`);
  const more = runs.length === limit ? ` (the ${limit} newest; --limit for more)` : "";
  io.stdout.write(style.dim(`${runs.length} run${runs.length === 1 ? "" : "s"} in ${label}${more}. See one: agentrx show <runId> · agentrx trace <runId> · agentrx ui\n`));
}
