import { formatUsd, type ListRunsOptions, type RunInfo, type RunStore } from "@agentrx/executors";
import { formatRuntime } from "@agentrx/viewer/trace-page";
import type { CliIo } from "./cli-io";
import { cliStyle, formatRunsTable, isStalled, stalledHint, wantsColors } from "./format-runs-table";
import { jsonText } from "./printable";

const fmt = formatRuntime();

/** What `agentrx runs` is asked for: the store's `listRuns` options, and how to print them. */
export interface RunsCommandOptions {
  query: ListRunsOptions & { limit: number };
  json: boolean;
  /** How the store is named in messages. */
  label: string;
  /** The command line's filter and sort flags, repeated in the "next page" hint. */
  flags: readonly string[];
  /** The command line's `--db` (its password left out) and `--schema`, repeated first in the "next page" hint. */
  storeFlags?: readonly string[];
}

/**
 * `agentrx runs`: the runs (newest first unless `--sort`/`--order` say otherwise) as a table, or
 * a JSON array of the store's `RunInfo`s. A page with more runs after it ends with the command
 * for the next one (`--cursor`): one run more than `limit` is read to know.
 *
 * @internal
 */
export async function runsCommand(store: RunStore, options: RunsCommandOptions, io: CliIo): Promise<void> {
  const { query, json, label, flags, storeFlags = [] } = options;
  const { limit } = query;
  // One more than the page: a page that is exactly full offers no next page when nothing follows it.
  const read = await store.listRuns({ ...query, limit: limit + 1 });
  const more = read.length > limit;
  const runs = more ? read.slice(0, limit) : read;
  if (json) {
    io.stdout.write(`${jsonText(runs)}\n`);
    return;
  }
  if (runs.length === 0) {
    if (query.cursor !== undefined) {
      io.stdout.write(`No more runs in ${label} after this cursor${flags.length > 0 ? " that match these filters" : ""}.\n`);
      return;
    }
    io.stdout.write(flags.length > 0 ? `No runs in ${label} match these filters.\n` : `No runs in ${label} yet. Runs are recorded by an executor with a store: new AgentExecutor({ ..., store }).\n`);
    return;
  }
  const style = cliStyle(wantsColors(io.stdout, io.env));
  const now = Date.now();
  io.stdout.write(`${formatRunsTable(runs, style, now)}\n`);
  io.stdout.write(style.dim(`${runs.length} run${runs.length === 1 ? "" : "s"} in ${label}${totalCost(runs)}. See one: agentrx show <runId> · agentrx diff <runA> <runB> · agentrx ui\n`));
  const stalled = stalledHint(runs.filter((run) => isStalled(run, now)).map((run) => run.runId));
  if (stalled !== undefined) io.stdout.write(style.dim(`${stalled}\n`));
  const last = runs[runs.length - 1];
  if (more && last?.cursor !== undefined) {
    io.stdout.write(style.dim(`Next page: agentrx runs ${[...storeFlags, ...flags, "--cursor", last.cursor].join(" ")}\n`));
  }
}

/**
 * The listing's total cost, as its COST column writes a run's (`, $0.0500 + 3 unpriced in all`:
 * the calls no `prices` could price, see docs/cost.md#calls-without-a-price); empty when no run was
 * priced nor has unpriced calls. A sub-run listed with its caller counts once, in its caller's
 * (a caller's usage covers its sub-runs').
 */
function totalCost(listed: readonly RunInfo[]): string {
  const runs = withoutListedCallers(listed);
  const priced = runs.filter((run) => run.usage?.cost !== undefined);
  const total = priced.reduce((sum, run) => sum + (run.usage?.cost?.total ?? 0), 0);
  const unpriced = runs.reduce((sum, run) => sum + unpricedCallsOf(run), 0);
  const text = fmt.costWithUnpriced(priced.length > 0 ? formatUsd(total) : undefined, unpriced);
  if (text === undefined) return "";
  // A fork's cost counts its copied turns, which were paid for once, by the run it was forked from.
  const copiedCost = runs.some((run) => (run.forkOf?.iteration ?? 0) > 0 && (run.usage?.cost !== undefined || unpricedCallsOf(run) > 0));
  return `, ${text} in all${copiedCost ? " (forks' copied turns included)" : ""}`;
}

/** Sub-runs' id prefixes (`asTool`, `handoff`): `<prefix>:<the calling tool call's idempotency key>`. */
const SUB_RUN_PREFIXES = ["as-tool:", "handoff:"] as const;

/**
 * `runs` without the sub-runs whose calling run is among them: a sub-run's id is its prefix and
 * the calling tool call's idempotency key, which starts with the caller's run id and a colon.
 */
function withoutListedCallers(runs: readonly RunInfo[]): readonly RunInfo[] {
  const ids = runs.map((run) => run.runId);
  const callerListed = (runId: string): boolean => {
    const prefix = SUB_RUN_PREFIXES.find((candidate) => runId.startsWith(candidate));
    if (prefix === undefined) return false;
    const key = runId.slice(prefix.length);
    return ids.some((id) => id !== runId && key.startsWith(`${id}:`));
  };
  return runs.some((run) => callerListed(run.runId)) ? runs.filter((run) => !callerListed(run.runId)) : runs;
}

/** The run's unpriced calls (0 when none, or a count that is not one). */
function unpricedCallsOf(run: RunInfo): number {
  const count = run.usage?.unpricedCalls;
  return typeof count === "number" && Number.isFinite(count) && count > 0 ? count : 0;
}
