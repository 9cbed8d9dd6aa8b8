import { runInboxId } from "@agentrx/executors";
import { RUN_COLUMNS, type EventRow, type RunRow } from "../internal/run-record";
import { SORT_COLUMNS } from "../internal/run-list-query";
import type { ThreadMessageRow } from "../internal/thread-record";
import type { RunFilter } from "../internal/validate-run-arguments";

/** A query as `pg` takes it; `name` makes `pg` prepare it once per connection. */
export interface PostgresQuery {
  name?: string;
  text: string;
  values: unknown[];
}

/** The SQL of one store, for one (quoted) schema, built once. */
export interface PostgresQueries {
  insertRun: string;
  selectRun: string;
  claim: string;
  /** Cancels a run that has not ended. Parameters: run id, reason, time. */
  cancel: string;
  /** Cancels a sub-run with its calling run, if it is paused or queued. Parameters: run id, reason, time. */
  cancelPaused: string;
  /** The `data` of a run's `interrupt` events, newest first. Parameter: run id. */
  interruptEvents: string;
  /**
   * The write of `count` events: one statement, one round trip (and one commit, in autocommit).
   * Parameters: run id, owner, the event count the run must have (or null), the nine columns of
   * `writeColumns`, the writer's epoch (or null), the three search parameters (the answer's text,
   * the cost, the answer's search words as an array or null), with `closing` the
   * inbox position to close up to, then 4 per event (seq, type, at, data) up to 16 events, or 4
   * arrays beyond. `closing`: the write closes the run's inbox, reading the inbox's last position
   * after the sends in flight commit (see `writeSql`).
   */
  write(count: number, closing: boolean): string;
  writeState: string;
  /**
   * What a write repeated after a lost connection reads when it is refused, to tell its own write
   * that did commit from another's: the run's fencing columns, what a write sets (status, error,
   * stop reason, usage, checkpoint), its inbox, and its last event.
   * Parameter: run id.
   */
  writeLanded: string;
  /** Locks the run's row, for a delete that must see every send before it. Parameter: run id. */
  lockRun: string;
  /** Locks the run's row (shared) against a write that closes its inbox or a delete, and reads what a send checks. Parameter: run id. */
  runMessageState: string;
  readEvents: string;
  /** Parameters: run id, `runInboxId("")`. Returns one row: `deleted`. */
  deleteRun: string;
  lockPrunable: string;
  /** Parameters: olderThan, `runInboxId("")`. Returns one row: `deleted`. */
  pruneRuns: string;
  version: string;
  list(filter: RunFilter): PostgresQuery;
  /**
   * Appends messages after the thread's last seq, in one statement. Parameters: thread id, number
   * of messages, time, then the arrays run_id[], tokens[], at[], message[].
   */
  appendThreadMessages: string;
  /** Parameters: thread id, after, before, limit (or null). */
  readThreadMessagesOldest: string;
  readThreadMessagesNewest: string;
  /** Run in one transaction, in this order: the counter row first (it waits for appends in flight), then the messages. */
  clearThreadLock: string;
  clearThreadCounter: string;
  clearThreadMessages: string;
}

/** The prefix of a thread's advisory-lock key, per schema (a SQL string literal). */
function threadLockKey(schema: string): string {
  return `'${schema.replace(/'/g, "''")}.thread:'`;
}

