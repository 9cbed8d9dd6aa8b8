import { InvalidArgumentError } from "@agentrx/core";
import type { RunInfo } from "@agentrx/executors";
import { compareCodePoints } from "./compare-code-points";
import type { RunRow } from "./run-record";
import { searchHaystack, type RunSearchWords } from "./search-words";
import type { RunFilter } from "./validate-run-arguments";

export { searchTerms } from "./search-words";

/** What `listRuns` sorts by. */
export type RunSort = "createdAt" | "updatedAt" | "cost";
export const RUN_SORTS: readonly RunSort[] = ["createdAt", "updatedAt", "cost"];

/** Where a page starts: the sort key and run id of the previous page's last row. */
export interface RunCursor {
  /** The row's sort key: a number, or the text a damaged SQLite row holds in its place. */
  key: number | string;
  runId: string;
}

/** The table column each sort reads (every store names them alike). */
export const SORT_COLUMNS: Record<RunSort, "created_at" | "updated_at" | "cost_usd"> = { createdAt: "created_at", updatedAt: "updated_at", cost: "cost_usd" };

/**
 * The row's sort key, as the store holds it: a number, or in a damaged SQLite row (whose columns
 * take any type) the text that stands in its place, where SQLite sorts it (after every number).
 */
export function sortKeyOf(row: RunRow, sort: RunSort): number | string {
  return row[SORT_COLUMNS[sort]];
}

/** The `cursor` a listed row carries: sort, order, key and run id, as base64url JSON. */
export function encodeCursor(sort: RunSort, order: "asc" | "desc", key: number | string, runId: string): string {
  const bytes = new TextEncoder().encode(JSON.stringify([sort, order, key, runId]));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A run id a store can hold (as `checkKey` requires): non-empty, no NUL, no lone surrogate. */
const RUN_ID = /^(?:[^\u0000\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])+$/;

/**
 * Text SQLite keeps as a number in a numeric column (a decimal literal, spaces around it allowed):
 * no damaged row's key is such text.
 */
const NUMERIC_TEXT = /^[ \t\n\v\f\r]*[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?[ \t\n\v\f\r]*$/i;

/**
 * The cursor's position; rejects a cursor that is malformed, was made for another sort, or holds a
 * position no listed row has (a time that is not a whole millisecond, a cost that is not a finite
 * number, a text key SQLite would have held as a number, a run id no store could hold), so a
 * tampered cursor fails here, in every store alike, rather than in the database. A text key is the
 * position of a damaged SQLite row (see {@link sortKeyOf}): paging goes on past it; PostgreSQL,
 * whose columns hold numbers only, refuses it as `wrapPostgresError` says (see {@link damagedCursorError}).
 */
export function decodeCursor(cursor: unknown, sort: RunSort, order: "asc" | "desc"): RunCursor {
  const fail = (why: string): never => {
    throw cursorError(cursor, why);
  };
  if (typeof cursor !== "string" || cursor === "") return fail("must be a non-empty string");
  let parsed: unknown;
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    parsed = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0))));
  } catch {
    return fail("is not a cursor listRuns made");
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || (typeof parsed[2] !== "number" && typeof parsed[2] !== "string") || typeof parsed[3] !== "string") return fail("is not a cursor listRuns made");
  if (parsed[0] !== sort || parsed[1] !== order) return fail(`was made for sort "${String(parsed[0])}" ${String(parsed[1])}, not "${sort}" ${order}`);
  const [, , key, runId] = parsed as [RunSort, string, number | string, string];
  const keyOk = typeof key === "string" ? !NUMERIC_TEXT.test(key) : sort === "cost" ? Number.isFinite(key) : Number.isSafeInteger(key);
  if (!keyOk || !RUN_ID.test(runId)) return fail(DAMAGED);
  return { key, runId };
}

const DAMAGED = "is not a cursor listRuns made (its position is damaged)";

function cursorError(cursor: unknown, why: string, cause?: unknown): InvalidArgumentError {
  return new InvalidArgumentError({ argument: "options.cursor", value: cursor, message: `RunStore.listRuns: options.cursor ${why}; pass the \`cursor\` of a row listed with the same sort and order.`, cause });
}

/**
 * What `listRuns` throws for a cursor whose position the database cannot compare (a text key,
 * which only a damaged SQLite row has, given to PostgreSQL): the error {@link decodeCursor} throws
 * for a damaged position, so that every store refuses such a cursor alike. `cause` is the
 * database's error.
 */
export function damagedCursorError(cause: unknown): InvalidArgumentError {
  return cursorError(undefined, DAMAGED, cause);
}

/** Sets each listed run's `cursor`. */
export function withCursors(runs: RunInfo[], rows: readonly RunRow[], filter: RunFilter): RunInfo[] {
  runs.forEach((run, index) => {
    const row = rows[index]!;
    run.cursor = encodeCursor(filter.sort, filter.order, sortKeyOf(row, filter.sort), row.run_id);
  });
  return runs;
}

/**
 * Whether a row passes the filter (how `MemoryRunStore` selects; the SQL stores say the same in
 * SQL).
 */
export function rowMatches(row: RunRow & RunSearchWords, filter: RunFilter): boolean {
  if (filter.threadId !== undefined && row.thread_id !== filter.threadId) return false;
  if (filter.statuses !== undefined && !filter.statuses.includes(row.status as never)) return false;
  if (filter.since !== undefined && row.created_at < filter.since) return false;
  if (filter.before !== undefined && row.created_at >= filter.before) return false;
  if (filter.hasError !== undefined && (row.error !== null) !== filter.hasError) return false;
  if (filter.minCost !== undefined && row.cost_usd < filter.minCost) return false;
  if (filter.maxCost !== undefined && row.cost_usd > filter.maxCost) return false;
  if (filter.terms !== undefined) {
    const words = searchHaystack(row);
    if (!filter.terms.every((term) => words.includes(` ${term}`))) return false;
  }
  return filter.after === undefined || compareRows(row, filter.after, filter) > 0;
}

/** Orders a row against a position in the listing's order: negative when it comes first. */
export function compareRows(row: RunRow, position: RunCursor, filter: RunFilter): number {
  const ascending = compareKeys(sortKeyOf(row, filter.sort), position.key) || compareCodePoints(row.run_id, position.runId);
  return filter.order === "asc" ? ascending : -ascending;
}

/** Orders two sort keys as SQLite does: numbers by value, before any text; texts by code point (their UTF-8 bytes). */
function compareKeys(a: number | string, b: number | string): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
  return typeof a === "number" ? -1 : 1;
}
