import { RUN_SORTS, decodeCursor, searchTerms, type RunCursor, type RunSort } from "./run-list-query";
import { checkOptionKeys, InvalidArgumentError } from "@agentrx/core";
import { type CancelRun, type ClaimRun, type ListRunsOptions, type NewRun, type RunStatus, type RunUpdate, type RunWrite, runInboxId } from "@agentrx/executors";

/** Every status a run can have. */
export const RUN_STATUSES: readonly RunStatus[] = ["queued", "running", "interrupted", "finished", "failed", "cancelled"];

const STATUS_SET: ReadonlySet<string> = new Set(RUN_STATUSES);
// NUL, or a UTF-16 surrogate without its partner.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_GLOBAL = new RegExp(UNSTORABLE.source, "g");

export function invalid(operation: string, argument: string, value: unknown, expected: string): InvalidArgumentError {
  const shown = typeof value === "string" ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value) : Array.isArray(value) ? jsonOrString(value) : String(value);
  return new InvalidArgumentError({ argument, value, message: `RunStore.${operation}: ${argument} must be ${expected}, got ${shown}.` });
}

/** An array as JSON (`[]`, `["done"]`), which `String` would show as nothing or bare words. */
function jsonOrString(value: unknown[]): string {
  try {
    const json = JSON.stringify(value);
    return json.length > 80 ? `${json.slice(0, 80)}...` : json;
  } catch {
    return String(value);
  }
}

/**
 * The most UTF-8 bytes of a key: PostgreSQL cannot index a value of more than about 2,700 bytes
 * (its B-tree pages hold three entries at least), and every store takes the same keys (docs/runs.md).
 */
export const MAX_KEY_BYTES = 1024;

/**
 * A string used as a key or label (`runId`, `threadId`, `owner`, an event `type`): non-empty, no
 * NUL, no lone surrogate, at most {@link MAX_KEY_BYTES} bytes of UTF-8.
 */
export function checkKey(operation: string, argument: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || UNSTORABLE.test(value) || utf8Length(value) > MAX_KEY_BYTES) {
    throw invalid(operation, argument, value, `a non-empty string of at most ${MAX_KEY_BYTES} bytes (UTF-8) without NUL characters or lone surrogates`);
  }
  return value;
}

/** What a run's inbox thread id starts with (`runInboxId("")`). */
const INBOX_PREFIX = runInboxId("");

/**
 * A thread id: a key (see {@link checkKey}), or a run's inbox (`runInboxId(runId)`), whose run id
 * part is checked as a key, so a run with the longest id a store takes can be sent messages.
 */
export function checkThreadKey(operation: string, argument: string, value: unknown): string {
  if (typeof value === "string" && value.startsWith(INBOX_PREFIX) && value.length > INBOX_PREFIX.length) {
    const runId = value.slice(INBOX_PREFIX.length);
    if (runId.length > 0 && !UNSTORABLE.test(runId) && utf8Length(runId) <= MAX_KEY_BYTES) return value;
    throw invalid(operation, argument, value, `a run's inbox (\`runInboxId(runId)\`) of a run id of at most ${MAX_KEY_BYTES} bytes (UTF-8) without NUL characters or lone surrogates`);
  }
  return checkKey(operation, argument, value);
}

/** The UTF-8 length of `text` (without lone surrogates), counted only past the length that always fits. */
function utf8Length(text: string): number {
  // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4).
  if (text.length * 3 <= MAX_KEY_BYTES) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code <= 0xdbff ? (i++, 4) : 3;
  }
  return bytes;
}

/** A time, epoch milliseconds: a safe integer >= 0. */
export function checkTime(operation: string, argument: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(operation, argument, value, "an integer >= 0 (epoch milliseconds)");
  }
  return value;
}

/**
 * A time filter given as epoch milliseconds or a `Date`, rounded up to a whole millisecond (stored
 * times are whole milliseconds, so `>= t` and `< t` select the same runs either way).
 */
export function checkTimeFilter(operation: string, argument: string, value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== "number" || !Number.isFinite(ms) || Math.abs(ms) > Number.MAX_SAFE_INTEGER) {
    throw invalid(operation, argument, value, "a valid Date or epoch milliseconds");
  }
  return Math.ceil(ms);
}

