import { RunFinishedError, RunStoreError } from "@agentrx/executors";
import { damagedCursorError } from "../internal/run-list-query";
import { wrapStoreError } from "../internal/store-errors";

const STORE = "PostgresRunStore";
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "ECONNRESET", "EAI_AGAIN", "EPIPE"]);
/** The server ended the connection: 57P01 `admin_shutdown` (pg_terminate_backend, a fast shutdown), 57P02 `crash_shutdown`. */
const TERMINATED = new Set(["57P01", "57P02"]);
/** 57P03 `cannot_connect_now`: the server is starting up, shutting down or recovering. */
const NOT_NOW = "57P03";
/** 55P03 `lock_not_available`: a lock not obtained within `lock_timeout` (or a `NOWAIT` one). */
const LOCK_NOT_AVAILABLE = "55P03";
/**
 * The codes of a connection lost before or during a call: the server ended it (57P01
 * `admin_shutdown`, 57P02 `crash_shutdown`, 57P05 `idle_session_timeout`), it reports it gone
 * (08003, 08006), or the socket was reset or closed under a write (ECONNRESET, EPIPE).
 */
const LOST = new Set(["57P01", "57P02", "57P05", "08003", "08006", "ECONNRESET", "EPIPE"]);
const REFUSED_LOGIN = new Set(["28000", "28P01", "3D000"]);
/** Node.js's codes for a server certificate it cannot verify. */
const UNVERIFIED_CERTIFICATE = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** Where the store connects, for messages: host, port and database, never the password. */
export function describeTarget(connectionString: string | undefined, poolOptions: Record<string, unknown> | undefined): string {
  const source = connectionString ?? (typeof poolOptions?.connectionString === "string" ? poolOptions.connectionString : undefined);
  if (source !== undefined) {
    try {
      const url = new URL(source);
      return `${url.hostname || "localhost"}:${url.port || "5432"}${url.pathname || ""}`;
    } catch {
      return "the configured connection string";
    }
  }
  const host = typeof poolOptions?.host === "string" ? poolOptions.host : (process.env.PGHOST ?? "localhost");
  const port = poolOptions?.port ?? process.env.PGPORT ?? 5432;
  const database = typeof poolOptions?.database === "string" ? `/${poolOptions.database}` : "";
  return `${host}:${String(port)}${database}`;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code) return code;
  // Node reports a refused connection to every address of a host name as an AggregateError.
  const inner = (error as { errors?: unknown } | null)?.errors;
  return Array.isArray(inner) ? codeOf(inner[0]) : undefined;
}

/**
 * Whether `error` (of `pg`) says the connection was lost before or during the call: terminated by
 * the server (`pg_terminate_backend`, a restart, an idle-session timeout), reset, or closed while
 * idle in the pool ("Connection terminated unexpectedly" at its next use). Such a call may be tried
 * again on another connection (the store's writes are fenced: a repeat of one that committed is
 * refused); not a timeout, a constraint's error or a refusal of the write.
 */
export function isConnectionLost(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined && LOST.has(code)) return true;
  const message = (error as Error | null)?.message ?? "";
  return /^Connection terminated unexpectedly|^Client has encountered a connection error and is not queryable/.test(message);
}

/**
 * Whether `error` (of `pg`) says a statement was not sent at all, because its connection had failed
 * before ("Client has encountered a connection error and is not queryable"): a statement refused
 * so did not run. Any other lost connection leaves unknown whether it ran.
 */
export function wasNotSent(error: unknown): boolean {
  return /^Client has encountered a connection error and is not queryable/.test((error as Error | null)?.message ?? "");
}

/** What the store knows of a failed call, for messages that name the setting at fault. */
export interface PostgresCallContext {
  /** The pool the call used: of a `pg.Pool`, `options.max` is read (when present) to describe a call that found no free connection. */
  pool?: unknown;
  /**
   * Whether the store created the pool from `connectionString`, and so set its timeouts
   * (`statementTimeoutMs`, `connectionTimeoutMs`); false for a `pool` of the caller's, whose own
   * settings the messages name instead.
   * @default true
   */
  ownsPool?: boolean;
  /** The `statementTimeoutMs` of a pool the store created (0: it set no statement timeout). */
  statementTimeoutMs?: number;
  /** True when the call failed while the store prepared its tables (the schema migration) before `operation`. */
  migrating?: boolean;
}