export function postgresQueries(s: string): PostgresQueries {
  const runs = `${s}.agentrx_runs`;
  const events = `${s}.agentrx_run_events`;
  const threads = `${s}.agentrx_threads`;
  const messages = `${s}.agentrx_thread_messages`;
  const readMessages = `SELECT seq, run_id, tokens, at, message FROM ${messages} WHERE thread_id = $1 AND seq > $2::bigint AND seq < $3::bigint ORDER BY seq`;
  const params = RUN_COLUMNS.split(", ").map((_, index) => `$${index + 1}`).join(", ");
  return {
    // The last parameter: the input's search words (an array, see searchWordList), as they are the
    // search vector's lexemes: PostgreSQL's parser does not split them again.
    insertRun: `INSERT INTO ${runs} (${RUN_COLUMNS}, input_vector) VALUES (${params}, array_to_tsvector($${RUN_COLUMNS.split(", ").length + 1}::text[])) ON CONFLICT (run_id) DO NOTHING`,
    selectRun: `SELECT ${RUN_COLUMNS} FROM ${runs} WHERE run_id = $1`,
    // One statement: lock the row, take the lease when it is free, return the row as it was.
    claim: `WITH before AS (
        SELECT ${RUN_COLUMNS} FROM ${runs} WHERE run_id = $1 FOR UPDATE
      ), claimed AS (
        UPDATE ${runs} AS r SET status = 'running', error = NULL, inbox_closed = false, owner = $2, lease_expires_at = $3, updated_at = $4, epoch = r.epoch + 1
        FROM before AS b
        WHERE r.run_id = b.run_id
          AND (b.status <> 'running' OR b.lease_expires_at IS NULL OR b.lease_expires_at <= $4 OR b.owner = $2)
        RETURNING r.epoch
      )
      SELECT before.*, (SELECT epoch FROM claimed) AS claimed_epoch FROM before`,
    // Compare-and-set: only a run that has not ended; the epoch's increment fences its writer.
    cancel: `UPDATE ${runs} SET status = 'cancelled', error = $2, owner = NULL, lease_expires_at = NULL, updated_at = $3, epoch = epoch + 1
      WHERE run_id = $1 AND status IN ('queued', 'running', 'interrupted')`,
    cancelPaused: `UPDATE ${runs} SET status = 'cancelled', error = $2, owner = NULL, lease_expires_at = NULL, updated_at = $3, epoch = epoch + 1
      WHERE run_id = $1 AND status IN ('interrupted', 'queued')`,
    interruptEvents: `SELECT data FROM ${events} WHERE run_id = $1 AND type = 'interrupt' ORDER BY seq DESC`,
    write: (count, closing) => writeSql(runs, events, threads, count, closing),
    lockRun: `SELECT 1 FROM ${runs} WHERE run_id = $1 FOR UPDATE`,
    runMessageState: `SELECT status, stop_reason, inbox_closed FROM ${runs} WHERE run_id = $1 FOR SHARE`,
    writeState: `SELECT owner, event_count, epoch, status FROM ${runs} WHERE run_id = $1`,
    writeLanded: `SELECT r.owner, r.event_count, r.epoch, r.status, r.updated_at, r.inbox_closed, r.error, r.stop_reason, r.usage, r.checkpoint,
        coalesce((SELECT last_seq FROM ${threads} WHERE thread_id = '${runInboxId("").replace(/'/g, "''")}' || $1), 0) AS inbox_seq,
        e.type AS last_type, e.at AS last_at, e.data AS last_data
      FROM ${runs} AS r LEFT JOIN ${events} AS e ON e.run_id = r.run_id AND e.seq = r.event_count
      WHERE r.run_id = $1`,
    readEvents: `SELECT seq, type, at, data FROM ${events} WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    // A run's inbox is a thread named after it ($2 is runInboxId("")): it goes with the run.
    deleteRun: `WITH deleted AS (DELETE FROM ${runs} WHERE run_id = $1 RETURNING run_id),
      counter AS (DELETE FROM ${threads} WHERE thread_id IN (SELECT $2 || run_id FROM deleted)),
      inbox AS (DELETE FROM ${messages} WHERE thread_id IN (SELECT $2 || run_id FROM deleted))
      SELECT count(*)::integer AS deleted FROM deleted`,
    // Prune's runs, locked first (see deleteRun in the store).
    lockPrunable: `SELECT run_id FROM ${runs} WHERE updated_at < $1 AND status <> 'running' FOR UPDATE`,
    pruneRuns: `WITH deleted AS (DELETE FROM ${runs} WHERE updated_at < $1 AND status <> 'running' RETURNING run_id),
      counter AS (DELETE FROM ${threads} WHERE thread_id IN (SELECT $2 || run_id FROM deleted)),
      inbox AS (DELETE FROM ${messages} WHERE thread_id IN (SELECT $2 || run_id FROM deleted))
      SELECT count(*)::integer AS deleted FROM deleted`,
    version: `SELECT coalesce(max(version), 0) AS version FROM ${s}.agentrx_schema_migrations`,
    // The upsert locks the thread's counter row until the statement's transaction ends, so a
    // concurrent append waits, then counts on from the seq this one reached. Appends share a
    // per-thread advisory lock that clearThread takes exclusively: a clear never runs between an
    // append creating the counter row and the clear's own delete of the messages.
    appendThreadMessages: `WITH lock AS (SELECT pg_advisory_xact_lock_shared(hashtext(${threadLockKey(s)} || $1))),
      counter AS (
        INSERT INTO ${threads} AS t (thread_id, last_seq, updated_at) SELECT $1, $2::integer, $3::bigint FROM lock
        ON CONFLICT (thread_id) DO UPDATE SET last_seq = t.last_seq + EXCLUDED.last_seq, updated_at = EXCLUDED.updated_at
        RETURNING last_seq
      )
      INSERT INTO ${messages} (thread_id, seq, run_id, tokens, at, message)
      SELECT $1, counter.last_seq - $2::integer + m.ord, m.run_id, m.tokens, m.at, m.message
      FROM counter, unnest($4::text[], $5::integer[], $6::bigint[], $7::text[]) WITH ORDINALITY AS m (run_id, tokens, at, message, ord)
      RETURNING seq`,
    readThreadMessagesOldest: `${readMessages} LIMIT $4`,
    readThreadMessagesNewest: `${readMessages} DESC LIMIT $4`,
    clearThreadLock: `SELECT pg_advisory_xact_lock(hashtext(${threadLockKey(s)} || $1))`,
    clearThreadCounter: `DELETE FROM ${threads} WHERE thread_id = $1`,
    clearThreadMessages: `DELETE FROM ${messages} WHERE thread_id = $1`,
    list(filter) {
      const where: string[] = [];
      const values: unknown[] = [];
      const add = (condition: (n: string) => string, value: unknown) => {
        values.push(value);
        where.push(condition(`$${values.length}`));
      };
      if (filter.threadId !== undefined) add((n) => `thread_id = ${n}`, filter.threadId);
      if (filter.statuses !== undefined) add((n) => `status = ANY (${n}::text[])`, filter.statuses);
      if (filter.since !== undefined) add((n) => `created_at >= ${n}`, filter.since);
      if (filter.before !== undefined) add((n) => `created_at < ${n}`, filter.before);
      if (filter.hasError !== undefined) where.push(filter.hasError ? "error IS NOT NULL" : "error IS NULL");
      if (filter.minCost !== undefined) add((n) => `cost_usd >= ${n}`, filter.minCost);
      if (filter.maxCost !== undefined) add((n) => `cost_usd <= ${n}`, filter.maxCost);
      // Each word a quoted prefix lexeme, read as it is (no parser, no dictionary): nothing the
      // user types is read as tsquery syntax, and the words are those the vectors hold.
      if (filter.terms !== undefined) add((n) => `(input_vector || answer_vector) @@ ${n}::tsquery`, searchTsquery(filter.terms));
      const column = SORT_COLUMNS[filter.sort];
      const direction = filter.order === "asc" ? "ASC" : "DESC";
      if (filter.after !== undefined) {
        values.push(filter.after.key, filter.after.runId);
        where.push(`(${column}, run_id COLLATE "C") ${filter.order === "asc" ? ">" : "<"} ($${values.length - 1}, $${values.length}::text COLLATE "C")`);
      }
      values.push(filter.limit);
      const text = `SELECT ${RUN_COLUMNS} FROM ${runs}${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY ${column} ${direction}, run_id COLLATE "C" ${direction} LIMIT $${values.length}`;
      return { text, values };
    },
  };
}

/**
 * Search words (joined by spaces, see `RunSearchWords`) as the array `array_to_tsvector` takes:
 * none for no words (it refuses an empty lexeme).
 */
export function searchWordList(words: string): string[] {
  return words === "" ? [] : words.split(" ");
}

/** The search's words as a tsquery: each a quoted lexeme matched as a prefix (`'word':*`), all of them required. */
export function searchTsquery(terms: readonly string[]): string {
  return terms.map((term) => `'${term.replace(/\\/g, "\\\\").replace(/'/g, "''")}':*`).join(" & ");
}

