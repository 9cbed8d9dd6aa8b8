import { RunStoreError } from "@agentrx/executors";
import type BetterSqlite3 from "better-sqlite3";
import { loadDriver } from "../internal/store-errors";

/**
 * The SQLite binding a `SqliteRunStore` opens its file with: the `better-sqlite3` package (a
 * native addon for Node.js), or the runtime's built-in `node:sqlite` module (Deno 2, Bun 1, and
 * Node.js from 22.13).
 *
 * @example
 * ```ts
 * import { SqliteRunStore, type SqliteDriver } from "@agentrx/runs";
 *
 * const driver: SqliteDriver = "node:sqlite"; // no native addon: Deno, Bun, Node.js 22.13+
 * const store = new SqliteRunStore({ path: ".agentrx/runs.db", driver });
 * ```
 */
export type SqliteDriver = "better-sqlite3" | "node:sqlite";

/** The drivers `SqliteRunStoreOptions.driver` accepts. */
export const SQLITE_DRIVERS: readonly SqliteDriver[] = ["better-sqlite3", "node:sqlite"];

/** A prepared statement, as both drivers offer it. */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** An open database, as the store uses it, whichever driver opened it. */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  /** `fn` as one `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back when it throws. */
  immediate<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
}

/**
 * The driver used when none is given: `node:sqlite` under Deno and Bun, which cannot load
 * `better-sqlite3` (it is built on Node's V8 addon interface, not Node-API), else `better-sqlite3`.
 */
export function defaultSqliteDriver(): SqliteDriver {
  const runtime = globalThis as { Deno?: unknown; process?: { versions?: { bun?: string } } };
  return runtime.Deno !== undefined || runtime.process?.versions?.bun !== undefined ? "node:sqlite" : "better-sqlite3";
}

/** Opens a database file: the path (or `":memory:"`) and how long to wait for other connections' write locks. */
export type OpenSqlite = (path: string, busyTimeoutMs: number) => SqliteConnection;

/** Loads `driver`, or rejects with a `RunStoreError` that says what to install or use instead. */
export async function loadSqliteDriver(store: string, driver: SqliteDriver): Promise<OpenSqlite> {
  if (driver === "better-sqlite3") {
    const Database = await loadDriver<typeof BetterSqlite3>(store, "better-sqlite3", () => import("better-sqlite3"));
    return (path, busyTimeoutMs) => betterSqliteConnection(new Database(path, { timeout: busyTimeoutMs }));
  }
  const { DatabaseSync } = await loadNodeSqlite(store);
  return (path, busyTimeoutMs) => {
    const db = new DatabaseSync(path);
    try {
      db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    } catch (error) {
      db.close();
      throw error;
    }
    return nodeSqliteConnection(db);
  };
}

function betterSqliteConnection(db: BetterSqlite3.Database): SqliteConnection {
  return {
    prepare: (sql) => db.prepare(sql),
    exec: (sql) => void db.exec(sql),
    immediate: (fn) => {
      const transaction = db.transaction(fn);
      return (...args) => transaction.immediate(...args);
    },
    close: () => void db.close(),
  };
}

/** The part of `node:sqlite` the store uses (declared here: Node 20's types do not have the module). */
interface NodeSqliteModule {
  DatabaseSync: new (path: string) => NodeSqliteDatabase;
}

interface NodeSqliteDatabase {
  prepare(sql: string): {
    run(...params: unknown[]): { changes: number | bigint };
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
  };
  exec(sql: string): void;
  close(): void;
}

async function loadNodeSqlite(store: string): Promise<NodeSqliteModule> {
  // A specifier in a variable: bundlers leave it to the runtime, and Node 20's types lack it.
  const specifier = "node:sqlite";
  try {
    return (await import(specifier)) as NodeSqliteModule;
  } catch (cause) {
    throw new RunStoreError({
      operation: "open",
      message: `${store}: driver "node:sqlite" needs a runtime with the built-in node:sqlite module (Deno 2, Bun 1, Node.js 22.13 or later); this one has none (${(cause as Error)?.message ?? String(cause)}). Use driver "better-sqlite3" on older Node.js.`,
      cause,
    });
  }
}

function nodeSqliteConnection(db: NodeSqliteDatabase): SqliteConnection {
  return {
    prepare: (sql) => {
      const statement = db.prepare(sql);
      return {
        run: (...params) => ({ changes: Number(statement.run(...params).changes) }),
        get: (...params) => statement.get(...params),
        all: (...params) => statement.all(...params),
      };
    },
    exec: (sql) => db.exec(sql),
    immediate:
      (fn) =>
      (...args) => {
        db.exec("BEGIN IMMEDIATE");
        let result;
        try {
          result = fn(...args);
        } catch (error) {
          try {
            db.exec("ROLLBACK");
          } catch {
            // SQLite rolls some failed transactions back by itself (SQLITE_FULL, SQLITE_IOERR): nothing is left to undo.
          }
          throw error;
        }
        try {
          db.exec("COMMIT");
        } catch (error) {
          // A COMMIT that fails (SQLITE_BUSY) leaves the transaction open: end it, so a retry can begin anew.
          try {
            db.exec("ROLLBACK");
          } catch {
            // Already rolled back by SQLite.
          }
          throw error;
        }
        return result;
      },
    close: () => db.close(),
  };
}

const RESULT_CODES: Record<number, string> = { 5: "SQLITE_BUSY", 26: "SQLITE_NOTADB" };

/**
 * The SQLite result code of a driver's error as `better-sqlite3` names it (`"SQLITE_BUSY"`), also
 * for `node:sqlite`, whose errors carry it as a number (`errcode`).
 */
export function sqliteErrorCode(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof code === "string" && code.startsWith("SQLITE_")) return code;
  return typeof errcode === "number" ? RESULT_CODES[errcode & 0xff] : undefined;
}
