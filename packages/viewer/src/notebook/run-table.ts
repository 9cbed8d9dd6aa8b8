import { type AgentAction, escapeControlCharacters, isAbortError, observationText, valueToText } from "@agentrx/core";
import type { UsageMetadata } from "@langchain/core/messages";
import { type AgentStreamEvent, type Interrupt, type RunTableStatus, type RunTableSummary, type StopReason, errorMessageOf } from "@agentrx/executors";
import { escapeHtml } from "../trace-page/page/page-shell";
import type { TraceImage } from "../trace-page/trace-data";
import { TraceImageCollector } from "../trace-page/trace-images";
import { cutText } from "../trace-page/cut-text";


/** One tool call in the table: its action, then (once it ran) its observation. */
interface ToolRow {
  iteration: number;
  /** The sub-run path and the tool, e.g. `researcher › search`. */
  tool: string;
  input: string;
  toolCallId?: string;
  observation?: string;
  durationMs?: number;
  /** How the call ended when its observation is no tool result (its step's metadata): it failed, or a person rejected it. */
  outcome?: "failed" | "rejected";
}

/** How many tool calls the HTML table shows, the latest (and those that wait); the trace has them all. */
const HTML_ROW_LIMIT = 100;

/** How many characters of a recorded text a cell shows; the trace has the whole text. */
const CELL_LIMIT = 400;

/**
 * How many characters of the answer the table shows (HTML and text, live and final): a notebook
 * keeps every output in its file, and the run's JSON has the whole answer. See docs/notebooks.md.
 */
export const ANSWER_LIMIT = 10_000;

/** How a run ended, as its record says, when its events end without saying it (a stored run that failed or was cancelled). */
export interface RecordedEnd {
  status: RunTableStatus;
  stopReason?: StopReason;
  /** Why it failed or was cancelled, as the record says. */
  error?: string;
  /** Its running time over every segment, as the record measures it (its checkpoint's `elapsedMs`). */
  elapsedMs?: number;
}

/**
 * The live table of a run, for a notebook: its tool calls (action, then observation and duration),
 * what it paused for, and its answer as it streams. Fed the run's events one at a time; `html()`
 * and `text()` draw it as it stands. Every recorded text is escaped: it is data, never markup.
 *
 * @internal
 */
export class RunTable {
  private readonly rows: ToolRow[] = [];
  private actions = 0;
  private steps = 0;
  private runId: string | undefined;
  private answer = "";
  private interrupts: Interrupt[] = [];
  private stopReason: StopReason | undefined;
  private usage: UsageMetadata | undefined;
  private error: string | undefined;
  private cancelled = false;
  private finished = false;
  private ended = false;
  /** The running time of the segments that ended (from a `start` of the run to its `output`). */
  private runningMs = 0;
  /** When the segment under way started (its `start`), and the last event of the run so far. */
  private segmentStart: number | undefined;
  private lastAt: number | undefined;
  /** The record's own measure of the running time, once the run ended by its record. */
  private recordedElapsedMs: number | undefined;
  /** How many segments of the run came (its top-level `start` events). */
  private segments = 0;

  /** Takes one event of the run (sub-run events add their tool calls, prefixed with their path). */
  add(event: AgentStreamEvent): void {
    const prefix = event.subRun === undefined ? "" : `${event.subRun.join(" › ")} › `;
    if (event.subRun === undefined && typeof event.at === "number") this.lastAt = event.at;
    switch (event.type) {
      case "start":
        if (event.subRun === undefined) {
          this.runId = event.runId;
          this.closeSegment(this.lastAt); // a segment without its output (its process died): up to its last event
          this.segmentStart = event.at;
          this.segments += 1;
          // A resumed run waits for nothing any more until it pauses again (a replay's earlier pause was decided).
          if (event.resumed) this.interrupts = [];
          this.finished = false;
        }
        break;
      case "action":
        this.actions += 1;
        this.rows.push(rowOf(event.action, event.iteration, prefix));
        break;
      case "step": {
        this.steps += 1;
        const row = this.rowFor(event.step.action, event.iteration, prefix);
        // Images show as placeholders (`[image 1: image/png, 12 KB]`), never as base64.
        row.observation = observationText(withoutImages(event.step.observation));
        row.durationMs = event.durationMs;
        if (event.metadata?.rejected === true) row.outcome = "rejected";
        else if (event.metadata?.failed === true || event.step.action.tool === "_Exception") row.outcome = "failed";
        break;
      }
      case "token":
        if (event.subRun === undefined) this.answer += event.text;
        break;
      case "interrupt":
        if (event.subRun === undefined) this.interrupts = event.interrupts;
        break;
      case "output":
        if (event.subRun !== undefined) break;
        this.runId = event.runId;
        this.answer = event.output;
        this.stopReason = event.stopReason;
        this.usage = event.usage;
        this.finished = true;
        if (event.stopReason !== "interrupted") this.interrupts = [];
        this.closeSegment(event.at);
        break;
      default:
        break;
    }
  }

