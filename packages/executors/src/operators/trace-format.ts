// Formatting helpers of renderTrace and printTrace (internal: the package does not export them).
import { formatUsd } from "../cost/cost";
import { cutText, escapeControlCharacters, observationText, valueToText } from "@agentrx/core";
import type { AgentStreamEvent, StopReason } from "../executor/events";
import { errorMessage } from "../executor/run-helpers";

/** Styles the trace uses; identity functions when colours are off. */
export interface TraceStyle {
  label(kind: "action" | "step" | "message" | "model" | "usage" | "answer" | "error", text: string): string;
  bold(text: string): string;
  dim(text: string): string;
  stopReason(reason: StopReason, text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const bold = sgr(1, 22);
const dim = sgr(2, 22);
const COLORS = {
  action: sgr(36, 39), // cyan
  step: sgr(32, 39), // green
  message: sgr(33, 39), // yellow
  model: sgr(90, 39), // grey
  usage: sgr(90, 39),
  answer: (text: string) => bold(sgr(35, 39)(text)), // bold magenta
  error: sgr(31, 39), // red
} as const;

export const ANSI_STYLE: TraceStyle = {
  label: (kind, text) => COLORS[kind](text),
  bold,
  dim,
  stopReason: (reason, text) => (reason === "finish" ? sgr(32, 39)(text) : sgr(33, 39)(text)),
};

export const PLAIN_STYLE: TraceStyle = {
  label: (_kind, text) => text,
  bold: (text) => text,
  dim: (text) => text,
  stopReason: (_reason, text) => text,
};

/** Width of the label column ("action  ", "step    ", ...). */
export const LABEL_WIDTH = 8;
export const INDENT = " ".repeat(LABEL_WIDTH);

/** The padded label of a line. */
export function label(style: TraceStyle, kind: Parameters<TraceStyle["label"]>[0]): string {
  return `${style.label(kind, kind)}${" ".repeat(LABEL_WIDTH - kind.length)}`;
}

const KEEP_LINE_BREAKS = { keepLineBreaks: true } as const;

/**
 * `text` with each control character (but tab and line feed) written as its `\u001b` escape:
 * a model's or a tool's text, or a run's input, may hold an escape sequence, which the terminal
 * showing the trace would act on (clear the screen, set the window's title, forge colours or
 * lines) instead of showing it.
 */
export function printable(text: string): string {
  return escapeControlCharacters(text, KEEP_LINE_BREAKS);
}

/**
 * A name the model chose (a tool's, a sub-run's): every control character escaped, tab and line
 * feed too (a name holds neither; a line feed would forge a trace line), cut to `maxLength`.
 */
export function printableName(name: string, maxLength: number): string {
  const text = printable(name).replace(/[\t\n]/g, (char) => (char === "\t" ? "\\t" : "\\n"));
  return text.length <= maxLength ? text : `${cutText(text, maxLength - 1)}…`;
}

/**
 * Text on one line: whitespace runs collapsed, control characters escaped (see {@link printable}),
 * cut to at most `maxLength` characters ending in an ellipsis, at a word boundary when one is near
 * the end.
 */
export function oneLine(text: string, maxLength: number): string {
  const flat = printable(text.replace(/\s+/g, " ").trim());
  if (flat.length <= maxLength) return flat;
  let cut = cutText(flat, maxLength - 1); // never half an emoji before the ellipsis
  // The last word that fits stays whole (also when it ends exactly at the cut); a long word is cut.
  const end = flat[cut.length] === " " ? cut.length : cut.lastIndexOf(" ");
  if (end > maxLength * 0.6) cut = cut.slice(0, end);
  return `${cut.trimEnd()}…`;
}

/** Continuation lines of a multi-line text, indented under the label column (blank lines stay empty), control characters escaped. */
export function indentLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line, index) => (index === 0 || line === "" ? printable(line) : `${INDENT}${printable(line)}`))
    .join("\n");
}

/** A tool input as text: strings as they are, anything else as JSON (see `valueToText`); never throws. */
export function formatInput(input: unknown): string {
  return valueToText(input);
}

/** `850 ms`, `1.2 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "? ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The line of an event other than `token` (tokens are written inline), or undefined. */
export function formatLine(
  event: Exclude<AgentStreamEvent, { type: "token" }>,
  style: TraceStyle,
  maxLength: number,
  showUsage: boolean,
): string | undefined {
  switch (event.type) {
    case "action": {
      const { tool, toolInput } = event.action;
      return `${label(style, "action")}${style.bold(printableName(tool, maxLength))} ${oneLine(formatInput(toolInput), maxLength)}\n`;
    }
    case "step": {
      const { action, observation } = event.step;
      const took = style.dim(`(${formatDuration(event.durationMs)})`);
      return `${label(style, "step")}${style.bold(printableName(action.tool, maxLength))} ${took} ${oneLine(formatInput(typeof observation === "string" ? observation : observationText(observation)), maxLength)}\n`;
    }
    case "message":
      // A message sent to the run (executor.send), joining it between turns.
      return `${label(style, "message")}${oneLine(event.message.text, maxLength)}${event.unanswered ? ` ${style.dim("(unanswered: the run was ending)")}` : ""}\n`;
    case "usage": {
      if (!showUsage) return undefined;
      const { input_tokens: input, output_tokens: output, total_tokens: total, input_token_details: inDetails, output_token_details: outDetails } = event.usage;
      const details = [
        inDetails?.cache_read !== undefined ? `${inDetails.cache_read} cached` : "",
        inDetails?.cache_creation !== undefined ? `${inDetails.cache_creation} cache write` : "",
        outDetails?.reasoning !== undefined ? `${outDetails.reasoning} reasoning` : "",
      ].filter(Boolean);
      const note = details.length > 0 ? ` (${details.join(", ")})` : "";
      // A call the executor's `prices` could not price says so, as the trace page's row does
      // (docs/cost.md#calls-without-a-price): no cost is not a cost of $0.
      const cost = event.usage.cost !== undefined ? ` · ${formatUsd(event.usage.cost.total)}` : (event.usage.unpricedCalls ?? 0) > 0 ? " · unpriced" : "";
      return `${label(style, "usage")}${style.dim(`${input} in + ${output} out = ${total} tokens${note}${cost}`)}\n`;
    }
    case "output": {
      const answer = event.output === "" ? "" : `${indentLines(event.output)} `;
      const reason = `(${event.stopReason}${budgetOf(event.stoppedBy)})`;
      return `${label(style, "answer")}${answer}${style.stopReason(event.stopReason, reason)}\n`;
    }
    default:
      return undefined;
  }
}

/** The `error` line of a run that failed or was cancelled. */
export function formatError(error: unknown, style: TraceStyle): string {
  const message = errorMessage(error);
  // Whole, never cut: an error's message ends with what to do about it. Its continuation lines are
  // indented under the label, as the answer's are.
  return `${label(style, "error")}${style.label("error", indentLines(message.trimEnd()))}\n`;
}

/** `: tool_calls` when a built-in budget (a `BudgetSpent`) stopped the run, else nothing. */
function budgetOf(stoppedBy: unknown): string {
  const budget = typeof stoppedBy === "object" && stoppedBy !== null ? (stoppedBy as { budget?: unknown }).budget : undefined;
  return typeof budget === "string" ? `: ${printableName(budget, 40)}` : "";
}
