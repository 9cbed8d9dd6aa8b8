import { resolve } from "node:path";
import { valueToText } from "@agentrx/core";
import type { RunStore, RunUsage } from "@agentrx/executors";
import { diffPageData, diffPageHtml } from "@agentrx/viewer/trace-page";
import { diffRuns, type DiffPair, type DiffToolCall, type RunDiff } from "../diff/diff-runs";
import type { CliIo } from "./cli-io";
import { CliError } from "./cli-error";
import { cliStyle, isUnmadeFork, usageCostText, wantsColors, type CliStyle } from "./format-runs-table";
import { shownRunId } from "./quote-value";
import { readComparableRecord } from "./read-comparable-record";
import { requireRun } from "./require-run";
import { kilobytes } from "./trace-command";
import { refuseStoreFile, shownPath, writeOutputFile } from "./write-output-file";
import { jsonText, printable } from "./printable";

/** What `agentrx diff` is asked for. */
export interface DiffCommandOptions {
  json: boolean;
  /** Write the diff page (one self-contained HTML file) here instead of printing text; `-` for stdout. */
  html?: string;
  /** How the store is named in messages. */
  label: string;
  /** The SQLite store's file, which `html` must not name. */
  storeFile?: string;
}

/**
 * `agentrx diff <runA> <runB>`: the two runs side by side (inputs, each iteration's prompt digest,
 * model text and tool calls with observations, answers, usage and cost), what is equal said once,
 * what differs as `a:` and `b:` lines, and the first divergence marked. `--json` prints the
 * `RunDiff` of `diffRuns`; `--html <file>` writes the diff page (what `agentrx ui` serves at
 * `/diff`) as one self-contained HTML file (never over the SQLite store it reads).
 *
 * A run whose record is damaged (an event that cannot be read or decoded) is not compared, in any
 * of these forms: the command fails (exit 1) with one line naming the run, its first damaged event
 * and why (see {@link readComparableRecord}); `agentrx show` shows the rest of such a run.
 *
 * @internal
 */
export async function diffCommand(store: RunStore, runA: string, runB: string, options: DiffCommandOptions, io: CliIo): Promise<void> {
  if (options.html !== undefined && options.html !== "-") refuseStoreFile(resolve(io.cwd, options.html), options.storeFile, "--html", io.cwd);
  const [infoA, infoB] = [await requireRun(store, runA, options.label), await requireRun(store, runB, options.label)];
  const [a, b] = [await readComparableRecord(store, infoA), await readComparableRecord(store, infoB)];
  if (options.html !== undefined) return writeDiffPage(diffPageHtml(diffPageData(a, b, { mode: "file", source: options.label })), runA, runB, options.html, io);
  const diff = diffRuns(a, b);
  if (options.json) {
    io.stdout.write(`${jsonText(diff)}\n`);
    return;
  }
  io.stdout.write(formatRunDiff(diff, cliStyle(wantsColors(io.stdout, io.env))));
}

function writeDiffPage(html: string, runA: string, runB: string, output: string, io: CliIo): void {
  if (output === "-") {
    io.stdout.write(html);
    return;
  }
  // `resolve` drops a trailing slash: "pages/" would name a file called "pages".
  if (/[\\/]$/.test(output)) throw new CliError({ message: `cannot write ${output}: it names a directory; give --html a file name (pages/diff.html)` });
  const path = resolve(io.cwd, output);
  writeOutputFile(path, html, "--html", io.cwd);
  io.stdout.write(`Wrote ${shownPath(io.cwd, path)} (${kilobytes(Buffer.byteLength(html))}): the diff of runs ${shownRunId(runA)} and ${shownRunId(runB)}. Open it in a browser.\n`);
}

/** How many characters of a value a line of `agentrx diff` shows. */
const LINE_MAX = 100;
/** How many characters of an iteration's tool calls their line shows. */
const TOOLS_MAX = 500;
/** How many characters of a tool call's input, and of its result, the tools line shows. */
const CALL_PART = 60;
/** How many characters before the first difference a cut value keeps, when that difference is past its start. */
const BEFORE_DIFFERENCE = 40;

