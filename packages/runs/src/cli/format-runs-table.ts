import { cutText } from "@agentrx/core";
import { formatUsd, type RunInfo, type RunUsage } from "@agentrx/executors";
import { formatRuntime, isStalledRun, runStopLabel } from "@agentrx/viewer/trace-page";
import { printable } from "./printable";

const fmt = formatRuntime();

/** Text styles of the terminal: ANSI colours, or none. */
export interface CliStyle {
  status(status: string, text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const ansi = (code: string) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
const STATUS_COLORS: Record<string, (text: string) => string> = {
  finished: ansi("32"),
  failed: ansi("31"),
  cancelled: ansi("33"),
  interrupted: ansi("33"),
  running: ansi("35"),
  queued: ansi("36"),
};

/** Colours when `colors` is true, plain text otherwise. @internal */
export function cliStyle(colors: boolean): CliStyle {
  if (!colors) return { status: (_status, text) => text, dim: (text) => text, bold: (text) => text };
  return { status: (status, text) => (STATUS_COLORS[status] ?? ((value: string) => value))(text), dim: ansi("2"), bold: ansi("1") };
}

/**
 * Whether to colour a stream: `FORCE_COLOR` decides when set (`0` or `false` off, anything else
 * on); otherwise a non-empty `NO_COLOR` turns colours off; otherwise on for a terminal.
 * @internal
 */
export function wantsColors(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  const force = env["FORCE_COLOR"];
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false;
  return stream.isTTY === true;
}

/** A run's running time: its checkpoint's (over every segment), else from creation to its last write. @internal */
export function runDurationMs(run: RunInfo): number {
  return run.checkpoint?.elapsedMs ?? Math.max(0, run.updatedAt - run.createdAt);
}

/** `1 turn`, `2 turns`: a count of the agent's turns (iterations: each agent call, with the tool calls it asked for). @internal */
export function turns(count: number): string {
  return `${count} turn${count === 1 ? "" : "s"}`;
}

/**
 * Whether `run` is a fork whose copy of its source's record is not written: `fork` creates the run
 * `running` and then writes the copy (its `start` event at least) in one write, so a `running` fork
 * without events is one whose making has not finished, or never will; a `cancelled` one was given
 * up when a resume could not delete it (see {@link unmadeForkState}).
 *
 * @internal
 */
export function isUnmadeFork(run: RunInfo): boolean {
  return run.forkOf !== undefined && run.eventCount === 0 && (run.status === "running" || run.status === "cancelled");
}

/**
 * What an unmade fork ({@link isUnmadeFork}) is by `now`: `making`, its maker's lease still holds
 * (it is copying the record); `stopped`, running but its lease lapsed (the process making it
 * stopped before the copy was written: a resume deletes it, to be forked again); `ended`,
 * `cancelled` (given up when it could not be deleted).
 *
 * @internal
 */
export function unmadeForkState(run: RunInfo, now: number): "making" | "stopped" | "ended" {
  if (run.status !== "running") return "ended";
  return isStalled(run, now) ? "stopped" : "making";
}

/**
 * The lineage line under a forked run: which run and iteration it was forked from, and that its
 * row counts the turns it copied from that run (its record holds them, and its usage theirs):
 * `↳ fork of trip-1@2: 2 turns copied from trip-1, 3 its own; TURNS, TOKENS and COST count both`.
 * The row does not say what the copied turns cost, so only the turns are split. A fork whose copy
 * is not written ({@link isUnmadeFork}) says so instead: being copied, or never copied because the
 * process making it stopped (and how to clear it), by `now`.
 *
 * @internal
 */
export function forkLine(run: RunInfo, now: number = Date.now()): string | undefined {
  if (run.forkOf === undefined) return undefined;
  const { iteration } = run.forkOf;
  const runId = printable(run.forkOf.runId);
  const head = `  ↳ fork of ${runId}@${iteration}`;
  if (isUnmadeFork(run)) {
    const state = unmadeForkState(run, now);
    if (state === "making") return `${head}: being made, its copy not written yet`;
    if (state === "stopped") return `${head}: its copy was never written (the process making it stopped); executor.resume(${printable(JSON.stringify(run.runId))}) deletes it, to be forked again`;
    return `${head}: its copy was never written; nothing ran`;
  }
  if (iteration === 0) return `${head}: nothing copied`;
  const copied = `${turns(iteration)} copied from ${runId}`;
  const own = run.checkpoint === undefined ? undefined : run.checkpoint.iteration - iteration;
  return own === undefined || own < 0 ? `${head}: ${copied}; TURNS, TOKENS and COST count them` : `${head}: ${copied}, ${own} its own; TURNS, TOKENS and COST count both`;
}

/**
 * Whether a `running` run's lease has lapsed by `now`: the process that ran it stopped (or lost
 * its store) without ending it, and nothing runs it until it is resumed.
 *
 * @internal
 */
export function isStalled(run: RunInfo, now: number): boolean {
  return isStalledRun(run, now); // the viewer's rule, so the command line and the pages agree
}

/** A run's status for people: `running (stalled)` for a running run whose lease lapsed (see {@link isStalled}). @internal */
export function runStatusLabel(run: RunInfo, now: number): string {
  return isStalled(run, now) ? "running (stalled)" : run.status;
}

/**
 * What to say under a listing or a trace when runs are stalled: why, and how to go on.
 *
 * @internal
 */
export function stalledHint(runIds: readonly string[]): string | undefined {
  if (runIds.length === 0) return undefined;
  const which = runIds.length === 1 ? `Run ${printable(runIds[0] as string)} is` : `${runIds.length} runs are`;
  const example = runIds[0] as string;
  return `${which} stalled: \`running\`, but the lease of the process running it lapsed (it stopped without ending the run). Resume it where its record ends: executor.resume(${printable(JSON.stringify(example))}) (a fork stopped before its copy was written is deleted then, to be forked again).`;
}

/**
 * A run's cost for people, with the model calls its executor's `prices` could not price (its
 * usage's `unpricedCalls`, see docs/cost.md#calls-without-a-price): `$0.0213`, `$0.0213 + 2
 * unpriced`, `2 unpriced` when no call was priced; undefined when there is neither.
 *
 * @internal
 */
export function runCostText(run: RunInfo): string | undefined {
  return usageCostText(run.usage);
}

/**
 * The cost of a usage (a run's, or an iteration's calls'), written as {@link runCostText} writes
 * a run's: `$0.0213`, `$0.0213 + 2 unpriced`, `2 unpriced`; undefined when there is neither.
 *
 * @internal
 */
export function usageCostText(usage: RunUsage | undefined): string | undefined {
  return fmt.costWithUnpriced(usage?.cost === undefined ? undefined : formatUsd(usage.cost.total), usage?.unpricedCalls);
}

/** A run's cost for the table's COST column ({@link runCostText}; `-` when no call of it was priced nor counted unpriced). @internal */
export function runCost(run: RunInfo): string {
  return runCostText(run) ?? "-";
}

/** At most `max` characters of a preview, on one line. */
function previewCell(text: string | undefined, max: number): string {
  if (text === undefined || text === "") return "-";
  const line = text.replace(/\s+/g, " ").trim();
  return printable(line.length > max ? `${cutText(line, max - 1)}…` : line);
}

/**
 * The `agentrx runs` table: one line per run, in the listing's order: id, thread, status, stop
 * reason, turns (the agent's iterations: its agent calls, not its tool steps), tokens, cost,
 * running time, start time (local) and the start of its input. A forked run has a second line,
 * `↳ fork of <runId>@<iteration>`: the run and the iteration its record was copied up to, and how
 * many of its turns were copied (see
 * {@link forkLine}). A running run whose lease lapsed by `now` is `running (stalled)`.
 *
 * @internal
 */
export function formatRunsTable(runs: readonly RunInfo[], style: CliStyle, now: number = Date.now()): string {
  const header = ["RUN", "THREAD", "STATUS", "STOP", "TURNS", "TOKENS", "COST", "DURATION", "STARTED", "INPUT"];
  const right = new Set([4, 5, 6, 7]);
  const rows = runs.map((run) => [
    printable(run.runId),
    run.threadId === undefined ? "-" : printable(run.threadId),
    runStatusLabel(run, now),
    printable(runStopLabel(run) ?? "-"),
    run.checkpoint !== undefined ? String(run.checkpoint.iteration) : "-",
    run.usage?.total_tokens !== undefined ? fmt.count(run.usage.total_tokens) : "-",
    runCost(run),
    fmt.duration(runDurationMs(run)),
    fmt.time(run.createdAt),
    previewCell(run.inputPreview, 40),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const line = (cells: string[], decorate: (cell: string, column: number) => string) =>
    cells
      .map((cell, column) => {
        const width = widths[column] as number;
        const padded = right.has(column) ? cell.padStart(width) : cell.padEnd(width);
        return decorate(padded, column);
      })
      .join("  ")
      .trimEnd();
  return [
    line(header, (cell) => style.dim(cell)),
    ...rows.flatMap((row, index) => {
      const run = runs[index] as RunInfo;
      const lineage = forkLine(run, now);
      const main = line(row, (cell, column) => (column === 2 ? style.status(run.status, cell) : cell));
      return lineage === undefined ? [main] : [main, style.dim(lineage)];
    }),
  ].join("\n");
}
