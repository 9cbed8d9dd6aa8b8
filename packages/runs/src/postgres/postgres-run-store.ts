import { withCursors } from "../internal/run-list-query";
import { checkOptionKeys, InvalidArgumentError } from "@agentrx/core";
import {
  RunBusyError,
  RunNotFoundError,
  RunFinishedError,
  RunStoreError,
  type CancelRun,
  runInboxId,
  type ClaimRun,
  type ListRunsOptions,
  type NewRun,
  type NewThreadMessage,
  type ReadThreadMessagesOptions,
  type RunInfo,
  type RunStore,
  type RunMessageAppended,
  type RunStatus,
  type RunWrite,
  type RunWriteResult,
  type StoredRunEvent,
  type StoredThreadMessage,
} from "@agentrx/executors";
import { eventRows, listedRunInfoOf, newRunRow, RUN_COLUMNS, runInfoOf, storedEventOf, writeColumns, type EventRow, type RunRow, type WriteColumns } from "../internal/run-record";
import { closedStoreError, leaseLostError, loadDriver, seqError } from "../internal/store-errors";
import { cancelPausedSubRunsAsync } from "../internal/sub-run-cancel";
import { checkThreadRead, storedThreadMessageOf, threadMessageRows, threadSubject } from "../internal/thread-record";
import {
  checkCancel,
  checkClaim,
  checkKey,
  checkThreadKey,
  checkListOptions,
  checkNewRun,
  checkPruneOptions,
  checkReadOptions,
  checkWrite,
} from "../internal/validate-run-arguments";
import { describeTarget, isConnectionLost, wasNotSent, wrapPostgresError } from "./postgres-errors";
import { backfillSearchVectors } from "./postgres-backfill";
import { POSTGRES_SCHEMA_VERSION, postgresMigrationSql, quoteSchema } from "./postgres-migrations";
import { MAX_MESSAGE_BYTES, valueBytesOver } from "./postgres-message-size";
import { retryLostConnection } from "./postgres-retry";
import { inTransaction, withClient, type PostgresStatementClient } from "./postgres-transaction";
import { parsePostgresUrl } from "./postgres-url";
import { redact } from "../internal/redact";
import {
  eventRowOf,
  MAX_VALUES_EVENTS,
  postgresQueries,
  runRowOf,
  searchWordList,
  statementName,
  threadMessageRowOf,
  writeEventValues,
  type PostgresQueries,
  type PostgresQuery,
} from "./postgres-queries";
import type { PostgresPool, PostgresRunStoreOptions } from "./postgres-run-store-options";

export type {
  PostgresConnectionStringOptions,
  PostgresPool,
  PostgresPoolClient,
  PostgresPoolOptions,
  PostgresQueryResult,
  PostgresRunStoreOptions,
} from "./postgres-run-store-options";

const STORE = "PostgresRunStore";
/** The default of `statementTimeoutMs` and `connectionTimeoutMs`. */
const DEFAULT_TIMEOUT_MS = 10_000;
type Rows = Record<string, unknown>[];
type QueryResult = { rows: Rows; rowCount: number | null };

/** How `#query` sends a statement. */
interface QueryOptions {
  /** What the call is about when not a run (e.g. `thread "t1"`), for messages. */
  subject?: string;
  /**
   * Send the statement again, on another connection, when its connection was lost (see
   * `isConnectionLost`; up to `LOST_CONNECTION_ATTEMPTS` times in all): for a statement whose
   * repeat is harmless (a read), or whose caller recognises its own write that did commit
   * (`retried` tells it).
   */
  retry?: boolean;
  /** Told before each retry of the statement. */
  retried?: () => void;
}
/** The statements prepared once per connection (by name). */
const STATEMENT_KINDS = ["insertRun", "selectRun", "claim", "readEvents", "appendThreadMessages", "readThreadMessagesOldest", "readThreadMessagesNewest"] as const;
type StatementKind = (typeof STATEMENT_KINDS)[number];

/**
 * A connection string that is a URL must be one PostgreSQL's client reads: `postgres:` or
 * `postgresql:` (or `socket:`): a mysql:// one would fail at the first call, far from its cause.
 * The rest is pg's to read (it takes URLs a WHATWG parser does not, such as one without a host),
 * and key-value strings (`host=... dbname=...`) pass as they are.
 */
