import { existsSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { RunStore } from "@agentrx/executors";
import { loadDriver } from "../internal/store-errors";
import { NODE_SQLITE_HINT } from "../sqlite/better-sqlite3-errors";
import { PostgresRunStore } from "../postgres/index";
import { describeTarget, wrapPostgresError } from "../postgres/postgres-errors";
import { parsePostgresUrl, POSTGRES_URL } from "../postgres/postgres-url";
import { SqliteRunStore } from "../sqlite/index";
import { urlScheme } from "../internal/url-scheme";
import { RunStoreError } from "@agentrx/executors";
import { type SqliteConnection, type SqliteDriver, resolveSqliteDriver, sqliteErrorCode } from "../sqlite/sqlite-driver";
import { CliError, usageError } from "./cli-error";
import { nodeSqliteHint } from "./node-sqlite-hint";
import { quoteValue } from "./quote-value";
import { redact } from "../internal/redact";

/** Where the runs are, as the command line and the environment say. */
export interface RunStoreLocation {
  /** `--db`: a file path or a `postgres://` URL. */
  db?: string;
  /** `--schema`: the PostgreSQL schema. */
  schema?: string;
  env: Record<string, string | undefined>;
  cwd: string;
  /** How long PostgreSQL may take to accept the connection and answer the first query. @default 5000 */
  connectTimeoutMs?: number;
}

/** An opened run store and how to name it to a person (never with a password). */
export interface OpenedRunStore {
  store: RunStore;
  /** E.g. `SQLite .agentrx/runs.db`, `PostgreSQL 127.0.0.1:5432/app, schema agentrx`. */
  label: string;
  /** The SQLite store's file (absolute), which no output of the command may overwrite; absent for PostgreSQL. */
  file?: string;
}

/** The default SQLite file, relative to the working directory. */
export const DEFAULT_RUNS_DB = ".agentrx/runs.db";

/** How long connecting to PostgreSQL may take before the server counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Opens the run store the command works on: `--db`, else `AGENTRX_RUNS_DB` (what the examples
 * record into), else `DATABASE_URL` when it is a `postgres://` URL, else `.agentrx/runs.db`. A
 * `postgres://` or `postgresql://` URL opens a `PostgresRunStore` in `--schema` (or the URL's
 * `?schema=`; default `agentrx`); another URL (`mysql://`, `sqlite:///`, `file:`) is a usage
 * error; anything else is an SQLite file. A probe checks first that the
 * store answers and holds AgentRx runs (an `agentrx_runs` table), so a wrong path, an unreachable
 * server or another application's database is one clear error, and nothing is created or migrated
 * in a database that is not a run store.
 *
 * @internal
 */
export async function openRunStore(location: RunStoreLocation): Promise<OpenedRunStore> {
  const { env, cwd } = location;
  const fromDatabaseUrl = env["DATABASE_URL"] !== undefined && POSTGRES_URL.test(env["DATABASE_URL"]) ? env["DATABASE_URL"] : undefined;
  const fromEnv = nonEmpty(env["AGENTRX_RUNS_DB"]);
  const db = location.db ?? fromEnv ?? fromDatabaseUrl ?? DEFAULT_RUNS_DB;
  if (POSTGRES_URL.test(db)) return openPostgres(db, location.schema, location.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
  // Another database's URL (`mysql://`, `sqlite:///runs.db`, `file:runs.db?mode=ro`) is no file
  // path: read as one, it would name a file that is not there.
  const scheme = urlScheme(db);
  if (scheme !== undefined) {
    throw usageError(`${location.db === undefined && fromEnv !== undefined ? "AGENTRX_RUNS_DB" : "--db"} ${redact(db)} is a ${scheme}: URL; agentrx reads an SQLite file (give its path) or PostgreSQL (a postgres:// or postgresql:// URL)`);
  }
  return openSqlite(db, location.schema, cwd);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

async function openPostgres(db: string, schemaFlag: string | undefined, timeoutMs: number): Promise<OpenedRunStore> {
  const parsed = parsePostgresUrl(db);
  if (parsed === undefined) throw usageError(`--db ${redact(db)} is not a valid postgres:// URL`);
  const { url, noHost, schema: fromUrl, connectionString } = parsed;
  if (schemaFlag !== undefined && fromUrl !== undefined && schemaFlag !== fromUrl) {
    throw usageError(`--schema ${schemaFlag} and the URL's ?schema=${fromUrl} differ; give one`);
  }
  const schema = schemaFlag ?? fromUrl ?? "agentrx";
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw usageError(`--schema must be letters, digits and underscores, not starting with a digit; got ${quoteValue(schema)}`);
  // Without a host in the URL, `pg` connects to its `?host=` (a Unix socket's directory, say).
  const target = noHost ? `${url.searchParams.get("host") ?? "localhost"}:${url.searchParams.get("port") ?? (url.port || "5432")}${url.pathname}` : describeTarget(connectionString, undefined);
  const label = `PostgreSQL ${target}, schema ${schema}`;
  await probePostgres(connectionString, schema, label, target, timeoutMs);
  return { store: new PostgresRunStore({ connectionString, schema }), label };
}

async function openSqlite(db: string, schema: string | undefined, cwd: string): Promise<OpenedRunStore> {
  if (schema !== undefined) throw usageError("--schema is for a PostgreSQL store (--db postgres://...); an SQLite file has no schemas");
  const path = resolve(cwd, db);
  const shown = relative(cwd, path).startsWith("..") ? path : relative(cwd, path) || path;
  if (!existsSync(path)) {
    throw new CliError({
      message: `no run store at ${shown}: record a run first (an executor with \`store: new SqliteRunStore()\` records into ${DEFAULT_RUNS_DB}), or pass --db <file> or --db postgres://...`,
    });
  }
  if (statSync(path).isDirectory()) throw new CliError({ message: `${shown} is a directory, not an SQLite run store; pass --db <file>` });
  // The store uses the driver the probe found (the default's fallback included), and the process is warned once at most.
  const driver = await probeSqlite(path, shown);
  return { store: new SqliteRunStore({ path, driver }), label: `SQLite ${shown}`, file: path };
}

/**
 * Fails unless `path` (an existing file) is an SQLite database with a run store's table. Opens it
 * with the driver a store given no `driver` uses (`better-sqlite3` under Node.js, or `node:sqlite`
 * where that cannot load and the runtime has it; `node:sqlite` under Deno and Bun), only reads, and
 * resolves with that driver.
 */
async function probeSqlite(path: string, shown: string): Promise<SqliteDriver> {
  const { driver, open } = await driverOf(resolveSqliteDriver("agentrx", undefined));
  let db: SqliteConnection | undefined;
  try {
    db = open(path, 1_000);
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'agentrx_runs'").get();
    if (table === undefined) throw new CliError({ message: `${shown} is an SQLite database without AgentRx runs (no agentrx_runs table); pass the run store's file with --db` });
  } catch (error) {
    if (CliError.isInstance(error)) throw error;
    const code = sqliteErrorCode(error);
    if (code === "SQLITE_NOTADB") throw new CliError({ message: `${shown} is not an SQLite database, so not an AgentRx run store; pass the run store's file with --db`, cause: error });
    throw new CliError({ message: `cannot open ${shown}: ${(error as Error).message}${code === undefined ? "" : ` (${code})`}`, cause: error });
  } finally {
    db?.close();
  }
  return driver;
}

/**
 * The loaded driver, or a {@link CliError} with the loader's message (what to install or build),
 * without the `agentrx:` the command puts before every error itself. The store's advice to pass
 * `driver: "node:sqlite"` (an option the command has not: it uses `node:sqlite` by itself where
 * that loads) becomes what this Node.js needs for it (see {@link nodeSqliteHint}).
 */
async function driverOf<T>(loading: Promise<T>): Promise<T> {
  try {
    return await loading;
  } catch (error) {
    if (!RunStoreError.isInstance(error)) throw error;
    const hint = nodeSqliteHint(globalThis.process?.versions?.node ?? "0");
    const message = error.message.replace(/^agentrx: /, "").replace(` ${NODE_SQLITE_HINT}`, hint === "" ? "" : ` ${hint}`);
    throw new CliError({ message, cause: error });
  }
}

/**
 * Fails unless the server answers within `timeoutMs` and `schema` holds a run store's table;
 * creates nothing. A server that accepts the connection and then says nothing (a wrong port, a
 * firewall that drops packets) counts as unreachable after `timeoutMs`, not after the system's
 * TCP timeout.
 */
async function probePostgres(connectionString: string, schema: string, label: string, target: string, timeoutMs: number): Promise<void> {
  type Client = { connect(): Promise<void>; query(text: string, values: unknown[]): Promise<{ rows: { found: string | null }[] }>; end(): Promise<void>; on(event: "error", listener: () => void): void };
  type ClientConfig = { connectionString: string; connectionTimeoutMillis: number; query_timeout: number };
  const pg = await driverOf(loadDriver<{ Client: new (config: ClientConfig) => Client }>("agentrx", "pg", () => import("pg")));
  const client = withoutSslModeWarning(() => new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs }));
  client.on("error", () => undefined); // a dropped connection fails the query below
  try {
    await client.connect();
    const { rows } = await client.query("SELECT to_regclass($1)::text AS found", [`"${schema}".agentrx_runs`]);
    if (!rows[0]?.found) throw new CliError({ message: `${label} has no AgentRx runs (no ${schema}.agentrx_runs table); pick the schema with --schema or ?schema=` });
  } catch (error) {
    if (CliError.isInstance(error)) throw error;
    // `pg` says "timeout expired" (connecting) or "Query read timeout" (the first query).
    if (/timeout expired|connection timeout|query read timeout/i.test((error as Error | null)?.message ?? "")) {
      throw new CliError({ message: `cannot reach the database at ${target}: no answer within ${timeoutMs / 1000} s; check the host and port in --db and that PostgreSQL is up there`, cause: error });
    }
    throw new CliError({ message: wrapPostgresError("open", undefined, error, target).message.replace(/^PostgresRunStore: /, ""), cause: error });
  } finally {
    // Not awaited: ending a connection the server never answered can wait as long again.
    void client.end().catch(() => undefined);
  }
}

/**
 * `create()` (which parses a connection string) without the process warning `pg` gives once per
 * process for `sslmode=prefer`, `require` or `verify-ca`: nine lines on stderr before the command's
 * answer. What it says matters when a certificate cannot be verified, and that error says it (see
 * `wrapPostgresError`).
 */
function withoutSslModeWarning<T>(create: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (/^SECURITY WARNING: The SSL modes /.test(typeof warning === "string" ? warning : warning.message)) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return create();
  } finally {
    process.emitWarning = emitWarning;
  }
}