  /**
   * The run failed: the table says so, with the error's message. An `AbortError` (its signal
   * aborted, e.g. from a later cell) is a cancellation, as the run store records it: the run shows
   * as cancelled, its calls in flight as cancelled.
   */
  fail(error: unknown): void {
    // A thrown value that is not an Error (an HTTP client's `{ message, status }`): its message, else its JSON.
    this.error = error instanceof Error ? `${error.name}: ${error.message}` : errorMessageOf(error);
    if (isAbortError(error)) this.cancelled = true;
    this.ended = true;
    this.closeSegment(Date.now());
  }

  /** The run was stopped before it ended (the display was torn down). */
  cancel(): void {
    this.cancelled = true;
    this.ended = true;
    this.closeSegment(Date.now());
  }

  /**
   * The run ended as its record says, its events having ended without saying so (a stored run
   * replayed: its record keeps a failure or a cancellation in the run's row, not in an event). Its
   * running time is the record's (as the trace page's header takes it), else up to its last event.
   */
  endAsRecorded(end: RecordedEnd): void {
    if (end.status === "running") return;
    this.closeSegment(this.lastAt);
    this.ended = true;
    if (end.elapsedMs !== undefined) this.recordedElapsedMs = end.elapsedMs;
    if (end.status === "cancelled") this.cancelled = true;
    if (end.status === "failed") this.error = end.error ?? "The run failed; its record gives no error.";
    else if (end.error !== undefined) this.error = end.error;
    if (end.status === "finished" || end.status === "interrupted") {
      this.finished = true;
      this.stopReason = end.stopReason ?? (end.status === "interrupted" ? "interrupted" : this.stopReason);
    }
  }

  /**
   * Times the run as its record does (its checkpoint's `elapsedMs`: every segment's running time,
   * measured by the executor), the time the trace page's header shows, once the run has ended.
   */
  useRecordedTime(elapsedMs: number): void {
    this.recordedElapsedMs = elapsedMs;
  }

  /** Whether the run's events said how it ended (an `output`, a failure, a cancellation). */
  get hasEnded(): boolean {
    return this.ended || this.finished;
  }

  /** Ends the segment under way at `at` (the time of its last event): its running time counts. */
  private closeSegment(at: number | undefined): void {
    if (this.segmentStart !== undefined && at !== undefined) this.runningMs += Math.max(0, at - this.segmentStart);
    this.segmentStart = undefined;
  }

  /** The run's id, once its `start` or `output` event came. */
  get id(): string | undefined {
    return this.runId;
  }

  /** Where the run stands. */
  get status(): RunTableStatus {
    if (this.cancelled) return "cancelled";
    if (this.error !== undefined) return "failed";
    if (this.finished) return this.stopReason === "interrupted" ? "interrupted" : "finished";
    return "running";
  }

  /** A plain summary for the JSON MIME type: counts, answer, stop reason, pauses, error. */
  summary(): RunTableSummary {
    const summary: RunTableSummary = {
      status: this.status,
      actions: this.calls(),
      steps: this.steps,
    };
    if (this.runId !== undefined) summary.runId = this.runId;
    if (this.stopReason !== undefined) summary.stopReason = this.stopReason;
    if (this.finished) summary.output = this.answer;
    if (this.interrupts.length > 0) summary.interrupts = this.interrupts.map(({ id, tool, toolInput }) => ({ id, tool, toolInput }));
    if (this.usage !== undefined) summary.usage = this.usage;
    if (this.error !== undefined) summary.error = this.error;
    return summary;
  }

