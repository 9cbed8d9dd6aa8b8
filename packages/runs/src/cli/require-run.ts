import type { RunInfo, RunStore } from "@agentrx/executors";
import { CliError } from "./cli-error";
import { quoteValue } from "./quote-value";

/**
 * The run `runId` of `store`, or a {@link CliError} saying it is not there (and how to list the
 * runs that are).
 *
 * @internal
 */
export async function requireRun(store: RunStore, runId: string, label: string): Promise<RunInfo> {
  const run = await store.getRun(runId);
  if (run === undefined) throw new CliError({ message: `no run ${quoteValue(runId)} in ${label}; list the runs with: agentrx runs` });
  return run;
}
