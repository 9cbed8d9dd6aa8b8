// The runs the examples recorded (.agentrx/runs.db, or AGENTRX_RUNS_DB): list them, replay one as
// its trace, resume one that did not finish (cancelled with Ctrl-C, or its process died), or fork
// one: a new run from its record up to a turn, with the last tool result before it changed.
// To look at runs, the `agentrx` command does more: npx agentrx runs | show | trace | ui.
//
//   npx tsx examples/runs.ts                 # the latest 20 runs, newest first (npx agentrx runs: all)
//   npx tsx examples/runs.ts show <runId>    # a run's trace, replayed from the record, and its status
//   npx tsx examples/runs.ts resume <runId>  # finish a run that was cut short
//   npx tsx examples/runs.ts fork <runId> <turn> ["rainy, 12°C"]
//                                            # a new run from the record before turn <turn> (0-based),
//                                            # the last tool result before it replaced by the text
//
// Ctrl-C during resume or fork cancels the run, as in the quickstart: it can be resumed at once.
import { type AgentStreamEvent, printTrace, renderTrace } from "@agentrx/executors";
import { RunNotFoundError, replayRun } from "@agentrx/runs";
import { isStalledRun } from "@agentrx/viewer/trace-page";
import { type Observable, lastValueFrom, tap } from "rxjs";
import { cancelOnCtrlC, cancelledByCtrlC, sayCancelled } from "./lib/ctrl-c";
import { RUNS_DB, runStore, weatherExecutor } from "./lib/weather-agent";

const USAGE = 'usage: npx tsx examples/runs.ts [list | show <runId> | resume <runId> | fork <runId> <turn> ["new observation"]]';
// How many arguments each command takes after its name: at least, at most.
const ARGUMENTS: Record<string, [number, number]> = { list: [0, 0], show: [1, 1], resume: [1, 1], fork: [2, 3] };
// `list` shows the latest runs; `npx agentrx runs` pages through them all.
const LIST_LIMIT = 20;

const [command = "list", ...args] = process.argv.slice(2);
const [runId = "", at = "", observation] = args;
const [fewest, most] = ARGUMENTS[command] ?? [1, 0];
if (args.length < fewest || args.length > most || (fewest > 0 && runId === "")) {
  console.error(USAGE);
  process.exit(2);
}
if (command === "fork" && !/^\d+$/.test(at)) {
  console.error(`fork: the turn must be a whole number (0-based), got "${at}"`);
  process.exit(2);
}

const store = runStore();
// The error the trace printed (on its `error` line), so that it is not printed a second time.
let traced: unknown;
const traceOf = (events: Observable<AgentStreamEvent>) => events.pipe(tap({ error: (error: unknown) => (traced = error) }));
// Ctrl-C cancels a resumed or forked run (not a list or a replay, which Ctrl-C simply ends).
const signal = command === "resume" || command === "fork" ? cancelOnCtrlC() : undefined;
// The run that runs here: the resumed one, or the fork (its id chosen here, to name it after Ctrl-C).
const running = command === "fork" ? crypto.randomUUID() : runId;
try {
  if (command === "list") {
    const runs = await store.listRuns({ limit: LIST_LIMIT + 1 });
    if (runs.length > LIST_LIMIT) console.log(`The latest ${LIST_LIMIT} runs in ${RUNS_DB} (there are more: npx agentrx runs lists them all, a page at a time):`);
    else console.log(`${runs.length} run(s) in ${RUNS_DB}${runs.length ? ":" : ". Record one with: npm run demo"}`);
    for (const run of runs.slice(0, LIST_LIMIT)) {
      const tokens = run.usage ? `${run.usage.total_tokens} tokens` : "";
      console.log(`${run.runId}  ${new Date(run.createdAt).toISOString()}  ${run.status.padEnd(9)}  ${run.stopReason ?? ""}  ${tokens}`);
    }
  } else {
    // A run that is not recorded is said once, on stderr, before any trace.
    const run = await store.getRun(runId);
    if (run === undefined) throw new RunNotFoundError({ operation: `runs.ts ${command}`, runId });
    if (command === "show") {
      // The record as it is, as `npx agentrx show` prints it: a run that did not finish (cancelled,
      // failed, stalled or still running) ends where its record does, and says so.
      console.log(`Run ${runId}, replayed from ${RUNS_DB}:\n`);
      await lastValueFrom(traceOf(replayRun(store, runId)).pipe(renderTrace()), { defaultValue: undefined });
      // A running run whose lease lapsed is stalled: its process stopped without ending it.
      const status = isStalledRun(run, Date.now()) ? "running, stalled: its process stopped" : run.status;
      if (run.status !== "finished") console.log(`\n(${status}${run.error === undefined ? "" : `: ${run.error}`}; the record ends here${status === "running" ? " for now" : ""})`);
      if (run.status !== "finished" && status !== "running") console.log(`Finish it with: npx tsx examples/runs.ts resume ${runId}`);
    } else if (command === "resume") {
      const result = await printTrace(traceOf(weatherExecutor(store).resume(runId, { signal })));
      console.log(`\nstopReason=${result.stopReason}`);
    } else {
      // The prefix is copied from the record, not run again: no model or tool call until turn `at`.
      const forked = weatherExecutor(store).fork(runId, { at: Number(at), runId: running, signal, ...(observation === undefined ? {} : { edit: { observation } }) });
      const result = await printTrace(traceOf(forked));
      console.log(`\nForked ${runId} at turn ${at} as run ${result.runId}; stopReason=${result.stopReason}`);
    }
  }
} catch (error) {
  if (signal !== undefined && cancelledByCtrlC(error, signal)) await sayCancelled(store, running);
  else {
    if (error !== traced) console.error(`${(error as Error).name}: ${(error as Error).message}`);
    process.exitCode = 1;
  }
} finally {
  await store.close();
}