  /** The table as HTML: a `div.agentrx-run` with its own styles (it lives inside a notebook page). */
  html(): string {
    const head = `<div class="agentrx-run-head"><b>${escapeHtml(this.headline())}</b>${this.runId === undefined ? "" : ` <code>${escapeHtml(this.runId)}</code>`}</div>`;
    const { waiting, unmatched } = this.pauses();
    // A long run shows its latest calls (and every call that waits): each update redraws the table.
    const shown = this.shownRows(waiting);
    const hidden = this.rows.length - shown.length;
    const body = shown.map((row) => {
      const pause = waiting.get(row);
      const state = pause !== undefined ? `${pauseLabel(pause)} (<code>${escapeHtml(pause.id)}</code>)` : row.observation === undefined ? this.openCall("running…") : "";
      const rowClass = pause !== undefined ? "agentrx-pause" : row.outcome === undefined ? undefined : `agentrx-${row.outcome}`;
      const observation = row.observation === undefined ? `<i>${state}</i>` : `${row.outcome === undefined ? "" : `<b class="agentrx-outcome" style="${INLINE.outcome}">${OUTCOME_LABELS[row.outcome]}</b>`}<pre style="${INLINE.pre}">${escapeHtml(cut(row.observation))}</pre>`;
      const tint = pause !== undefined ? PAUSE_TINT : row.outcome === "failed" ? FAILED_TINT : undefined;
      const tr = rowClass === undefined ? `<tr style="${INLINE.tr}">` : `<tr class="${rowClass}" style="${INLINE.tr}">`;
      return `${tr}${td(String(row.iteration + 1), tint)}${td(`<code>${escapeHtml(row.tool)}</code>`, tint)}${td(`<pre style="${INLINE.pre}">${escapeHtml(cut(row.input))}</pre>`, tint)}${td(observation, tint)}${td(timeCell(row), tint)}</tr>`;
    });
    if (hidden > 0) body.unshift(`<tr class="agentrx-hidden" style="${INLINE.tr}"><td colspan="5" style="${INLINE.cell}"><i>… ${hidden} earlier tool call${hidden === 1 ? "" : "s"}, not shown here: the run's trace has every one</i></td></tr>`);
    for (const pause of unmatched) {
      body.push(
        `<tr class="agentrx-pause" style="${INLINE.tr}">${td(String(pause.iteration + 1), PAUSE_TINT)}${td(`<code>${escapeHtml(pause.tool)}</code>`, PAUSE_TINT)}${td(`<pre style="${INLINE.pre}">${escapeHtml(cut(textOf(withoutImages(pause.toolInput))))}</pre>`, PAUSE_TINT)}${td(`<i>${pauseLabel(pause)} (<code>${escapeHtml(pause.id)}</code>)</i>`, PAUSE_TINT)}${td("", PAUSE_TINT)}</tr>`,
      );
    }
    const th = (label: string, title?: string) => `<th${title === undefined ? "" : ` title="${title}"`} style="${INLINE.cell}">${label}</th>`;
    const table =
      body.length === 0
        ? '<p class="agentrx-empty">No tool calls yet.</p>'
        : `<div class="agentrx-rows" style="${INLINE.rows}"><table style="${INLINE.table}"><thead><tr style="${INLINE.tr}">${th("#", "the agent call (iteration) that asked for it, from 1")}${th("tool")}${th("input")}${th("observation")}${th("time")}</tr></thead><tbody>${body.join("")}</tbody></table></div>`;
    const answer = this.error !== undefined ? `<div class="agentrx-error" style="${INLINE.error}">${escapeHtml(this.error)}</div>` : this.answer === "" ? "" : `<div class="agentrx-answer" style="margin-top:4px"><b>Answer</b><pre style="${INLINE.pre}">${escapeHtml(this.shownAnswer())}</pre></div>`;
    return `<div class="agentrx-run" data-status="${this.status}" style="${INLINE.root}"><style>${TABLE_STYLES}</style>${head}${table}${answer}</div>`;
  }