function checkConnectionUrl(connectionString: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(connectionString)?.[1]?.toLowerCase();
  if (scheme === undefined) return;
  const shown = redact(connectionString);
  if (scheme !== "postgres" && scheme !== "postgresql" && scheme !== "socket") {
    throw new InvalidArgumentError({ argument: "connectionString", value: shown, message: `PostgresRunStore: connectionString must be a PostgreSQL URL (postgres://user@host:5432/database), got a ${scheme}: URL (${shown}).` });
  }
}

/**
 * The store's schema: the `schema` option, else the `?schema=` of a `postgres://` connection string
 * (the store's, or that of the pool it is given; as `agentrx --db` reads it: `pg` ignores the
 * parameter), else `agentrx`. Both given and different
 * is refused, naming both; the one used is checked as an identifier.
 */
function schemaOf(option: string | undefined, connectionString: string | undefined): string {
  const fromUrl = connectionString === undefined ? undefined : parsePostgresUrl(connectionString)?.schema;
  if (option !== undefined && fromUrl !== undefined && option !== fromUrl) {
    throw new InvalidArgumentError({
      argument: "schema",
      value: option,
      message: `PostgresRunStore: schema ${JSON.stringify(option)} and the ?schema=${encodeURIComponent(fromUrl)} of connectionString differ; give the schema in one of them, or the same in both.`,
    });
  }
  // The option is checked by the caller, as it always was (a null one too).
  if (option !== undefined || fromUrl === undefined) return option === undefined ? "agentrx" : option;
  quoteSchema(fromUrl, "connectionString", "the ?schema= of connectionString");
  return fromUrl;
}

/**
 * A run store in PostgreSQL, through the `pg` package (an optional peer dependency:
 * `npm install pg`). Its tables live in their own schema (`schema`, else the `?schema=` of a
 * `postgres://` connection string as `agentrx --db` reads it, else `agentrx`), created and
 * migrated at the first call (or by hand: {@link PostgresRunStore.migrate},
 * `postgresMigrationSql`). JSON is kept in `text` columns, because `jsonb` cannot hold the NUL
 * character (`\u0000`) that model output and tool results may contain. A write is one statement,
 * one round trip. A call whose connection the server terminated is sent again on another
 * connection, a few times after short pauses (a write that did commit is recognised, never
 * recorded twice; see docs/runs.md, "Store timeouts and busy files"). A pool the store creates times statements and connections out after 10 seconds
 * (`statementTimeoutMs`, `connectionTimeoutMs`): the call fails with a `RunStoreError` whose
 * `reason` is `"timeout"`.
 *
 * @example
 * ```ts
 * import { PostgresRunStore } from "@agentrx/runs";
 *
 * const store = new PostgresRunStore({ connectionString: process.env.DATABASE_URL!, schema: "agentrx" });
 * const failed = await store.listRuns({ status: "failed", since: Date.now() - 86_400_000 });
 * console.log(failed.length);
 * await store.close();
 * ```
 */
export class PostgresRunStore implements RunStore {
  /** The schema that holds the store's tables. */
  readonly schema: string;
  readonly #connectionString: string | undefined;
  readonly #ownsPool: boolean;
  readonly #sql: PostgresQueries;
  readonly #names: Record<StatementKind, string>;
  /** The write statements by number of events, built and named on first use. */
  readonly #writes = new Map<number, { name: string; text: string }>();
  readonly #timeouts: { statementTimeoutMs: number; connectionTimeoutMs: number };
  #pool: PostgresPool | undefined;
  #ready: Promise<PostgresPool> | undefined;
  #closed = false;
  /** The calls made before `close()` and not yet settled (each settles quietly): `close()` waits for them. */
  readonly #calls = new Set<Promise<void>>();
  #closing: Promise<void> | undefined;

