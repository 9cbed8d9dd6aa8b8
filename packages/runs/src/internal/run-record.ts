import { cutText } from "@agentrx/core";
import { RunStoreError, type JsonObject, type NewRun, type RunInfo, type RunWrite, type StoredRunEvent } from "@agentrx/executors";
import { capText, searchWordsOf, type RunSearchWords } from "./search-words";
import { isRunStatus, storableText, toJsonText } from "./validate-run-arguments";

/**
 * A run as a store's table holds it: JSON objects as JSON text, times as epoch milliseconds.
 * Every store keeps this shape, so every store decodes (and detects corruption) the same way.
 */
export interface RunRow {
  run_id: string;
  thread_id: string | null;
  status: string;
  stop_reason: string | null;
  inputs: string;
  usage: string | null;
  error: string | null;
  checkpoint: string | null;
  metadata: string | null;
  created_at: number;
  updated_at: number;
  event_count: number;
  owner: string | null;
  lease_expires_at: number | null;
  /**
   * The fencing token: 1 at creation, one more at every claim. 0 on rows written before fencing
   * existed (the migration's default): such a run shows no `epoch` until it is claimed.
   */
  epoch: number;
  /** The run this one was forked from (`forkOf.runId`), or null. */
  fork_of_run_id: string | null;
  /** The iteration of the fork (`forkOf.iteration`), or null. */
  fork_of_iteration: number | null;
  /** The run's input as text (see `inputTextOf`), capped; what search and the preview read. */
  input_text: string;
  /** The run's final answer, capped; empty until it has one. */
  answer_text: string;
  /** The run's cost in US dollars (`usage.cost.total`; 0 when no call was priced). */
  cost_usd: number;
}

/** An event as a store's table holds it. */
export interface EventRow {
  seq: number;
  type: string;
  at: number;
  data: string;
}

/** The columns of `agentrx_runs`, in table order. */
export const RUN_COLUMNS =
  "run_id, thread_id, status, stop_reason, inputs, usage, error, checkpoint, metadata, created_at, updated_at, event_count, owner, lease_expires_at, epoch, fork_of_run_id, fork_of_iteration, input_text, answer_text, cost_usd";

/** How many characters of them `inputPreview` and `answerPreview` show. */
export const PREVIEW_CHARS = 200;

/** A run's input as text: its `input` when that is a string, else its inputs as JSON; capped. */
export function inputTextOf(inputs: JsonObject): string {
  const input = inputs["input"];
  return capText(typeof input === "string" ? input : JSON.stringify(inputs));
}

/**
 * The search words of a run's input: those of its `input` when that is a string, else of the text
 * inside its inputs (see `searchTextOf`).
 */
export function inputWordsOf(inputs: JsonObject): string {
  const input = inputs["input"];
  return searchWordsOf(typeof input === "string" ? input : inputs);
}

/** The final answer among a write's events (its last `output` event, not a sub-run's), if any. */
function lastOutputOf(events: readonly StoredRunEvent[]): { output: unknown } | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type !== "output" || event.data["subRun"] !== undefined) continue;
    return { output: event.data["output"] };
  }
  return undefined;
}

/** The final answer among a write's events (its last `output` event's `output`) as text, if any. */
export function answerTextOf(events: readonly StoredRunEvent[]): string | undefined {
  const answer = lastOutputOf(events);
  if (answer === undefined) return undefined;
  return capText(typeof answer.output === "string" ? answer.output : JSON.stringify(answer.output ?? ""));
}

function preview(text: string): string {
  return text.length > PREVIEW_CHARS ? `${cutText(text, PREVIEW_CHARS - 1)}…` : text;
}

/** The row of a new run, with its search words. */
export function newRunRow(run: NewRun): RunRow & RunSearchWords {
  const running = run.status === "running";
  return {
    run_id: run.runId,
    thread_id: run.threadId ?? null,
    status: run.status,
    stop_reason: null,
    inputs: toJsonText("createRun", "run.inputs", run.inputs),
    usage: null,
    error: null,
    checkpoint: null,
    metadata: run.metadata === undefined ? null : toJsonText("createRun", "run.metadata", run.metadata),
    created_at: run.at,
    updated_at: run.at,
    event_count: 0,
    owner: running ? run.owner! : null,
    lease_expires_at: running ? run.at + run.leaseMs! : null,
    epoch: 1,
    fork_of_run_id: run.forkOf?.runId ?? null,
    fork_of_iteration: run.forkOf?.iteration ?? null,
    input_text: inputTextOf(run.inputs),
    answer_text: "",
    cost_usd: 0,
    input_words: inputWordsOf(run.inputs),
    answer_words: "",
  };
}