  /**
   * The table as text (what a front end without HTML shows, a terminal's among them): the rows the
   * HTML table shows (the latest {@link HTML_ROW_LIMIT} and those that wait), and control characters
   * written as escapes, which a terminal would act on.
   */
  text(): string {
    const lines = [this.headline() + (this.runId === undefined ? "" : ` ${this.runId}`)];
    const { waiting, unmatched } = this.pauses();
    const shown = this.shownRows(waiting);
    const hidden = this.rows.length - shown.length;
    if (hidden > 0) lines.push(`  … ${hidden} earlier tool call${hidden === 1 ? "" : "s"}, not shown here: the run's trace has every one`);
    for (const row of shown) {
      const pause = waiting.get(row);
      const result = pause !== undefined ? `${pauseLabel(pause)} (${pause.id})` : row.observation === undefined ? `(${this.openCall("running")})` : `${row.outcome === undefined ? "" : `${row.outcome} `}-> ${oneLine(row.observation)}`;
      lines.push(`  [${row.iteration + 1}] ${oneLine(row.tool)}(${oneLine(row.input)}) ${result}`);
    }
    for (const pause of unmatched) lines.push(`  [${pause.iteration + 1}] ${oneLine(pause.tool)}(${oneLine(textOf(withoutImages(pause.toolInput)))}) ${pauseLabel(pause)} (${pause.id})`);
    if (this.error !== undefined) lines.push(`  ${this.error}`);
    else if (this.answer !== "") lines.push(`  Answer: ${this.shownAnswer()}`);
    return printable(lines.join("\n"));
  }

  /**
   * The answer as the table shows it: its first {@link ANSWER_LIMIT} characters, then its length
   * (the run's JSON has it whole; the final one does, a streaming one not yet).
   */
  private shownAnswer(): string {
    if (this.answer.length <= ANSWER_LIMIT) return this.answer;
    const where = this.finished ? "the run's JSON has the whole answer" : "so far";
    return `${cutText(this.answer, ANSWER_LIMIT)}… (${this.answer.length.toLocaleString("en-US")} characters: ${where})`;
  }

  /**
   * The run's tool calls: those it asked for (a resumed run's, those it resumed with), and the calls
   * it waits for whose action came in an earlier segment (a resume that decided none of them).
   */
  private calls(): number {
    return this.actions + this.pauses().unmatched.length;
  }

  /** The rows a table shows: the latest {@link HTML_ROW_LIMIT}, and those that wait for a person. */
  private shownRows(waiting: ReadonlyMap<ToolRow, unknown>): ToolRow[] {
    return this.rows.filter((row, index) => index >= this.rows.length - HTML_ROW_LIMIT || waiting.has(row));
  }

  /** What a call without a result is: still running, cancelled with its run, or never run (its run failed first). */
  private openCall(running: string): string {
    const status = this.status;
    return status === "running" ? running : status === "cancelled" ? "cancelled" : "not run";
  }

  /** Which rows wait for approval, and the pauses no row shows (a resumed run's, whose actions came earlier). */
  private pauses(): { waiting: Map<ToolRow, Interrupt>; unmatched: Interrupt[] } {
    const waiting = new Map<ToolRow, Interrupt>();
    const unmatched: Interrupt[] = [];
    for (const pause of this.interrupts) {
      // A call that got its result is not waiting (a pause decided in a later segment).
      if (pause.toolCallId !== undefined && this.rows.some((row) => row.toolCallId === pause.toolCallId && row.observation !== undefined)) continue;
      const row = this.rows.find(
        (candidate) =>
          candidate.observation === undefined &&
          !waiting.has(candidate) &&
          candidate.tool === pause.tool &&
          candidate.iteration === pause.iteration &&
          (pause.toolCallId === undefined || candidate.toolCallId === undefined || candidate.toolCallId === pause.toolCallId),
      );
      if (row === undefined) unmatched.push(pause);
      else waiting.set(row, pause);
    }
    return { waiting, unmatched };
  }