export function checkPositiveInteger(operation: string, argument: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw invalid(operation, argument, value, "an integer >= 1");
  }
  return value;
}

export function checkObject(operation: string, argument: string, value: unknown): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalid(operation, argument, value, "a plain object");
  }
}

/** `value` as JSON text; rejects what JSON cannot hold (a `BigInt`, a cycle). */
export function toJsonText(operation: string, argument: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (cause) {
    throw new InvalidArgumentError({
      argument,
      value,
      message: `RunStore.${operation}: ${argument} must be JSON-serializable (${(cause as Error).message}).`,
      cause,
    });
  }
}

/**
 * An error message as every store keeps it: NUL characters and lone surrogates become U+FFFD,
 * because neither PostgreSQL `text` nor UTF-8 can hold them.
 */
export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_GLOBAL, "\ufffd") : text;
}

/**
 * The keys of a new run, a write, its update and `readEvents`' options (see `NewRun`, `RunWrite`,
 * `RunUpdate`): any other is refused, not ignored (`{ update: { stauts: "finished" } }` would leave
 * the run running, `{ thread: "t" }` record it without its thread).
 */
const NEW_RUN_KEYS: readonly (keyof NewRun)[] = ["runId", "threadId", "inputs", "status", "owner", "leaseMs", "metadata", "forkOf", "at"];
const WRITE_KEYS: readonly (keyof RunWrite)[] = ["owner", "leaseMs", "epoch", "events", "update", "at"];
const UPDATE_KEYS: readonly (keyof RunUpdate)[] = ["status", "stopReason", "usage", "error", "checkpoint", "release", "closeInbox"];
const READ_OPTION_KEYS: readonly string[] = ["after", "limit"];

export function checkNewRun(run: NewRun): void {
  if (run === null || typeof run !== "object") throw invalid("createRun", "run", run, "an object");
  checkOptionKeys("RunStore.createRun", run, NEW_RUN_KEYS, "run.");
  checkKey("createRun", "run.runId", run.runId);
  if (run.threadId !== undefined) checkKey("createRun", "run.threadId", run.threadId);
  checkObject("createRun", "run.inputs", run.inputs);
  if (run.metadata !== undefined) checkObject("createRun", "run.metadata", run.metadata);
  checkTime("createRun", "run.at", run.at);
  if (run.forkOf !== undefined) {
    checkObject("createRun", "run.forkOf", run.forkOf);
    checkKey("createRun", "run.forkOf.runId", run.forkOf.runId);
    if (typeof run.forkOf.iteration !== "number" || !Number.isSafeInteger(run.forkOf.iteration) || run.forkOf.iteration < 0) {
      throw invalid("createRun", "run.forkOf.iteration", run.forkOf.iteration, "an integer >= 0");
    }
  }
  if (run.status === "running") {
    checkKey("createRun", "run.owner", run.owner);
    checkPositiveInteger("createRun", "run.leaseMs", run.leaseMs);
  } else if (run.status === "queued") {
    if (run.owner !== undefined) throw invalid("createRun", "run.owner", run.owner, 'absent for a "queued" run (only a "running" run has an owner)');
    if (run.leaseMs !== undefined) throw invalid("createRun", "run.leaseMs", run.leaseMs, 'absent for a "queued" run');
  } else {
    throw invalid("createRun", "run.status", run.status, '"running" or "queued"');
  }
}

export function checkClaim(runId: string, claim: ClaimRun): void {
  checkKey("claimRun", "runId", runId);
  if (claim === null || typeof claim !== "object") throw invalid("claimRun", "claim", claim, "an object");
  checkKey("claimRun", "claim.owner", claim.owner);
  checkPositiveInteger("claimRun", "claim.leaseMs", claim.leaseMs);
  checkTime("claimRun", "claim.at", claim.at);
}

/** Checks a `cancelRun`'s arguments. */
export function checkCancel(runId: string, cancel: CancelRun): void {
  checkKey("cancelRun", "runId", runId);
  if (cancel === null || typeof cancel !== "object") throw invalid("cancelRun", "cancel", cancel, "an object");
  if (typeof cancel.reason !== "string" || cancel.reason === "") throw invalid("cancelRun", "cancel.reason", cancel.reason, "a non-empty string");
  checkTime("cancelRun", "cancel.at", cancel.at);
}