/**
 * The message of a call that waited `connectionTimeoutMillis` in the pool's queue: every
 * connection of the pool was taken by other calls (`pg` says "timeout exceeded when trying to
 * connect" for this only; a connection not made in time is "Connection terminated due to
 * connection timeout").
 */
function poolFullMessage(target: string, context: PostgresCallContext, detail: string): string {
  // Not how many calls wait (it changes from one failed call to the next): one message for all.
  const max = (context.pool as { options?: { max?: unknown } } | null | undefined)?.options?.max;
  const size = typeof max === "number" && Number.isSafeInteger(max) && max > 0 ? `'s ${max}` : "";
  const owned = context.ownsPool !== false;
  const limit = owned ? "connectionTimeoutMs" : "the pool's connectionTimeoutMillis";
  const fix = owned ? "Run fewer runs at once, raise connectionTimeoutMs, or pass a pg.Pool with a bigger `max` as `pool`" : "Run fewer runs at once, give the pool a bigger `max`, or raise its connectionTimeoutMillis";
  return `${STORE}: no connection of the pool${size} to the database at ${target} was free within ${limit}: all were busy with other calls. ${fix} (${detail}).`;
}

/**
 * Where the `statement_timeout` that cancelled a statement comes from: `statementTimeoutMs` when
 * the store set it, else the connection's own (the pool's, the connection string's, the role's).
 */
function statementLimit(context: PostgresCallContext): { limit: string; source: string } {
  if (context.ownsPool === false || context.statementTimeoutMs === 0) {
    // The connection's own statement_timeout ran out: the store set none, and says where it came from.
    const none = context.ownsPool === false ? "on a pool it is given: it is the pool's statement_timeout, " : "with statementTimeoutMs: 0: it is ";
    return {
      limit: "the statement_timeout of its connection",
      source: ` The store sets none ${none}the connection string's options (-c statement_timeout=...) or the database role's (ALTER ROLE ... SET statement_timeout).`,
    };
  }
  return { limit: `statementTimeoutMs${context.statementTimeoutMs === undefined ? "" : ` (${context.statementTimeoutMs} ms)`}`, source: "" };
}

/**
 * A `pg` error as a `RunStoreError`; connection failures say where the store tried to connect: an
 * unreachable server, a refused login, a server without the SSL the connection asks for, a
 * certificate that cannot be verified, a connection the server closed, no free connection in the
 * pool. Timeouts name the limit that ran out (the store's option, or the setting of a pool it was
 * given, per `context`), and the schema migration when it was running. A `listRuns` cursor whose
 * key the database cannot read (a damaged SQLite row's text) is the `InvalidArgumentError` of a
 * damaged cursor instead.
 */