/** The column values a write sets, `null` where it leaves a column as it is. */
export interface WriteColumns {
  status: string | null;
  stop_reason: string | null;
  usage: string | null;
  error: string | null;
  checkpoint: string | null;
  release: boolean;
  lease_expires_at: number;
  updated_at: number;
  /** The new `event_count`, or null without events. */
  event_count: number | null;
  /** The run's answer, when the write records its output; else null. */
  answer_text: string | null;
  /** The search words of the run's answer (see `RunSearchWords`), when the write records its output; else null. */
  answer_words: string | null;
  /** The run's cost, when the write updates its usage; else null. */
  cost_usd: number | null;
}

export function writeColumns(write: RunWrite): WriteColumns {
  const { update, events } = write;
  const answer = lastOutputOf(events);
  return {
    status: update?.status ?? null,
    stop_reason: update?.stopReason ?? null,
    usage: update?.usage === undefined ? null : toJsonText("write", "write.update.usage", update.usage),
    error: update?.error === undefined ? null : storableText(update.error),
    checkpoint: update?.checkpoint === undefined ? null : toJsonText("write", "write.update.checkpoint", update.checkpoint),
    release: update?.release === true,
    lease_expires_at: write.at + write.leaseMs,
    updated_at: write.at,
    event_count: events.length === 0 ? null : events[events.length - 1]!.seq,
    answer_text: answerTextOf(events) ?? null,
    answer_words: answer === undefined ? null : searchWordsOf(answer.output),
    cost_usd: update?.usage === undefined ? null : costOf(update.usage),
  };
}

function costOf(usage: { cost?: { total?: unknown } }): number {
  const total = usage.cost?.total;
  return typeof total === "number" && Number.isFinite(total) && total > 0 ? total : 0;
}

/** The event rows of a write. */
export function eventRows(events: readonly StoredRunEvent[]): EventRow[] {
  return events.map((event, index) => ({
    seq: event.seq,
    type: event.type,
    at: event.at,
    data: toJsonText("write", `write.events[${index}].data`, event.data),
  }));
}

class CorruptField extends Error {}