/**
 * The text of `agentrx diff`. Each value is one line, cut after 100 characters (an iteration's tool
 * calls after 500, each call's input and result after 60) with its length, so that a run whose
 * input is megabytes long does not flood the terminal; when two values differ only past that, both
 * lines show the part where they start to differ. A last line says when something was cut:
 * `--json` and `--html` show every value whole.
 *
 * @internal
 */
export function formatRunDiff(diff: RunDiff, style: CliStyle): string {
  const out: string[] = [];
  const first = diff.firstDivergence;
  const mark = (text: string) => style.status("failed", text);
  const lines = new DiffLines(style);
  out.push(`${style.bold("a")} ${runLine(diff.a)}`);
  out.push(`${style.bold("b")} ${runLine(diff.b)}`);
  if (diff.relation) out.push(style.dim(`${diff.relation.fork} is a fork of ${diff.relation.fork === "a" ? "b" : "a"} at iteration ${diff.relation.iteration}`));
  // A fork without events: its copy of the source's record was never written, so nothing of it can be compared.
  for (const [letter, run] of [["a", diff.a], ["b", diff.b]] as const) {
    if (isUnmadeFork(run)) out.push(mark(`${letter} has no record: it is a fork of ${printable(run.forkOf?.runId ?? "")} whose copy was never written (agentrx show ${letter === "a" ? "<runA>" : "<runB>"} says why)`));
  }
  const going = [diff.a, diff.b].filter((run) => run.status === "running" || run.status === "queued").map((run) => (run === diff.a ? "a" : "b"));
  const sofar = going.length === 0 ? "" : ` so far (${going.length === 1 ? `run ${going[0]} has` : "runs a and b have"} not ended)`;
  out.push(first ? mark(`First divergence: ${first.description}`) : `No divergence${sofar}: same inputs, iterations and answer.`);
  out.push("");
  out.push(...lines.section("inputs", diff.inputs, json, first?.field === "inputs"));
  for (const iteration of diff.iterations) {
    const divergent = first?.iteration === iteration.iteration && first.field !== "inputs" && first.field !== "answer";
    const title = `iteration ${iteration.iteration}${iteration.same ? style.dim(" (same)") : ""}`;
    out.push(divergent ? mark(`▶ ${title}`) : style.bold(title));
    const prompt = iteration.prompt;
    if (iteration.promptIds !== undefined) out.push(`  ${"prompt".padEnd(7)}${style.dim("=")} ${promptIdsText(iteration.promptIds, prompt)}`);
    else if (prompt.a !== undefined || prompt.b !== undefined) {
      // One side without a prompt: both sides shown (an "=" line would show one run's digest as both's).
      const shown = prompt.a === undefined || prompt.b === undefined ? { ...prompt, same: false } : prompt;
      out.push(...lines.pair("prompt", shown, (value) => (value === undefined ? "not recorded" : `digest ${value}`)));
    }
    if (iteration.reply.a !== undefined || iteration.reply.b !== undefined) out.push(...lines.pair("text", iteration.reply, (value) => value ?? "-"));
    out.push(...lines.pair("tools", iteration.toolCalls, (calls) => toolCallsText(calls, lines), false, TOOLS_MAX));
    if (iteration.usage.a !== undefined || iteration.usage.b !== undefined) out.push(...lines.pair("usage", iteration.usage, usageText, true));
  }
  out.push(...lines.section("answer", diff.answer, (value) => value ?? "(none)", first?.field === "answer"));
  out.push(...lines.section("stop", diff.stopReason, (value) => value ?? "-", false));
  out.push(...lines.section("usage", diff.usage, usageText, false, true));
  if (lines.cut) out.push(style.dim("(long values are cut; agentrx diff --json or --html shows them whole)"));
  return `${out.join("\n")}\n`;
}

