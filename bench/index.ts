// `npm run bench` (docs/performance.md): the AgentRx executor, @langchain/classic's AgentExecutor and a bare
// loop (the floor) over one scripted model, agent runnable and tool set, in one run.
//
// The bench measures the BUILT packages: it re-runs itself with bench/tsconfig.json (no `paths`
// to the sources) and with `--expose-gc`, so run `npm run build` first (`npm run bench` does).
// `npx tsx bench/index.ts per-step tokens` runs only the named scenarios (an unknown name is
// refused); `capacity` runs only when named (`npm run bench -- capacity`, `-- capacity --full` for
// the whole ramp). This process waits for the one it re-runs: Ctrl-C or a SIGTERM lets the capacity
// scenario remove what it made before both exit.
import { spawn } from "node:child_process";
import { constants, cpus } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CapacityRow } from "./capacity";
import type { Row } from "./scenarios";

/** The scenarios, in the order they run; `capacity` runs only when named. */
export const SCENARIOS = [
  "per-step",
  "parallel",
  "linear",
  "concurrent",
  "tokens",
  "recording",
  "eager",
  "memory",
  "queue",
  "telemetry",
  "prompt-cache",
  "capacity",
  "runs-search",
] as const;
const BY_NAME_ONLY = new Set<string>(["capacity"]);

/**
 * The bench's arguments: scenario names, and flags (which are the capacity scenario's). Refuses a
 * name that is not a scenario (a typo would otherwise run nothing and print an empty table) and
 * flags without `capacity` (they would be ignored).
 */
export function benchArgs(args: readonly string[]): { names: string[]; flags: string[] } {
  const names = args.filter((arg) => !arg.startsWith("--"));
  const flags = args.filter((arg) => arg.startsWith("--"));
  const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`bench: unknown scenario ${unknown.map((name) => `"${name}"`).join(", ")}; the scenarios: ${SCENARIOS.join(", ")}.`);
  }
  if (flags.length > 0 && !names.includes("capacity")) {
    throw new Error(`bench: ${flags.join(" ")} ${flags.length === 1 ? "is a flag" : "are flags"} of the capacity scenario: name it (npm run bench -- capacity ${flags.join(" ")}).`);
  }
  return { names, flags };
}

/** A row of the summary table: the scenarios' rows, and the capacity scenario's (with its `langgraph` column). */
type SummaryRow = Row & Partial<Pick<CapacityRow, "langgraph">>;

/**
 * The summary table and the legend of its columns: the general legend for the rows of the other
 * scenarios, the capacity legend (whose contestants differ) for the capacity rows, each only when
 * such rows are there; the `langgraph` column only when a row has it.
 */