function parse(column: keyof RunRow, text: string | null): unknown {
  if (text === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new CorruptField(`its ${column} is not valid JSON (${(cause as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new CorruptField(`its ${column} is not a JSON object`);
  }
  return value;
}

/** Whether `value` is a whole number from 0 up, as every time, count and epoch of a row is. */
function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The row's numeric columns a store reads back as they are (SQLite keeps any value in any column):
 * what each must be, and what it is called in the error.
 */
const NUMBER_COLUMNS: readonly { column: keyof RunRow; nullable: boolean; what: string; valid: (value: unknown) => boolean }[] = [
  { column: "created_at", nullable: false, what: "a time (whole epoch milliseconds)", valid: isCount },
  { column: "updated_at", nullable: false, what: "a time (whole epoch milliseconds)", valid: isCount },
  { column: "event_count", nullable: false, what: "a whole number from 0 up", valid: isCount },
  { column: "lease_expires_at", nullable: true, what: "a time (whole epoch milliseconds)", valid: isCount },
  { column: "epoch", nullable: false, what: "a whole number from 0 up", valid: isCount },
  { column: "fork_of_iteration", nullable: true, what: "a whole number from 0 up", valid: isCount },
  { column: "cost_usd", nullable: false, what: "a number from 0 up (US dollars)", valid: (value) => typeof value === "number" && Number.isFinite(value) && value >= 0 },
];

/** Rejects a row whose numeric column holds something else (`'yesterday'` in `created_at`). */
function checkNumbers(row: RunRow): void {
  for (const { column, nullable, what, valid } of NUMBER_COLUMNS) {
    const value: unknown = row[column];
    if (value === null && nullable) continue;
    if (!valid(value)) throw new CorruptField(`its ${column} ${shownValue(value)} is not ${what}`);
  }
}

function shownValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  return typeof value === "bigint" ? `${value}n` : String(value);
}

function decode(row: RunRow): RunInfo {
  if (!isRunStatus(row.status)) throw new CorruptField(`its status ${JSON.stringify(row.status)} is not a run status`);
  checkNumbers(row);
  const info: RunInfo = {
    runId: row.run_id,
    status: row.status,
    inputs: parse("inputs", row.inputs) as JsonObject,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    eventCount: row.event_count,
  };
  if (row.thread_id !== null) info.threadId = row.thread_id;
  if (row.stop_reason !== null) info.stopReason = row.stop_reason;
  if (row.usage !== null) info.usage = parse("usage", row.usage) as RunInfo["usage"];
  if (row.error !== null) info.error = row.error;
  if (row.checkpoint !== null) info.checkpoint = parse("checkpoint", row.checkpoint) as RunInfo["checkpoint"];
  if (row.metadata !== null) info.metadata = parse("metadata", row.metadata) as JsonObject;
  if (row.owner !== null) info.owner = row.owner;
  if (row.lease_expires_at !== null) info.leaseExpiresAt = row.lease_expires_at;
  addFencing(info, row);
  addPreviews(info, row);
  return info;
}

/** Sets `inputPreview` and `answerPreview` from the row's search text. */
function addPreviews(info: RunInfo, row: RunRow): void {
  if (row.input_text) info.inputPreview = preview(row.input_text);
  if (row.answer_text) info.answerPreview = preview(row.answer_text);
}

/**
 * Sets `epoch` (when the row has been fenced) and `forkOf` (when it is a fork) on `info`; a damaged
 * number (a corrupt row, listed) is left out.
 */
function addFencing(info: RunInfo, row: RunRow): void {
  if (isCount(row.epoch) && row.epoch > 0) info.epoch = row.epoch;
  if (row.fork_of_run_id !== null) info.forkOf = { runId: row.fork_of_run_id, iteration: isCount(row.fork_of_iteration) ? row.fork_of_iteration : 0 };
}

/** The run a row holds; rejects a corrupt row with a `RunStoreError` naming the run and the column. */
export function runInfoOf(row: RunRow, store: string, operation: string): RunInfo {
  try {
    return decode(row);
  } catch (error) {
    if (!(error instanceof CorruptField)) throw error;
    throw new RunStoreError({
      reason: "corrupt",
      operation,
      runId: row.run_id,
      message: `${store}: the record of run "${row.run_id}" is corrupt: ${error.message}. Delete the run (deleteRun) or repair the row.`,
    });
  }
}

/** The run a row holds for `listRuns`: a corrupt row becomes a run with `error` saying what cannot be read. */
export function listedRunInfoOf(row: RunRow): RunInfo {
  try {
    return decode(row);
  } catch (error) {
    if (!(error instanceof CorruptField)) throw error;
    // A damaged time shows the row's other one (else 0), so what lists runs still gets numbers.
    const createdAt = isCount(row.created_at) ? row.created_at : isCount(row.updated_at) ? row.updated_at : 0;
    const info: RunInfo = {
      runId: row.run_id,
      status: isRunStatus(row.status) ? row.status : "failed",
      inputs: {},
      error: `Corrupt record: ${error.message}.`,
      createdAt,
      updatedAt: isCount(row.updated_at) ? row.updated_at : createdAt,
      eventCount: isCount(row.event_count) ? row.event_count : 0,
    };
    if (row.thread_id !== null) info.threadId = row.thread_id;
    if (row.owner !== null) info.owner = row.owner;
    if (isCount(row.lease_expires_at)) info.leaseExpiresAt = row.lease_expires_at;
    addFencing(info, row);
    addPreviews(info, row);
    return info;
  }
}

/** The event a row holds; rejects a corrupt row with a `RunStoreError` naming the run and the seq. */
export function storedEventOf(runId: string, row: EventRow, store: string): StoredRunEvent {
  let data: unknown;
  try {
    data = JSON.parse(row.data);
  } catch (cause) {
    throw new RunStoreError({
      reason: "corrupt",
      operation: "readEvents",
      runId,
      message: `${store}: event ${row.seq} of run "${runId}" is corrupt: its data is not valid JSON (${(cause as Error).message}).`,
      cause,
    });
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new RunStoreError({
      reason: "corrupt",
      operation: "readEvents",
      runId,
      message: `${store}: event ${row.seq} of run "${runId}" is corrupt: its data is not a JSON object.`,
    });
  }
  return { seq: row.seq, type: row.type, at: row.at, data: data as JsonObject };
}