  private headline(): string {
    // Running time over the run's segments (a resumed run's pause is not in it), as the trace page's header counts it.
    const elapsedMs = this.recordedElapsedMs ?? this.runningMs;
    const elapsed = this.status === "running" || (this.segments === 0 && this.recordedElapsedMs === undefined) ? "" : `, ${Math.round(elapsedMs)} ms`;
    const tokens = this.usage?.total_tokens === undefined ? "" : `, ${this.usage.total_tokens} tokens`;
    const count = this.calls();
    const calls = `${count} tool call${count === 1 ? "" : "s"}`;
    switch (this.status) {
      case "running":
        return `Run running: ${calls}`;
      case "failed":
        return `Run failed: ${calls}${elapsed}`;
      case "cancelled":
        return `Run cancelled: ${calls}${elapsed}`;
      case "interrupted":
        return this.interrupts.some((pause) => pause.reason === "in_doubt") ? `Run paused for a decision: ${calls}${elapsed}` : `Run paused for approval: ${calls}${elapsed}`;
      default:
        return `Run finished (${this.stopReason}): ${calls}${elapsed}${tokens}`;
    }
  }

  /** The row of `action`: the one with its tool call id, else the first open one of its tool. */
  private rowFor(action: AgentAction, iteration: number, prefix: string): ToolRow {
    const callId = toolCallIdOf(action);
    const tool = `${prefix}${action.tool}`;
    const row =
      (callId === undefined ? undefined : this.rows.find((candidate) => candidate.toolCallId === callId && candidate.tool === tool)) ??
      this.rows.find((candidate) => candidate.observation === undefined && candidate.tool === tool && candidate.iteration === iteration);
    if (row !== undefined) return row;
    const added = rowOf(action, iteration, prefix); // a step without its action (a resumed run's)
    this.rows.push(added);
    this.actions += 1; // a tool call all the same: the summary counts it next to its result
    return added;
  }
}

function rowOf(action: AgentAction, iteration: number, prefix: string): ToolRow {
  const row: ToolRow = { iteration, tool: `${prefix}${action.tool}`, input: textOf(withoutImages(action.toolInput)) };
  const callId = toolCallIdOf(action);
  if (callId !== undefined) row.toolCallId = callId;
  return row;
}

/** What a paused call waits for: a person's approval, or a decision on a call in doubt (started before a crash, no recorded result: it may have run). */
function pauseLabel(pause: Interrupt): string {
  return pause.reason === "in_doubt" ? "in doubt, may have run: awaiting a decision" : "awaiting approval";
}

function toolCallIdOf(action: AgentAction): string | undefined {
  const id = (action as { toolCallId?: unknown }).toolCallId;
  return typeof id === "string" ? id : undefined;
}

/** What the table's cells say of a call that is no tool result (see `ToolRow.outcome`). */
const OUTCOME_LABELS = { failed: "failed: the error the agent was shown", rejected: "rejected: the rejection the agent was shown" } as const;

/** `value` with each image block replaced by a placeholder text block, as the trace page shows it (no base64 in a cell). */
function withoutImages(value: unknown): unknown {
  const images: TraceImage[] = [];
  const stripped = new TraceImageCollector(0).strip(value, images);
  return images.length > 0 ? stripped : value;
}

function textOf(value: unknown): string {
  return valueToText(value);
}

function cut(text: string): string {
  return text.length <= CELL_LIMIT ? text : `${cutText(text, CELL_LIMIT)}… (${text.length} characters)`;
}

const KEEP_LINE_BREAKS = { keepLineBreaks: true } as const;

/** `text` with each control character written as its `\u001b` escape: a terminal would act on it (clear the screen, forge lines). */
function printable(text: string): string {
  return escapeControlCharacters(text, KEEP_LINE_BREAKS);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= 120 ? flat : `${cutText(flat, 120)}…`;
}

/** How long a call took, as its row says: a call a person rejected never ran (the trace page says so too). */
function timeCell(row: ToolRow): string {
  if (row.outcome === "rejected") return "not run";
  return row.durationMs === undefined ? "" : `${Math.round(row.durationMs)} ms`;
}