export function summaryTable(rows: readonly { row: SummaryRow; scenario: string }[], run: { node: string; cpus: number; seconds: number }): string[] {
  const format = (value: number | undefined) =>
    value === undefined ? "-" : value >= 1000 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3);
  const langgraph = rows.some(({ row }) => row.langgraph !== undefined);
  const header = ["scenario", "metric", "agentrx", "floor", "floor+signal", "classic", "ai-sdk", "lc-v1", ...(langgraph ? ["langgraph"] : []), "check", "value", "target", "ok"];
  const table = rows.map(({ row }) => [
    row.scenario,
    row.metric,
    format(row.agentrx),
    format(row.floor),
    format(row.floorSignal),
    format(row.classic),
    format(row.aiSdk),
    format(row.langchainV1),
    ...(langgraph ? [format(row.langgraph)] : []),
    row.check.label,
    row.check.value.toFixed(3),
    `${row.check.atLeast ? ">=" : "<="} ${row.check.limit}`,
    (row.check.atLeast ? row.check.value >= row.check.limit : row.check.value <= row.check.limit) ? "yes" : "NO",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((cells) => (cells[column] ?? "").length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ").trimEnd();
  const lines = [line(header), line(widths.map((width) => "-".repeat(width))), ...table.map(line), ""];
  const capacityRows = rows.some(({ scenario }) => scenario === "capacity");
  const otherRows = rows.some(({ scenario }) => scenario !== "capacity");
  if (otherRows) {
    if (capacityRows) lines.push("outside the capacity rows:");
    lines.push(
      "floor = a bare loop over the same agent and tools (for tokens: reading the model's own stream);",
      "floor+signal = the same loop passing an AbortSignal to every call, as any cancellable run must;",
      "ai-sdk = the AI SDK's generateText tool loop over a model with the same script and latency, cancellable (an abortSignal per run), no store;",
      "lc-v1 = LangChain v1's createAgent (the langchain package) with a middleware, on the same script, tool and history;",
      "in the recording rows, floor = the same executor with recording off (bytes: a step's writes at step 10).",
    );
  }
  if (capacityRows) {
    lines.push(
      "in the capacity rows (docs/performance.md, \"Capacity\"): runs held = the largest level below the first level that missed the targets; CPU = CPU ms per run at the lowest level;",
      "agentrx = AgentRx as the row says (in-process without a store, recording into PostgreSQL, or on BullMQ worker processes);",
      "floor = the LangChain floor: the load's agent runnable and tool in a bare loop, no store;",
      "ai-sdk = the AI SDK's streamText loop over a model with the load's timeline, no store;",
      "langgraph = LangGraph's createAgent (the langchain package) with PostgresSaver, a thread per run.",
    );
  }
  lines.push(`node ${run.node}, ${run.cpus} CPUs, total ${run.seconds.toFixed(1)} s`);
  return lines;
}

/** Re-runs this file on the built packages with `--expose-gc`, and exits as that process does. */
async function relaunch(): Promise<never> {
  const args = process.argv.slice(2);
  if (args.includes("--help") && !args.includes("capacity")) {
    console.log(`npm run bench [-- <scenario> ...]   (after a build: npx tsx bench/index.ts [<scenario> ...])\n  scenarios: ${SCENARIOS.join(", ")} (capacity only when named)\n  npm run bench -- capacity --help   the capacity scenario's flags`);
    process.exit(0);
  }
  try {
    benchArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  const child = spawn(process.execPath, ["--expose-gc", ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: {
      ...process.env,
      AGENTRX_BENCH_CHILD: "1",
      // AGENTRX_BENCH_SOURCES=1 measures the sources instead (for working on the executor).
      ...(process.env.AGENTRX_BENCH_SOURCES === "1" ? {} : { TSX_TSCONFIG_PATH: fileURLToPath(new URL("./tsconfig.json", import.meta.url)) }),
    },
  });
  // Ctrl-C reaches the child too (the same process group); a signal sent to this process alone is
  // passed on. Either way this process stays until the child has cleaned up and exited.
  const pass = (signal: NodeJS.Signals) => void child.kill(signal);
  process.on("SIGINT", pass);
  process.on("SIGTERM", pass);
  const code = await new Promise<number>((done) => {
    child.once("error", (error) => {
      process.stderr.write(`bench: could not start ${process.execPath}: ${error.message}\n`);
      done(1);
    });
    child.once("exit", (status, signal) => done(status ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0))));
  });
  process.exit(code);
}

async function main(): Promise<void> {
  let names: string[];
  try {
    ({ names } = benchArgs(process.argv.slice(2)));
    if (names.includes("capacity")) (await import("./capacity")).checkCapacityFlags(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
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
  const scenarios: Record<(typeof SCENARIOS)[number], () => Promise<SummaryRow[]>> = {
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
  const rows: { row: SummaryRow; scenario: string }[] = [];
  const started = performance.now();
  for (const name of SCENARIOS) {
    // The capacity scenario takes minutes: it runs only when named (`npm run bench -- capacity`).
    if (names.length > 0 ? !names.includes(name) : BY_NAME_ONLY.has(name)) continue;
    process.stderr.write(`running ${name}...\n`);
    for (const row of await scenarios[name]()) rows.push({ row, scenario: name });
  }
  for (const line of summaryTable(rows, { node: process.version, cpus: cpus().length, seconds: (performance.now() - started) / 1000 })) console.log(line);
}

// Run as a script (not imported, as the bench's tests do).
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.env.AGENTRX_BENCH_CHILD !== "1") await relaunch();
  else await main();
}
