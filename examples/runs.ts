// The runs the examples recorded (.agentrx/runs.db, or AGENTRX_RUNS_DB): list them, replay one as
// its trace, resume one that did not finish (cancelled with Ctrl-C, or its process died), or fork
// one: a new run from its record up to a turn, with the last tool result before it changed.
// To look at runs, the `agentrx` command does more: npx agentrx runs | show | trace | ui.
//
//   npx tsx examples/runs.ts                 # the recorded runs, newest first
//   npx tsx examples/runs.ts show <runId>    # a run's trace, replayed from the record
//   npx tsx examples/runs.ts resume <runId>  # finish a run that was cut short
//   npx tsx examples/runs.ts fork <runId> <turn> ["rainy, 12°C"]
//                                            # a new run from the record before turn <turn> (0-based),
//                                            # the last tool result before it replaced by the text
import { printTrace } from "@agentrx/executors";
import { replayRun } from "@agentrx/runs";
import { RUNS_DB, runStore, weatherExecutor } from "./lib/weather-agent";

const [command = "list", runId, at, observation] = process.argv.slice(2);
const store = runStore();
try {
  if (command === "list") {
    const runs = await store.listRuns({ limit: 20 });
    console.log(`${runs.length} run(s) in ${RUNS_DB}${runs.length ? ":" : ". Record one with: npm run demo"}`);
    for (const run of runs) {
      const tokens = run.usage ? `${run.usage.total_tokens} tokens` : "";
      console.log(`${run.runId}  ${new Date(run.createdAt).toISOString()}  ${run.status.padEnd(9)}  ${run.stopReason ?? ""}  ${tokens}`);
    }
  } else if ((command === "show" || command === "resume") && runId) {
    if (command === "show") {
      console.log(`Run ${runId}, replayed from ${RUNS_DB}:\n`);
      await printTrace(replayRun(store, runId));
    } else {
      const result = await printTrace(weatherExecutor(store).resume(runId));
      console.log(`\nstopReason=${result.stopReason}`);
    }
  } else if (command === "fork" && runId && at !== undefined && !/^\d+$/.test(at)) {
    console.error(`fork: the turn must be a whole number (0-based), got "${at}"`);
    process.exitCode = 2;
  } else if (command === "fork" && runId && at !== undefined) {
    // The prefix is copied from the record, not run again: no model or tool call until turn `at`.
    const forked = weatherExecutor(store).fork(runId, { at: Number(at), ...(observation === undefined ? {} : { edit: { observation } }) });
    const result = await printTrace(forked);
    console.log(`\nForked ${runId} at turn ${at} as run ${result.runId}; stopReason=${result.stopReason}`);
  } else {
    console.error('usage: npx tsx examples/runs.ts [list | show <runId> | resume <runId> | fork <runId> <turn> ["new observation"]]');
    process.exitCode = 2;
  }
} catch (error) {
  console.error(`${(error as Error).name}: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await store.close();
}
