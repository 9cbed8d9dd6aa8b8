// The runs the examples recorded (.agentrx/runs.db, or AGENTRX_RUNS_DB): list them, replay one as
// its trace, or resume one that did not finish (cancelled with Ctrl-C, or its process died).
// To look at runs, the `agentrx` command does more: npx agentrx runs | show | trace | ui.
//
//   npx tsx examples/runs.ts                 # the recorded runs, newest first
//   npx tsx examples/runs.ts show <runId>    # a run's trace, replayed from the record
//   npx tsx examples/runs.ts resume <runId>  # finish a run that was cut short
import { printTrace } from "@agentrx/executors";
import { replayRun } from "@agentrx/runs";
import { RUNS_DB, runStore, weatherExecutor } from "./lib/weather-agent";

const [command = "list", runId] = process.argv.slice(2);
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
  } else {
    console.error("usage: npx tsx examples/runs.ts [list | show <runId> | resume <runId>]");
    process.exitCode = 2;
  }
} catch (error) {
  console.error(`${(error as Error).name}: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await store.close();
}