export function wrapPostgresError(operation: string, runId: string | undefined, error: unknown, target: string, subject?: string, context: PostgresCallContext = {}): Error {
  if (RunStoreError.isInstance(error) || RunFinishedError.isInstance(error)) return error;
  const code = codeOf(error);
  if (code !== undefined && (UNREACHABLE.has(code) || REFUSED_LOGIN.has(code))) {
    const reason = REFUSED_LOGIN.has(code) ? `cannot log in to the database at ${target}: ${(error as Error).message}` : `cannot reach the database at ${target}`;
    return new RunStoreError({ operation, runId, message: `${STORE}: ${reason} (${code}).`, cause: error });
  }
  const message = (error as Error | null)?.message ?? "";
  /** What the call was doing: `operation`, or the migration that came before it. */
  const doing = !context.migrating ? operation : operation === "migrate" ? "the migration of its tables" : `the migration of its tables before ${operation}`;
  if (code !== undefined && TERMINATED.has(code)) {
    return new RunStoreError({
      operation,
      runId,
      message: `${STORE}: the database at ${target} closed the connection during ${doing}: it was terminated by an administrator (pg_terminate_backend) or a server restart (${code}: ${message}). A later call connects again.`,
      cause: error,
    });
  }
  if (code === NOT_NOW) {
    return new RunStoreError({ operation, runId, message: `${STORE}: the database at ${target} is starting up or shutting down and accepts no connections now (${code}: ${message}); try again shortly.`, cause: error });
  }
  // The only value of listRuns the database parses is the cursor's key: a text one (a damaged
  // SQLite row's position, see decodeCursor) that no bigint or double is.
  if (operation === "listRuns" && code === "22P02") return damagedCursorError(error);
  // pg's own words, without a code, when the server answers "no" to SSL.
  if (/^The server does not support SSL connections/.test(message)) {
    return new RunStoreError({
      operation,
      runId,
      message: `${STORE}: the database at ${target} does not support SSL connections, which the connection asks for (sslmode in the connection string, or the ssl option); connect without SSL, or enable SSL on the server.`,
      cause: error,
    });
  }
  if (code !== undefined && UNVERIFIED_CERTIFICATE.has(code)) {
    // pg 8 reads sslmode=prefer, require and verify-ca as verify-full (and warns of it once per process).
    return new RunStoreError({
      operation,
      runId,
      message: `${STORE}: cannot verify the SSL certificate of the database at ${target}: ${message} (${code}). pg verifies it for sslmode=prefer, require and verify-ca too (as verify-full): give the server's CA with sslrootcert=<file>, or add uselibpqcompat=true for libpq's meaning of the sslmode (require: encrypted, not verified).`,
      cause: error,
    });
  }
  if (code === "42P01" || code === "3F000") {
    // The tables (or their schema) were there when the store opened: someone dropped them since.
    return new RunStoreError({ operation, runId, reason: "gone", message: `${STORE}: ${doing} found the store's tables gone at ${target}: ${message} (${code}); they were dropped after the store opened them. A new store on an empty schema creates them again.`, cause: error });
  }
  if (code === LOCK_NOT_AVAILABLE) {
    return new RunStoreError({
      operation,
      runId,
      reason: "timeout",
      message: `${STORE}: ${doing} did not obtain a lock at ${target} within the lock_timeout of its connection (${code}: ${message}): another transaction held a row or table it needs (a long transaction, a migration, a LOCK TABLE). The store sets no lock_timeout: it is the connection string's options (-c lock_timeout=...) or the database role's (ALTER ROLE ... SET lock_timeout); raise it, or find what holds the lock (pg_locks, pg_stat_activity). A later call tries again.`,
      cause: error,
    });
  }
  if (code === "57014" && /statement timeout/i.test(message)) {
    const { limit, source } = statementLimit(context);
    return new RunStoreError({ operation, runId, reason: "timeout", message: `${STORE}: ${doing} took longer than ${limit} at ${target}, and the server cancelled it (${message}).${source}`, cause: error });
  }
  if (/Query read timeout/i.test(message)) {
    // The store sets query_timeout with statement_timeout; anything else is the pool's own.
    const limit = context.ownsPool !== false && context.statementTimeoutMs !== 0 ? "statementTimeoutMs" : "the query_timeout of the pool";
    return new RunStoreError({ operation, runId, reason: "timeout", message: `${STORE}: the database at ${target} did not answer ${doing} within ${limit} (${message}).`, cause: error });
  }
  if (/timeout exceeded when trying to connect/i.test(message)) {
    return new RunStoreError({ operation, runId, reason: "timeout", message: poolFullMessage(target, context, message), cause: error });
  }
  if (/connection timeout/i.test(message)) {
    const limit = context.ownsPool === false ? "the pool's connectionTimeoutMillis" : "connectionTimeoutMs";
    return new RunStoreError({ operation, runId, reason: "timeout", message: `${STORE}: could not connect to the database at ${target} within ${limit} (${message}).`, cause: error });
  }
  // pg's words for a connection that ended under a statement, or before it (one not sent).
  if (/Connection terminated/i.test(message) || wasNotSent(error)) {
    return new RunStoreError({ operation, runId, message: `${STORE}: lost the connection to the database at ${target} (${message}).`, cause: error });
  }
  const wrapped = wrapStoreError(STORE, operation, runId, error, subject);
  if (!context.migrating || !RunStoreError.isInstance(wrapped) || wrapped.cause !== error) return wrapped;
  // Failed in the migration the call waited for: say so after what the call was.
  const about = subject !== undefined ? ` for ${subject}` : runId === undefined ? "" : ` for run "${runId}"`;
  const prefix = `${STORE}: ${operation} failed${about}`;
  return new RunStoreError({ operation, runId, message: `${prefix} while migrating its tables${wrapped.message.slice(prefix.length)}`, cause: error });
}