/** Events up to this many are inserted from a VALUES list (measured twice as fast as unnest); more from unnest of arrays. */
export const MAX_VALUES_EVENTS = 16;

function writeSql(runs: string, events: string, threads: string, count: number, closing: boolean): string {
  const inboxId = `'${runInboxId("").replace(/'/g, "''")}' || $1`;
  // Who may write: the lease holder (at its epoch, when given), with the events following the last recorded one.
  const writer = `run_id = $1 AND owner = $2 AND ($13::integer IS NULL OR epoch = $13::integer) AND ($3::integer IS NULL OR event_count = $3::integer)`;
  // The run's inbox's last position. A write that closes the inbox must see every send that
  // committed before it, and a send holds the run's row (shared) from its check to its commit.
  // So that write first locks the row (`locked`: it waits for the sends in flight), then reads
  // the position through an upsert of the inbox's counter row (`inbox`): ON CONFLICT reads the
  // row's latest committed version, also one a send inserted after the statement's snapshot, which
  // a plain SELECT would not see. A send that comes after waits for the write's lock, then finds
  // the inbox closed. The upsert changes nothing (a counter at 0 for an inbox never written).
  const inboxSeq = closing ? `coalesce((SELECT last_seq FROM inbox), 0)` : `coalesce((SELECT last_seq FROM ${threads} WHERE thread_id = ${inboxId}), 0)`;
  const inbox = closing
    ? `locked AS (SELECT run_id FROM ${runs} WHERE ${writer} FOR UPDATE),
      inbox AS (
        INSERT INTO ${threads} AS t (thread_id, last_seq, updated_at) SELECT ${inboxId}, 0, $11::bigint FROM locked
        ON CONFLICT (thread_id) DO UPDATE SET last_seq = t.last_seq
        RETURNING last_seq
      ), `
    : "";
  // Update the row when the writer may write, then insert the events (only if the row was updated:
  // they select from `run`). The row lock the UPDATE takes orders it after a concurrent claim,
  // whose new epoch it then sees (READ COMMITTED re-checks the WHERE clause on the updated row).
  const update = `UPDATE ${runs} SET
          status = coalesce($4::text, status),
          stop_reason = coalesce($5::text, stop_reason),
          usage = coalesce($6::text, usage),
          error = coalesce($7::text, error),
          checkpoint = coalesce($8::text, checkpoint),
          owner = CASE WHEN $9::boolean THEN NULL ELSE owner END,
          lease_expires_at = CASE WHEN $9::boolean THEN NULL ELSE $10::bigint END,
          updated_at = $11::bigint,
          event_count = coalesce($12::integer, event_count),
          answer_text = coalesce($14::text, answer_text),
          answer_vector = CASE WHEN $14::text IS NULL THEN answer_vector ELSE array_to_tsvector($16::text[]) END,
          cost_usd = coalesce($15::double precision, cost_usd)${closing ? `,
          inbox_closed = CASE WHEN ${inboxSeq} <= $17::integer THEN true ELSE inbox_closed END` : ""}
        WHERE ${writer}
        RETURNING run_id, inbox_closed`;
  const result = `SELECT count(*)::integer AS updated, bool_or(run.inbox_closed) AS inbox_closed, ${inboxSeq} AS inbox_seq FROM run`;
  if (count === 0) return `WITH ${inbox}run AS (${update}) ${result}`;
  const first = closing ? 18 : 17;
  const rows =
    count <= MAX_VALUES_EVENTS
      ? `(VALUES ${Array.from({ length: count }, (_, index) => {
          const n = first + index * 4;
          return `($${n}::integer, $${n + 1}::text, $${n + 2}::bigint, $${n + 3}::text)`;
        }).join(", ")})`
      : `unnest($${first}::integer[], $${first + 1}::text[], $${first + 2}::bigint[], $${first + 3}::text[])`;
  return `WITH ${inbox}run AS (${update}), added AS (
        INSERT INTO ${events} (run_id, seq, type, at, data)
        SELECT run.run_id, e.seq, e.type, e.at, e.data FROM run, ${rows} AS e (seq, type, at, data)
      )
      ${result}`;
}