/** The tints of a row that waits for a person, and of a call that failed (translucent: readable on light and dark themes). */
const PAUSE_TINT = "rgba(255,191,0,.18)";
const FAILED_TINT = "rgba(198,40,40,.1)";

/** A cell, with its row's tint inline: a notebook opened untrusted drops the `<style>` element. */
function td(content: string, tint: string | undefined): string {
  return `<td style="${INLINE.cell}${tint === undefined ? "" : `;background:${tint}`}">${content}</td>`;
}

/**
 * The table's essential layout as inline styles: a notebook opened untrusted (shared with its
 * outputs) strips the `<style>` element but keeps these, so the table stays readable. The rows box
 * is bounded: a run of many calls with long results scrolls in its box rather than making the
 * output thousands of pixels tall.
 */
const INLINE = {
  root: "font:13px/1.4 system-ui,sans-serif;max-width:100%;text-align:left",
  rows: "max-height:480px;overflow:auto",
  table: "border-collapse:collapse;margin:4px 0;width:100%",
  tr: "background:transparent",
  cell: "border:0;border-bottom:1px solid rgba(127,127,127,.3);padding:3px 6px;text-align:left;vertical-align:top",
  pre: "margin:0;padding:0;background:transparent;white-space:pre-wrap;word-break:break-word;font:12px/1.35 ui-monospace,monospace;text-align:left",
  outcome: "display:block;font-size:11px;font-weight:600",
  error: "margin-top:4px;color:#d32f2f;font-weight:600",
} as const;

// Front ends style tables of their own: classic Notebook stripes rows with
// `.rendered_html tbody tr:nth-child(odd)` (specificity 0,2,2) and JupyterLab with
// `.jp-RenderedHTMLCommon tbody tr:nth-child(odd)` and a hover colour; both right-align cells.
// Specificity alone loses to some of them, so row and cell backgrounds, colours and alignment are
// marked important: a row's tint is the same on every row. The table takes the notebook's text
// colour; the red of a failure is lighter in a dark colour scheme.
const TABLE_STYLES = [
  "div.agentrx-run{font:13px/1.4 system-ui,sans-serif;max-width:100%;text-align:left}",
  "div.agentrx-run div.agentrx-rows{max-height:480px;overflow:auto}",
  "div.agentrx-run table{border-collapse:collapse;margin:4px 0;width:100%;table-layout:auto}",
  "div.agentrx-run table tbody tr,div.agentrx-run table tbody tr:nth-child(odd),div.agentrx-run table tbody tr:nth-child(even),div.agentrx-run table tbody tr:hover,div.agentrx-run table thead tr{background:transparent!important}",
  "div.agentrx-run table th,div.agentrx-run table td{border:0;border-bottom:1px solid rgba(127,127,127,.3);padding:3px 6px;text-align:left!important;vertical-align:top;background:transparent}",
  "div.agentrx-run pre{margin:0;padding:0;background:transparent!important;white-space:pre-wrap;word-break:break-word;font:12px/1.35 ui-monospace,monospace;text-align:left}",
  `div.agentrx-run table tr.agentrx-pause td{background:${PAUSE_TINT}!important}`,
  `div.agentrx-run table tr.agentrx-failed td{background:${FAILED_TINT}!important}`,
  "div.agentrx-run .agentrx-outcome{display:block;font-size:11px;font-weight:600}",
  "div.agentrx-run table tr.agentrx-failed .agentrx-outcome,div.agentrx-run .agentrx-error{color:#d32f2f!important}",
  "@media (prefers-color-scheme:dark){div.agentrx-run table tr.agentrx-failed .agentrx-outcome,div.agentrx-run .agentrx-error{color:#ef9a9a!important}}",
  "div.agentrx-run .agentrx-answer{margin-top:4px}",
  "div.agentrx-run .agentrx-error{margin-top:4px;font-weight:600}",
  "div.agentrx-run[data-status=running] .agentrx-run-head b::after{content:' ⏳'}",
].join("");