/** The prompt line of an iteration whose digests differ in tool-call ids only (see `IterationDiff.promptIds`). */
function promptIdsText(promptIds: "ignored" | "uncompared", prompt: DiffPair<string | undefined>): string {
  const digests = `digests ${prompt.a ?? "-"} and ${prompt.b ?? "-"}`;
  return promptIds === "ignored"
    ? `the same but for tool-call ids (${digests})`
    : `not compared: the ${digests} hash tool-call ids, which differ between the runs (recordPrompts compares the messages)`;
}

function runLine(run: RunDiff["a"]): string {
  const parts = [printable(run.runId), `${run.status}${run.stopReason ? ` (${printable(run.stopReason)})` : ""}`];
  if (run.usage) parts.push(usageText(run.usage));
  return parts.join(" · ");
}

/** The value lines of `agentrx diff`, each cut to {@link LINE_MAX} characters unless told otherwise; `cut` says whether one was. */
class DiffLines {
  cut = false;

  constructor(private readonly style: CliStyle) {}

  section<T>(title: string, value: DiffPair<T>, show: (value: T) => string, divergent: boolean, quiet = false): string[] {
    const heading = divergent ? this.style.status("failed", `▶ ${title}`) : this.style.bold(title);
    return [heading, ...this.pair("", value, show, quiet)];
  }

  /** `= value` when both sides agree, else an `a:` and a `b:` line (`quiet`: a difference is not highlighted). */
  pair<T>(label: string, value: DiffPair<T>, show: (value: T) => string, quiet = false, max = LINE_MAX): string[] {
    // Wide enough for the longest label ("prompt") and a space before its side.
  const name = label === "" ? "  " : `  ${label.padEnd(7)}`;
    if (value.same) return [`${name}${this.style.dim("=")} ${this.shown(flat(show(value.a)), 0, max)}`];
    const [a, b] = [flat(show(value.a)), flat(show(value.b))];
    // Where they start to differ, unless that is in the part a line shows anyway.
    const difference = firstDifference(a, b);
    const from = difference < max - BEFORE_DIFFERENCE ? 0 : difference - BEFORE_DIFFERENCE;
    const side = (letter: string, text: string) => `${name}${quiet ? letter : this.style.bold(letter)}: ${this.shown(text, from, max)}`;
    return [side("a", a), side("b", b)];
  }

  /** At most `max` characters of `text`, `…` ending it when it was cut. */
  clip(text: string, max: number): string {
    if (text.length <= max) return text;
    this.cut = true;
    return `${text.slice(0, max - 1)}…`;
  }

  /** `text` from `from`, at most `max` characters, `…` where it was cut (with its length), printable. */
  private shown(text: string, from: number, max: number): string {
    if (text.length <= max) return printable(text);
    this.cut = true;
    const head = from > 0 ? "…" : "";
    const room = max - head.length;
    const part = from + room >= text.length ? `${head}${text.slice(text.length - room)}` : `${head}${text.slice(from, from + room - 1)}…`;
    return `${printable(part)} (${text.length.toLocaleString("en-US")} characters)`;
  }
}

/** The index of the first character where `a` and `b` differ (the shorter's length when one starts the other). */
function firstDifference(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

function toolCallsText(calls: DiffToolCall[], lines: DiffLines): string {
  if (calls.length === 0) return "(none)";
  return calls.map((call) => `${call.tool} ${lines.clip(json(call.input), CALL_PART)} → ${call.observation === undefined ? "(no result)" : lines.clip(flat(call.observation), CALL_PART)}`).join(" | ");
}

/** `1100 tokens · $0.0035 + 1 unpriced`: the cost as `agentrx runs` writes it (docs/cost.md#calls-without-a-price). */
function usageText(usage: RunUsage | undefined): string {
  if (usage === undefined) return "-";
  const cost = usageCostText(usage);
  return `${usage.total_tokens} tokens${cost === undefined ? "" : ` · ${cost}`}`;
}

/** `value` as JSON (a string quoted), else its `String`; never throws (see `valueToText`). */
function json(value: unknown): string {
  return valueToText(value, { quoteStrings: true });
}

/** `text` on one line: each run of whitespace one space. */
function flat(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