/** The parameters of the events of a write, laid out as `write(events.length)` expects them. */
export function writeEventValues(events: readonly EventRow[]): unknown[] {
  if (events.length > MAX_VALUES_EVENTS) {
    return [events.map((event) => event.seq), events.map((event) => event.type), events.map((event) => event.at), events.map((event) => event.data)];
  }
  const values: unknown[] = [];
  for (const event of events) values.push(event.seq, event.type, event.at, event.data);
  return values;
}

/** A row of `agentrx_runs` as `pg` returns it (`bigint` columns as strings) in the common shape. */
export function runRowOf(row: Record<string, unknown>): RunRow {
  return {
    run_id: row.run_id as string,
    thread_id: row.thread_id as string | null,
    status: row.status as string,
    stop_reason: row.stop_reason as string | null,
    inputs: row.inputs as string,
    usage: row.usage as string | null,
    error: row.error as string | null,
    checkpoint: row.checkpoint as string | null,
    metadata: row.metadata as string | null,
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
    event_count: Number(row.event_count),
    owner: row.owner as string | null,
    lease_expires_at: row.lease_expires_at === null ? null : Number(row.lease_expires_at),
    epoch: Number(row.epoch ?? 0),
    fork_of_run_id: (row.fork_of_run_id ?? null) as string | null,
    fork_of_iteration: row.fork_of_iteration === null || row.fork_of_iteration === undefined ? null : Number(row.fork_of_iteration),
    input_text: (row.input_text ?? "") as string,
    answer_text: (row.answer_text ?? "") as string,
    cost_usd: Number(row.cost_usd ?? 0),
  };
}

/** A row of `agentrx_run_events` as `pg` returns it, in the common shape. */
export function eventRowOf(row: Record<string, unknown>): EventRow {
  return { seq: Number(row.seq), type: row.type as string, at: Number(row.at), data: row.data as string };
}

/** A short, stable name for a prepared statement (at most 63 characters). */
export function statementName(kind: string, text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return `agentrx_${kind}_${(hash >>> 0).toString(16)}`;
}

/** A row of `agentrx_thread_messages` as `pg` returns it (`bigint` columns as strings), in the common shape. */
export function threadMessageRowOf(row: Record<string, unknown>): ThreadMessageRow {
  return { seq: Number(row.seq), run_id: row.run_id as string | null, tokens: Number(row.tokens), at: Number(row.at), message: row.message as string };
}