/** Checks a write; resolves with the seq the run must have reached before it (undefined without events). */
export function checkWrite(runId: string, write: RunWrite): number | undefined {
  checkKey("write", "runId", runId);
  if (write === null || typeof write !== "object") throw invalid("write", "write", write, "an object");
  checkOptionKeys("RunStore.write", write, WRITE_KEYS, "write.");
  checkKey("write", "write.owner", write.owner);
  checkPositiveInteger("write", "write.leaseMs", write.leaseMs);
  checkTime("write", "write.at", write.at);
  if (write.epoch !== undefined) checkPositiveInteger("write", "write.epoch", write.epoch);
  const { events, update } = write;
  if (!Array.isArray(events)) throw invalid("write", "write.events", events, "an array");
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    const name = `write.events[${index}]`;
    if (event === null || typeof event !== "object") throw invalid("write", name, event, "an event object");
    checkPositiveInteger("write", `${name}.seq`, event.seq);
    if (index > 0 && event.seq !== events[index - 1]!.seq + 1) {
      throw invalid("write", `${name}.seq`, event.seq, `${events[index - 1]!.seq + 1} (seq is consecutive within a write)`);
    }
    checkKey("write", `${name}.type`, event.type);
    checkTime("write", `${name}.at`, event.at);
    checkObject("write", `${name}.data`, event.data);
  }
  if (update !== undefined) {
    checkObject("write", "write.update", update);
    checkOptionKeys("RunStore.write", update, UPDATE_KEYS, "write.update.");
    if (update.status !== undefined) checkStatus("write", "write.update.status", update.status);
    if (update.stopReason !== undefined) checkKey("write", "write.update.stopReason", update.stopReason);
    if (update.error !== undefined && typeof update.error !== "string") throw invalid("write", "write.update.error", update.error, "a string");
    if (update.usage !== undefined) checkObject("write", "write.update.usage", update.usage);
    if (update.checkpoint !== undefined) checkObject("write", "write.update.checkpoint", update.checkpoint);
    if (update.release !== undefined && typeof update.release !== "boolean") throw invalid("write", "write.update.release", update.release, "a boolean");
    if (update.closeInbox !== undefined && (!Number.isSafeInteger(update.closeInbox) || update.closeInbox < 0)) {
      throw invalid("write", "write.update.closeInbox", update.closeInbox, "an integer >= 0 (the last inbox position the run took)");
    }
    if (update.release && update.status === "running") {
      throw invalid("write", "write.update.status", update.status, 'a status other than "running" when the write releases the lease');
    }
  }
  return events.length === 0 ? undefined : events[0]!.seq - 1;
}

export function checkStatus(operation: string, argument: string, value: unknown): RunStatus {
  if (typeof value !== "string" || !STATUS_SET.has(value)) throw invalid(operation, argument, value, `one of ${RUN_STATUSES.map((s) => `"${s}"`).join(", ")}`);
  return value as RunStatus;
}

/** Whether `value` is a status a store can hold. */
export function isRunStatus(value: unknown): value is RunStatus {
  return typeof value === "string" && STATUS_SET.has(value);
}

/** The filters of `listRuns`, checked and normalized. */
export interface RunFilter {
  threadId?: string;
  statuses?: RunStatus[];
  since?: number;
  before?: number;
  limit: number;
  /** The search's words, lowercased (each must start a word of the run's text). */
  terms?: string[];
  hasError?: boolean;
  minCost?: number;
  maxCost?: number;
  sort: RunSort;
  order: "asc" | "desc";
  /** Where the page starts: after this sort key and run id. */
  after?: RunCursor;
}

/**
 * The most different words a search may have: each is one more condition for the database (SQLite
 * takes seconds over 10,000, PostgreSQL runs out of stack near 100,000).
 */
export const MAX_SEARCH_WORDS = 1000;