  constructor(options: PostgresRunStoreOptions) {
    if (options === null || typeof options !== "object") {
      throw new InvalidArgumentError({ argument: "options", value: options, message: "PostgresRunStore: options must be an object with `pool` or `connectionString`." });
    }
    checkOptionKeys("PostgresRunStore", options, ["pool", "connectionString", "schema", "statementTimeoutMs", "connectionTimeoutMs"]);
    const { pool, connectionString, schema: schemaOption, statementTimeoutMs = DEFAULT_TIMEOUT_MS, connectionTimeoutMs = DEFAULT_TIMEOUT_MS } = options;
    if ((pool === undefined) === (connectionString === undefined)) {
      throw new InvalidArgumentError({
        argument: pool === undefined ? "connectionString" : "pool",
        value: pool ?? connectionString,
        message: "PostgresRunStore: give exactly one of `pool` (a pg.Pool you own) or `connectionString` (e.g. process.env.DATABASE_URL), not both and not neither.",
      });
    }
    if (connectionString !== undefined && (typeof connectionString !== "string" || connectionString.length === 0)) {
      throw new InvalidArgumentError({ argument: "connectionString", value: connectionString, message: "PostgresRunStore: connectionString must be a non-empty string such as postgres://user@host:5432/database." });
    }
    if (connectionString !== undefined) checkConnectionUrl(connectionString);
    if (pool !== undefined && (pool === null || typeof pool.query !== "function" || typeof pool.connect !== "function")) {
      throw new InvalidArgumentError({ argument: "pool", value: pool, message: "PostgresRunStore: pool must be a pg.Pool (with query() and connect())." });
    }
    for (const [argument, value] of [["statementTimeoutMs", statementTimeoutMs], ["connectionTimeoutMs", connectionTimeoutMs]] as const) {
      if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
        throw new InvalidArgumentError({ argument, value, message: `PostgresRunStore: ${argument} must be an integer >= 0 (milliseconds; 0 for none), got ${String(value)}.` });
      }
      if (pool !== undefined && options[argument] !== undefined) {
        throw new InvalidArgumentError({ argument, value, message: `PostgresRunStore: ${argument} applies to the pool the store creates from \`connectionString\`; with \`pool\`, set the timeouts on your pool.` });
      }
    }
    this.#timeouts = { statementTimeoutMs, connectionTimeoutMs };
    // A pool of the caller's (`new pg.Pool({ connectionString })`) keeps its connection string in its options.
    const poolUrl = (pool as { options?: { connectionString?: unknown } } | undefined)?.options?.connectionString;
    const schema = schemaOf(schemaOption, connectionString ?? (typeof poolUrl === "string" ? poolUrl : undefined));
    const quoted = quoteSchema(schema);
    this.schema = schema;
    this.#pool = pool;
    this.#connectionString = connectionString;
    this.#ownsPool = pool === undefined;
    this.#sql = postgresQueries(quoted);
    this.#names = Object.fromEntries(STATEMENT_KINDS.map((kind) => [kind, statementName(kind, this.#sql[kind])])) as Record<StatementKind, string>;
  }

  /**
   * Creates or upgrades the store's tables in `schema` and returns the schema version, without
   * keeping a store open: for a deploy step that runs migrations before the application starts.
   *
   * @example
   * ```ts
   * import { PostgresRunStore } from "@agentrx/runs";
   *
   * const version = await PostgresRunStore.migrate({ connectionString: process.env.DATABASE_URL!, schema: "agentrx" });
   * console.log(`run store schema at version ${version}`);
   * ```
   */
  static async migrate(options: PostgresRunStoreOptions): Promise<number> {
    const store = new PostgresRunStore(options);
    try {
      await store.#call("migrate", undefined, async () => undefined);
      return POSTGRES_SCHEMA_VERSION;
    } finally {
      await store.close();
    }
  }

  get #target(): string {
    return describeTarget(this.#connectionString, (this.#pool as { options?: Record<string, unknown> } | undefined)?.options);
  }

  /** A driver's error of `operation` as the store reports it, naming the limits this store's pool has. */
  #wrap(operation: string, runId: string | undefined, error: unknown, subject?: string, migrating?: boolean): Error {
    const context = { pool: this.#pool, ownsPool: this.#ownsPool, statementTimeoutMs: this.#ownsPool ? this.#timeouts.statementTimeoutMs : undefined, migrating };
    return wrapPostgresError(operation, runId, error, this.#target, subject, context);
  }

  /**
   * Runs `work` with the pool (created and migrated at the first call) as one call of the store:
   * refused once `close()` was called; else `close()` waits for it, so a call made before
   * `close()` completes (pg's pool drops a query it has not sent yet when it is ended).
   */
  #call<T>(operation: string, runId: string | undefined, work: (pool: PostgresPool) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(closedStoreError(STORE, operation, runId));
    const call = this.#open(operation, runId).then(work);
    const settled = call.then(
      () => undefined,
      () => undefined,
    );
    this.#calls.add(settled);
    void settled.then(() => this.#calls.delete(settled));
    return call;
  }

  async #open(operation: string, runId: string | undefined): Promise<PostgresPool> {
    this.#ready ??= this.#initialize().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    try {
      return await this.#ready;
    } catch (error) {
      // The call waited for the store's tables: a statement that failed was the migration's.
      throw this.#wrap(operation, runId, error, undefined, true);
    }
  }

  async #initialize(): Promise<PostgresPool> {
    let pool = this.#pool;
    if (pool === undefined) {
      const pg = await loadDriver<{ Pool: new (config: Record<string, unknown>) => PostgresPool }>(STORE, "pg", () => import("pg"));
      const { statementTimeoutMs, connectionTimeoutMs } = this.#timeouts;
      pool = new pg.Pool({
        connectionString: this.#connectionString!,
        // The server cancels a statement first (the connection stays usable); the client gives up
        // on a server that does not answer at all half a second later.
        ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + 500 } : {}),
        ...(connectionTimeoutMs > 0 ? { connectionTimeoutMillis: connectionTimeoutMs } : {}),
      });
      // An idle connection the server closed must not crash the process; the next query reconnects.
      pool.on?.("error", () => undefined);
      this.#pool = pool;
    }
    try {
      const { rows } = await pool.query({ text: this.#sql.version, values: [] });
      const version = Number(rows[0]?.version ?? 0);
      if (version === POSTGRES_SCHEMA_VERSION) {
        await backfillSearchVectors(pool, quoteSchema(this.schema));
        return pool;
      }
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // 42P01: no migrations table yet; 3F000: no schema yet.
      if (code !== "42P01" && code !== "3F000") throw error;
    }
    // On a connection of its own (see withClient: one the server ends meanwhile fails the migration, not the process).
    await withClient(pool, (client) => client.query(postgresMigrationSql(this.schema)));
    await backfillSearchVectors(pool, quoteSchema(this.schema));
    return pool;
  }

  /**
   * One statement on `pool` (a call's, see `#call`); errors as the store reports them. With
   * `retry`, a statement whose connection was lost is sent again, a few times, within the call's
   * budget (see `retryLostConnection`; docs/runs.md, "Store timeouts and busy files").
   */
  async #query(pool: PostgresPool, operation: string, runId: string | undefined, query: PostgresQuery, { subject, retry = false, retried }: QueryOptions = {}): Promise<QueryResult> {
    const bytes = valueBytesOver(query.values, MAX_MESSAGE_BYTES);
    if (bytes !== undefined) {
      // Sent, it would make the server drop the connection: an ECONNRESET, as if it were unreachable.
      const what = `${operation}${runId !== undefined ? ` of run "${runId}"` : subject !== undefined ? ` of ${subject}` : ""}`;
      throw new RunStoreError({
        operation,
        runId,
        message: `${STORE}: ${what} is too large for one statement: its values take at least ${bytes.toLocaleString("en-US")} bytes (UTF-8), and PostgreSQL reads at most ${MAX_MESSAGE_BYTES.toLocaleString("en-US")} in one message. Nothing was sent; record less at once (fewer or smaller events in a write).`,
      });
    }
    try {
      return await retryLostConnection(() => pool.query(query), { retryable: (error) => retry && isConnectionLost(error), onRetry: retried, budgetMs: this.#budgetMs });
    } catch (error) {
      throw this.#wrap(operation, runId, error, subject);
    }
  }

  /** How long the retries of one call may take: the `statementTimeoutMs` of a pool the store created (none for a pool of the caller's). */
  get #budgetMs(): number | undefined {
    return this.#ownsPool && this.#timeouts.statementTimeoutMs > 0 ? this.#timeouts.statementTimeoutMs : undefined;
  }

  async createRun(run: NewRun): Promise<void> {
    checkNewRun(run);
    const row = newRunRow(run);
    const values: unknown[] = RUN_COLUMNS.split(", ").map((column) => (row as unknown as Record<string, unknown>)[column]);
    values.push(searchWordList(row.input_words));
    return this.#call("createRun", run.runId, async (pool) => {
      let again = false;
      const retried = () => (again = true);
      const { rowCount } = await this.#query(pool, "createRun", run.runId, { name: this.#names.insertRun, text: this.#sql.insertRun, values }, { retry: true, retried });
      // Sent again after a lost connection: the run found may be the one the first insert made.
      if (rowCount === 0 && again && (await this.#createdBy(pool, row))) return;
      if (rowCount === 0) {
        throw new RunStoreError({ operation: "createRun", runId: run.runId, message: `${STORE}: run "${run.runId}" exists already; run ids must be unique.` });
      }
    });
  }

  /** Whether the run `row` describes is in the store as that insert made it (a `createRun` sent twice). */
  async #createdBy(pool: PostgresPool, row: RunRow): Promise<boolean> {
    const { rows } = await this.#query(pool, "createRun", row.run_id, { name: this.#names.selectRun, text: this.#sql.selectRun, values: [row.run_id] }, { retry: true });
    const found = rows[0];
    if (found === undefined) return false;
    const stored = runRowOf(found);
    return (
      stored.created_at === row.created_at &&
      stored.inputs === row.inputs &&
      stored.metadata === row.metadata &&
      stored.thread_id === row.thread_id &&
      stored.fork_of_run_id === row.fork_of_run_id &&
      (stored.owner === row.owner || stored.epoch > row.epoch)
    );
  }

  async claimRun(runId: string, claim: ClaimRun): Promise<RunInfo> {
    checkClaim(runId, claim);
    let again = false;
    const { rows } = await this.#call("claimRun", runId, (pool) =>
      this.#query(
        pool,
        "claimRun",
        runId,
        { name: this.#names.claim, text: this.#sql.claim, values: [runId, claim.owner, claim.at + claim.leaseMs, claim.at] },
        { retry: true, retried: () => (again = true) },
      ),
    );
    const row = rows[0];
    if (row === undefined) throw new RunNotFoundError({ operation: "claimRun", runId });
    const before = runRowOf(row);
    if (again && before.status === "running" && before.owner === claim.owner && before.updated_at === claim.at && before.lease_expires_at === claim.at + claim.leaseMs) {
      // The first claim committed, its answer lost: the run as it was before it is gone.
      throw new RunStoreError({
        operation: "claimRun",
        runId,
        message: `${STORE}: the connection to the database at ${this.#target} was lost while claimRun of run "${runId}" committed, so what the run was before the claim is unknown. That claim holds the run: "${claim.owner}" may claim it again at once; another owner after its lease (${claim.leaseMs} ms) runs out.`,
      });
    }
    if (row.claimed_epoch === null || row.claimed_epoch === undefined) {
      throw new RunBusyError({ runId, owner: before.owner ?? undefined, leaseExpiresAt: before.lease_expires_at ?? undefined });
    }
    return { ...runInfoOf(before, STORE, "claimRun"), epoch: Number(row.claimed_epoch) };
  }

  async cancelRun(runId: string, cancel: CancelRun): Promise<boolean> {
    checkCancel(runId, cancel);
    // The run and its paused sub-runs (handoff, asTool) in one transaction: a cancel that fails
    // half-way leaves none of them cancelled, rather than a sub-run paused with nobody to resume it.
    return this.#transaction("cancelRun", runId, async (client) => {
      const { rowCount } = await client.query({ text: this.#sql.cancel, values: [runId, cancel.reason, cancel.at] });
      if ((rowCount ?? 0) === 0) return false;
      await cancelPausedSubRunsAsync(runId, cancel.reason, {
        interruptEvents: async (id) => (await client.query({ text: this.#sql.interruptEvents, values: [id] })).rows.map((row) => row.data as string),
        cancelIfPaused: async (id, reason) => ((await client.query({ text: this.#sql.cancelPaused, values: [id, reason, cancel.at] })).rowCount ?? 0) > 0,
      });
      return true;
    });
  }

  async write(runId: string, write: RunWrite): Promise<RunWriteResult> {
    const expected = checkWrite(runId, write);
    const c = writeColumns(write);
    const events = eventRows(write.events);
    const closeInbox = write.update?.closeInbox;
    const closing = closeInbox !== undefined;
    const key = Math.min(events.length, MAX_VALUES_EVENTS + 1) * 2 + (closing ? 1 : 0);
    let statement = this.#writes.get(key);
    if (statement === undefined) {
      const text = this.#sql.write(Math.min(events.length, MAX_VALUES_EVENTS + 1), closing);
      this.#writes.set(key, (statement = { name: statementName(closing ? "close" : "write", text), text }));
    }
    const values: unknown[] = [
      runId, write.owner, expected ?? null,
      c.status, c.stop_reason, c.usage, c.error, c.checkpoint, c.release, c.lease_expires_at, c.updated_at, c.event_count,
      write.epoch ?? null,
      c.answer_text, c.cost_usd, c.answer_words === null ? null : searchWordList(c.answer_words),
    ];
    if (closing) values.push(closeInbox);
    for (const value of writeEventValues(events)) values.push(value);
    // One statement, one round trip, in autocommit (a write that closes the inbox too: its
    // statement waits for the sends in flight itself, see postgresQueries' write).
    const written = statement;
    const { row, state } = await this.#call("write", runId, async (pool) => {
      // A write whose connection was lost is sent again: fenced by its epoch and event count, it
      // is refused if the first one committed, which the run's state then shows (see #landed).
      let again = false;
      const row = (await this.#query(pool, "write", runId, { ...written, values }, { retry: true, retried: () => (again = true) })).rows[0];
      if (row !== undefined && row.updated !== 0) return { row, state: undefined };
      if (again) {
        const landed = (await this.#query(pool, "write", runId, { text: this.#sql.writeLanded, values: [runId] }, { retry: true })).rows[0];
        if (landed !== undefined && landedWrite(landed, write, c, events, expected)) return { row: landed, state: undefined };
        return { row: undefined, state: landed };
      }
      // Refused: why (the run's state), read in the same call, so close() waits for it too.
      return { row: undefined, state: (await this.#query(pool, "write", runId, { text: this.#sql.writeState, values: [runId] }, { retry: true })).rows[0] };
    });
    if (row !== undefined) {
      const inboxSeq = Number(row.inbox_seq ?? 0);
      return closeInbox === undefined ? { inboxSeq } : { inboxSeq, inboxClosed: row.inbox_closed === true };
    }
    if (state === undefined) throw new RunNotFoundError({ operation: "write", runId });
    const current = { owner: state.owner as string | null, epoch: Number(state.epoch), status: state.status as string };
    if (current.owner !== write.owner || (write.epoch !== undefined && current.epoch !== write.epoch)) throw leaseLostError(STORE, runId, write.owner, write.epoch, current);
    const eventCount = Number(state.event_count);
    throw seqError(STORE, runId, eventCount, (expected ?? eventCount) + 1);
  }

  async getRun(runId: string): Promise<RunInfo | undefined> {
    checkKey("getRun", "runId", runId);
    const { rows } = await this.#call("getRun", runId, (pool) => this.#query(pool, "getRun", runId, { name: this.#names.selectRun, text: this.#sql.selectRun, values: [runId] }, { retry: true }));
    return rows[0] === undefined ? undefined : runInfoOf(runRowOf(rows[0]), STORE, "getRun");
  }

  async readEvents(runId: string, options?: { after?: number | undefined; limit?: number | undefined }): Promise<StoredRunEvent[]> {
    const { after, limit } = checkReadOptions(runId, options);
    const { rows } = await this.#call("readEvents", runId, (pool) =>
      this.#query(pool, "readEvents", runId, { name: this.#names.readEvents, text: this.#sql.readEvents, values: [runId, after, limit ?? null] }, { retry: true }),
    );
    return rows.map((row) => storedEventOf(runId, eventRowOf(row), STORE));
  }

  async listRuns(options?: ListRunsOptions): Promise<RunInfo[]> {
    const filter = checkListOptions(options);
    const query = this.#sql.list(filter);
    const { rows } = await this.#call("listRuns", undefined, (pool) => this.#query(pool, "listRuns", undefined, { ...query, name: statementName("list", query.text) }, { retry: true }));
    const runRows = rows.map(runRowOf);
    return withCursors(runRows.map(listedRunInfoOf), runRows, filter);
  }

  async deleteRun(runId: string): Promise<boolean> {
    checkKey("deleteRun", "runId", runId);
    // The run's row is locked first, in its own statement: a send that holds it (appendRunMessage)
    // commits before, and the delete, with a snapshot taken after, sees its message and deletes it
    // with the run's inbox (one statement would miss it, and leave it behind).
    return this.#transaction("deleteRun", runId, async (client) => {
      await client.query({ text: this.#sql.lockRun, values: [runId] });
      const { rows } = await client.query({ text: this.#sql.deleteRun, values: [runId, runInboxId("")] });
      return Number(rows[0]?.deleted ?? 0) > 0;
    });
  }

  async pruneRuns(options: { olderThan: number | Date }): Promise<number> {
    const olderThan = checkPruneOptions(options);
    // As deleteRun: the runs' rows locked first, so no message sent meanwhile is left behind.
    return this.#transaction("pruneRuns", undefined, async (client) => {
      await client.query({ text: this.#sql.lockPrunable, values: [olderThan] });
      const { rows } = await client.query({ text: this.#sql.pruneRuns, values: [olderThan, runInboxId("")] });
      return Number(rows[0]?.deleted ?? 0);
    });
  }

  async appendThreadMessages(threadId: string, messages: readonly NewThreadMessage[]): Promise<number[]> {
    const rows = threadMessageRows(threadId, messages);
    if (rows.length === 0) return [];
    const { rows: inserted } = await this.#call("appendThreadMessages", undefined, (pool) => this.#appendThreadMessages(pool, threadId, rows));
    return inserted.map((row) => Number(row.seq)).sort((a, b) => a - b);
  }

  /**
   * The append's one statement, not sent again after a lost connection (nothing fences it: a
   * repeat would append twice); its error says whether the messages may have been appended.
   */
  async #appendThreadMessages(pool: PostgresPool, threadId: string, rows: ReturnType<typeof threadMessageRows>): Promise<QueryResult> {
    const subject = threadSubject(threadId);
    const values = [
      threadId, rows.length, rows[rows.length - 1]!.at,
      rows.map((row) => row.run_id), rows.map((row) => row.tokens), rows.map((row) => row.at), rows.map((row) => row.message),
    ];
    try {
      return await this.#query(pool, "appendThreadMessages", undefined, { name: this.#names.appendThreadMessages, text: this.#sql.appendThreadMessages, values }, { subject });
    } catch (error) {
      const cause = RunStoreError.isInstance(error) ? error.cause : undefined;
      if (!isConnectionLost(cause)) throw error;
      const code = (cause as { code?: unknown }).code;
      const detail = `${typeof code === "string" ? `${code}: ` : ""}${(cause as Error).message}`;
      const message = wasNotSent(cause)
        ? `${STORE}: lost the connection to the database at ${this.#target} before the statement of appendThreadMessages of ${subject} was sent (${detail}): none of the messages was appended; appending them again is safe.`
        : `${STORE}: lost the connection to the database at ${this.#target} after the statement of appendThreadMessages of ${subject} was sent (${detail}): the messages may have been appended: read the thread before appending them again.`;
      throw new RunStoreError({ operation: "appendThreadMessages", message, cause });
    }
  }

  async appendRunMessage(runId: string, message: NewThreadMessage): Promise<RunMessageAppended> {
    checkKey("appendRunMessage", "runId", runId);
    const threadId = runInboxId(runId);
    const [row] = threadMessageRows(threadId, [message]);
    // One transaction: the run's row is locked (shared) from the check to the append's commit, so a
    // write that closes the inbox (which locks it first) runs wholly before or after it.
    return this.#transaction("appendRunMessage", runId, async (client) => {
      const state = (await client.query({ text: this.#sql.runMessageState, values: [runId] })).rows[0];
      if (state === undefined) throw new RunNotFoundError({ operation: "appendRunMessage", runId });
      if (state.status === "finished" || (state.status === "running" && state.inbox_closed === true)) {
        throw new RunFinishedError({ runId, stopReason: (state.stop_reason as string | null) ?? undefined });
      }
      const { rows } = await client.query({
        text: this.#sql.appendThreadMessages,
        values: [threadId, 1, row!.at, [row!.run_id], [row!.tokens], [row!.at], [row!.message]],
      });
      return { inboxSeq: Number(rows[0]?.seq), status: state.status as RunStatus };
    });
  }

  /** Runs `work` in one transaction on one connection; errors as the store reports them. */
  #transaction<T>(operation: string, runId: string | undefined, work: (client: PostgresStatementClient) => Promise<T>, subject?: string): Promise<T> {
    return this.#call(operation, runId, async (pool) => {
      try {
        return await inTransaction(pool, work, { budgetMs: this.#budgetMs });
      } catch (error) {
        throw this.#wrap(operation, runId, error, subject);
      }
    });
  }

  async readThreadMessages(threadId: string, options?: ReadThreadMessagesOptions): Promise<StoredThreadMessage[]> {
    const read = checkThreadRead(threadId, options);
    const kind = read.newestFirst ? "readThreadMessagesNewest" : "readThreadMessagesOldest";
    const { rows } = await this.#call("readThreadMessages", undefined, (pool) =>
      this.#query(
        pool,
        "readThreadMessages",
        undefined,
        { name: this.#names[kind], text: this.#sql[kind], values: [threadId, read.after, read.before, read.limit ?? null] },
        { subject: threadSubject(threadId), retry: true },
      ),
    );
    return rows.map((row) => storedThreadMessageOf(threadId, threadMessageRowOf(row), STORE));
  }

  /**
   * One transaction: deleting the thread's counter row first waits for an append in flight, so the
   * messages deleted next (with a fresh snapshot) include that append's, and the next append starts
   * again at seq 1 without meeting a message left behind.
   */
  async clearThread(threadId: string): Promise<number> {
    checkThreadKey("clearThread", "threadId", threadId);
    return this.#transaction(
      "clearThread",
      undefined,
      async (client) => {
        await client.query({ text: this.#sql.clearThreadLock, values: [threadId] });
        await client.query({ text: this.#sql.clearThreadCounter, values: [threadId] });
        return (await client.query({ text: this.#sql.clearThreadMessages, values: [threadId] })).rowCount ?? 0;
      },
      threadSubject(threadId),
    );
  }

  /**
   * Lets the calls made before it finish (they resolve or reject as they would have), then ends
   * the pool the store created from `connectionString` (a `pool` you passed stays open: it is
   * yours). Calls made after it reject with a `RunStoreError`; calling it again resolves when the
   * first has finished.
   */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.#end();
    return this.#closing;
  }

  async #end(): Promise<void> {
    // No call starts from now on (#call refuses them), so the set only shrinks.
    await Promise.all(this.#calls);
    await this.#ready?.catch(() => undefined);
    if (this.#ownsPool && this.#pool !== undefined) {
      const pool = this.#pool;
      this.#pool = undefined;
      await pool.end();
    }
  }
}

/**
 * Whether the run's state (`writeLanded`'s row) shows that `write` committed, when the same write
 * sent again after a lost connection was refused: the same writer (its owner, or none once the
 * write released the lease; its epoch), the write's time, what it sets that the row keeps (its
 * status, error, stop reason, usage and checkpoint, when it sets them), and with events the run's
 * last event is the write's last, at the count it leads to.
 */
function landedWrite(state: Record<string, unknown>, write: RunWrite, c: WriteColumns, events: readonly EventRow[], expected: number | undefined): boolean {
  if (state.owner !== (c.release ? null : write.owner)) return false;
  if (write.epoch !== undefined && Number(state.epoch) !== write.epoch) return false;
  if (Number(state.updated_at) !== c.updated_at) return false;
  // The write sets each of these when given (coalesce keeps the row's otherwise).
  for (const column of ["status", "error", "stop_reason", "usage", "checkpoint"] as const) {
    if (c[column] !== null && state[column] !== c[column]) return false;
  }
  const last = events[events.length - 1];
  if (last === undefined) return true;
  return Number(state.event_count) === (expected ?? 0) + events.length && state.last_type === last.type && Number(state.last_at) === last.at && state.last_data === last.data;
}
