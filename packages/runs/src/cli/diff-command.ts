import { resolve } from "node:path";
import { formatUsd, type RunStore, type RunUsage } from "@agentrx/executors";
import { diffPageData, diffPageHtml } from "@agentrx/viewer/trace-page";
import { diffRuns, type DiffPair, type DiffToolCall, type RunDiff } from "../diff/diff-runs";
import type { CliIo } from "./cli-io";
import { cliStyle, wantsColors, type CliStyle } from "./format-runs-table";
import { shownRunId } from "./quote-value";
import { readComparableRecord } from "./read-comparable-record";
import { requireRun } from "./require-run";
import { kilobytes } from "./trace-command";
import { shownPath, writeOutputFile } from "./write-output-file";
import { printable } from "./printable";

/** What `agentrx diff` is asked for. */
export interface DiffCommandOptions {
  json: boolean;
  /** Write the diff page (one self-contained HTML file) here instead of printing text; `-` for stdout. */
  html?: string;
  /** How the store is named in messages. */
  label: string;
}

/**
 * `agentrx diff <runA> <runB>`: the two runs side by side (inputs, each iteration's prompt digest,
 * model text and tool calls with observations, answers, usage and cost), what is equal said once,
 * what differs as `a:` and `b:` lines, and the first divergence marked. `--json` prints the
 * `RunDiff` of `diffRuns`; `--html <file>` writes the diff page (what `agentrx ui` serves at
 * `/diff`) as one self-contained HTML file.
 *
 * A run whose record is damaged (an event that cannot be read or decoded) is not compared, in any
 * of these forms: the command fails (exit 1) with one line naming the run, its first damaged event
 * and why (see {@link readComparableRecord}); `agentrx show` shows the rest of such a run.
 *
 * @internal
 */
export async function diffCommand(store: RunStore, runA: string, runB: string, options: DiffCommandOptions, io: CliIo): Promise<void> {
  const [infoA, infoB] = [await requireRun(store, runA, options.label), await requireRun(store, runB, options.label)];
  const [a, b] = [await readComparableRecord(store, infoA), await readComparableRecord(store, infoB)];
  if (options.html !== undefined) return writeDiffPage(diffPageHtml(diffPageData(a, b, { mode: "file", source: options.label })), runA, runB, options.html, io);
  const diff = diffRuns(a, b);
  if (options.json) {
    io.stdout.write(`${JSON.stringify(diff, null, 2)}\n`);
    return;
  }
  io.stdout.write(formatRunDiff(diff, cliStyle(wantsColors(io.stdout, io.env))));
}

function writeDiffPage(html: string, runA: string, runB: string, output: string, io: CliIo): void {
  if (output === "-") {
    io.stdout.write(html);
    return;
  }
  const path = resolve(io.cwd, output);
  writeOutputFile(path, html, "--html", io.cwd);
  io.stdout.write(`Wrote ${shownPath(io.cwd, path)} (${kilobytes(Buffer.byteLength(html))}): the diff of runs ${shownRunId(runA)} and ${shownRunId(runB)}. Open it in a browser.\n`);
}

/** The text of `agentrx diff`. @internal */
export function formatRunDiff(diff: RunDiff, style: CliStyle): string {
  const out: string[] = [];
  const first = diff.firstDivergence;
  const mark = (text: string) => style.status("failed", text);
  out.push(`${style.bold("a")} ${runLine(diff.a)}`);
  out.push(`${style.bold("b")} ${runLine(diff.b)}`);
  if (diff.relation) out.push(style.dim(`${diff.relation.fork} is a fork of ${diff.relation.fork === "a" ? "b" : "a"} at iteration ${diff.relation.iteration}`));
  out.push(first ? mark(`First divergence: ${first.description}`) : "No divergence: same inputs, iterations and answer.");
  out.push("");
  out.push(...section("inputs", diff.inputs, (value) => json(value), first?.field === "inputs", style));
  for (const iteration of diff.iterations) {
    const divergent = first?.iteration === iteration.iteration && first.field !== "inputs" && first.field !== "answer";
    const title = `iteration ${iteration.iteration}${iteration.same ? style.dim(" (same)") : ""}`;
    out.push(divergent ? mark(`▶ ${title}`) : style.bold(title));
    const prompt = iteration.prompt;
    if (prompt.a !== undefined || prompt.b !== undefined) out.push(...pairLines("prompt", prompt, (value) => (value === undefined ? "not recorded" : `digest ${value}`), style));
    if (iteration.reply.a !== undefined || iteration.reply.b !== undefined) out.push(...pairLines("text", iteration.reply, (value) => oneLine(value ?? "-"), style));
    out.push(...pairLines("tools", iteration.toolCalls, toolCallsText, style));
    if (iteration.usage.a !== undefined || iteration.usage.b !== undefined) out.push(...pairLines("usage", iteration.usage, usageText, style, true));
  }
  out.push(...section("answer", diff.answer, (value) => oneLine(value ?? "(none)"), first?.field === "answer", style));
  out.push(...section("stop", diff.stopReason, (value) => value ?? "-", false, style));
  out.push(...section("usage", diff.usage, usageText, false, style, true));
  return `${out.join("\n")}\n`;
}

function runLine(run: RunDiff["a"]): string {
  const parts = [printable(run.runId), `${run.status}${run.stopReason ? ` (${run.stopReason})` : ""}`];
  if (run.usage) parts.push(usageText(run.usage));
  return parts.join(" · ");
}

function section<T>(title: string, value: DiffPair<T>, show: (value: T) => string, divergent: boolean, style: CliStyle, quiet = false): string[] {
  const heading = divergent ? style.status("failed", `▶ ${title}`) : style.bold(title);
  return [heading, ...pairLines("", value, show, style, quiet)];
}

/** `= value` when both sides agree, else an `a:` and a `b:` line (`quiet`: a difference is not highlighted). */
function pairLines<T>(label: string, value: DiffPair<T>, show: (value: T) => string, style: CliStyle, quiet = false): string[] {
  const name = label === "" ? "  " : `  ${label.padEnd(6)}`;
  if (value.same) return [`${name}${style.dim("=")} ${show(value.a)}`];
  const side = (letter: string, text: string) => `${name}${quiet ? letter : style.bold(letter)}: ${text}`;
  return [side("a", show(value.a)), side("b", show(value.b))];
}

function toolCallsText(calls: DiffToolCall[]): string {
  if (calls.length === 0) return "(none)";
  return calls.map((call) => `${call.tool} ${oneLine(json(call.input), 60)} → ${call.observation === undefined ? "(no result)" : oneLine(call.observation, 60)}`).join(" | ");
}

function usageText(usage: RunUsage | undefined): string {
  if (usage === undefined) return "-";
  return `${usage.total_tokens} tokens${usage.cost === undefined ? "" : ` · ${formatUsd(usage.cost.total)}`}`;
}

function json(value: unknown): string {
  return printable(JSON.stringify(value) ?? String(value));
}

function oneLine(text: string, max = 100): string {
  const line = text.replace(/\s+/g, " ").trim();
  return printable(line.length > max ? `${line.slice(0, max - 1)}…` : line);
}