/** The options `listRuns` takes (see `ListRunsOptions`): any other key is refused, not ignored. */
const LIST_OPTION_KEYS: readonly (keyof ListRunsOptions)[] = ["threadId", "status", "since", "before", "limit", "search", "hasError", "minCost", "maxCost", "sort", "order", "cursor"];

export function checkListOptions(options: ListRunsOptions | undefined): RunFilter {
  if (options === undefined) return { limit: 100, sort: "createdAt", order: "desc" };
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw invalid("listRuns", "options", options, "an object");
  // A misspelt filter (`serch`) would list every run.
  checkOptionKeys("RunStore.listRuns", options, LIST_OPTION_KEYS, "options.");
  const { sort = "createdAt", order = "desc" } = options;
  if (!RUN_SORTS.includes(sort)) throw invalid("listRuns", "options.sort", sort, `one of ${RUN_SORTS.map((name) => `"${name}"`).join(", ")}`);
  if (order !== "asc" && order !== "desc") throw invalid("listRuns", "options.order", order, '"asc" or "desc"');
  const filter: RunFilter = { limit: options.limit === undefined ? 100 : checkPositiveInteger("listRuns", "options.limit", options.limit), sort, order };
  if (options.search !== undefined) {
    if (typeof options.search !== "string") throw invalid("listRuns", "options.search", options.search, "a string");
    const terms = [...new Set(searchTerms(options.search))];
    if (terms.length > MAX_SEARCH_WORDS) {
      throw new InvalidArgumentError({
        argument: "options.search",
        value: options.search,
        message: `RunStore.listRuns: options.search has ${terms.length} different words; give at most ${MAX_SEARCH_WORDS} (every one must be found, so a few distinctive words find the same runs).`,
      });
    }
    if (terms.length > 0) filter.terms = terms;
  }
  if (options.hasError !== undefined) {
    if (typeof options.hasError !== "boolean") throw invalid("listRuns", "options.hasError", options.hasError, "a boolean");
    filter.hasError = options.hasError;
  }
  for (const key of ["minCost", "maxCost"] as const) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw invalid("listRuns", `options.${key}`, value, "a number >= 0 (US dollars)");
    filter[key] = value;
  }
  if (options.cursor !== undefined) filter.after = decodeCursor(options.cursor, sort, order);
  if (options.threadId !== undefined) filter.threadId = checkKey("listRuns", "options.threadId", options.threadId);
  if (options.status !== undefined) {
    const list = typeof options.status === "string" ? [options.status] : options.status;
    if (!Array.isArray(list) || list.length === 0) throw invalid("listRuns", "options.status", options.status, "a status or a non-empty array of statuses");
    filter.statuses = [...new Set(list.map((status, index) => checkStatus("listRuns", `options.status[${index}]`, status)))];
  }
  if (options.since !== undefined) filter.since = checkTimeFilter("listRuns", "options.since", options.since);
  if (options.before !== undefined) filter.before = checkTimeFilter("listRuns", "options.before", options.before);
  return filter;
}

export function checkReadOptions(runId: string, options: { after?: number | undefined; limit?: number | undefined } | undefined): { after: number; limit: number | undefined } {
  checkKey("readEvents", "runId", runId);
  if (options === undefined) return { after: 0, limit: undefined };
  if (options === null || typeof options !== "object") throw invalid("readEvents", "options", options, "an object");
  checkOptionKeys("RunStore.readEvents", options, READ_OPTION_KEYS, {
    prefix: "options.",
    hints: { before: "readEvents reads forward only: the events after `after` (default 0), at most `limit` of them" },
  });
  const after = options.after ?? 0;
  if (typeof after !== "number" || !Number.isSafeInteger(after) || after < 0) throw invalid("readEvents", "options.after", after, "an integer >= 0");
  const limit = options.limit === undefined ? undefined : checkPositiveInteger("readEvents", "options.limit", options.limit);
  return { after, limit };
}

export function checkPruneOptions(options: { olderThan: number | Date }): number {
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw invalid("pruneRuns", "options", options, "an object");
  // An option pruneRuns does not have (`dryRun`) must not be ignored while it deletes runs.
  checkOptionKeys("RunStore.pruneRuns", options, ["olderThan"], "options.");
  return checkTimeFilter("pruneRuns", "options.olderThan", options.olderThan);
}
