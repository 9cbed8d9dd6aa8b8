// `npm run bench` (docs/performance.md): the AgentRx executor, @langchain/classic's AgentExecutor and a bare
// loop (the floor) over one scripted model, agent runnable and tool set, in one run.
//
// The bench measures the BUILT packages: it re-runs itself with bench/tsconfig.json (no `paths`
// to the sources) and with `--expose-gc`, so run `npm run build` first (`npm run bench` does).
// `npx tsx bench/index.ts per-step tokens` runs only the named scenarios; `capacity` runs only when
// named (`npm run bench -- capacity`, `-- capacity --full` for the whole ramp).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

if (process.env.AGENTRX_BENCH_CHILD !== "1") {
  const child = spawnSync(process.execPath, ["--expose-gc", ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: {
      ...process.env,
      AGENTRX_BENCH_CHILD: "1",
      // AGENTRX_BENCH_SOURCES=1 measures the sources instead (for working on the executor).
      ...(process.env.AGENTRX_BENCH_SOURCES === "1" ? {} : { TSX_TSCONFIG_PATH: fileURLToPath(new URL("./tsconfig.json", import.meta.url)) }),
    },
  });
  process.exit(child.status ?? 1);
}

const { concurrentRuns, linearity, parallelTools, perStepOverhead, tokenStreaming } = await import("./scenarios");
const { recording } = await import("./recording");
const { eagerDispatch } = await import("./eager");
const { memory } = await import("./memory");
const { queue } = await import("./queue");
const { telemetry } = await import("./telemetry");
const { promptCache } = await import("./prompt-cache");
const { capacity } = await import("./capacity");
const { runsSearch } = await import("./runs-search");
type Row = import("./scenarios").Row;

const scenarios: Record<string, () => Promise<Row[]>> = {
  "per-step": perStepOverhead,
  parallel: parallelTools,
  linear: linearity,
  concurrent: concurrentRuns,
  tokens: tokenStreaming,
  recording,
  eager: eagerDispatch,
  memory,
  queue,
  telemetry,
  "prompt-cache": promptCache,
  capacity,
  "runs-search": runsSearch,
};
// Flags (`--full`, `--levels=...`) are the capacity scenario's; the other arguments name scenarios.
const only = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const rows: Row[] = [];
const started = performance.now();
// The capacity scenario takes minutes: it runs only when named (`npm run bench -- capacity`).
const byName = new Set(["capacity"]);
for (const [name, run] of Object.entries(scenarios)) {
  if (only.length > 0 ? !only.includes(name) : byName.has(name)) continue;
  process.stderr.write(`running ${name}...\n`);
  rows.push(...(await run()));
}

const format = (value: number | undefined) =>
  value === undefined ? "-" : value >= 1000 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3);
const header = ["scenario", "metric", "agentrx", "floor", "floor+signal", "classic", "ai-sdk", "lc-v1", "check", "value", "target", "ok"];
const table = rows.map((row) => [
  row.scenario,
  row.metric,
  format(row.agentrx),
  format(row.floor),
  format(row.floorSignal),
  format(row.classic),
  format(row.aiSdk),
  format(row.langchainV1),
  row.check.label,
  row.check.value.toFixed(3),
  `${row.check.atLeast ? ">=" : "<="} ${row.check.limit}`,
  (row.check.atLeast ? row.check.value >= row.check.limit : row.check.value <= row.check.limit) ? "yes" : "NO",
]);
const widths = header.map((title, column) => Math.max(title.length, ...table.map((cells) => (cells[column] ?? "").length)));
const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ").trimEnd();
console.log(line(header));
console.log(line(widths.map((width) => "-".repeat(width))));
for (const cells of table) console.log(line(cells));
console.log(
  `\nfloor = a bare loop over the same agent and tools (for tokens: reading the model's own stream);` +
    `\nfloor+signal = the same loop passing an AbortSignal to every call, as any cancellable run must;` +
    `\nai-sdk = the AI SDK's generateText tool loop over a model with the same script and latency, cancellable (an abortSignal per run), no store;` +
    "\nlc-v1 = LangChain v1's createAgent (the langchain package) with a middleware, on the same script, tool and history;" +
    `\nin the recording rows, floor = the same executor with recording off (bytes: a step's writes at step 10).` +
    `\nnode ${process.version}, ${(await import("node:os")).cpus().length} CPUs, total ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
