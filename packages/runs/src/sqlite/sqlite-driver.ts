import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { RunStoreError } from "@agentrx/executors";
import type BetterSqlite3 from "better-sqlite3";
import { loadDriver } from "../internal/store-errors";
import { betterSqliteEngineProblem, betterSqliteLoadError, NODE_SQLITE_HINT } from "./better-sqlite3-errors";

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
 * `better-sqlite3` 12 (it is built on Node's V8 addon interface, not Node-API; release 13 is a
 * Node-API addon and loads there when `driver: "better-sqlite3"` asks for it), else `better-sqlite3`.
 */
export function defaultSqliteDriver(): SqliteDriver {
  const runtime = globalThis as { Deno?: unknown; process?: { versions?: { bun?: string } } };
  return runtime.Deno !== undefined || runtime.process?.versions?.bun !== undefined ? "node:sqlite" : "better-sqlite3";
}

/** Opens a database file: the path (or `":memory:"`) and how long to wait for other connections' write locks. */
export type OpenSqlite = (path: string, busyTimeoutMs: number) => SqliteConnection;

/** How each driver's module is imported (tests give others, to play a driver that cannot load). */
export interface SqliteImports {
  "better-sqlite3": () => Promise<unknown>;
  "node:sqlite": () => Promise<unknown>;
}

// A specifier in a variable: bundlers leave it to the runtime, and Node 20's types lack it.
const NODE_SQLITE = "node:sqlite";
const SQLITE_IMPORTS: SqliteImports = { "better-sqlite3": () => import("better-sqlite3"), "node:sqlite": () => import(NODE_SQLITE) };

/** Loads `driver`, or rejects with a `RunStoreError` that says what to install, build or use instead. */
export async function loadSqliteDriver(store: string, driver: SqliteDriver, imports: SqliteImports = SQLITE_IMPORTS): Promise<OpenSqlite> {
  if (driver === "better-sqlite3") {
    // Checked before the package loads: a release built for a later Node.js (better-sqlite3 13
    // needs Node.js 22) crashes the process when it opens its first database, past any catch.
    const problem = betterSqliteEngineProblem(store, installedPackage("better-sqlite3"), globalThis.process?.versions?.node);
    if (problem !== undefined) throw new RunStoreError({ operation: "open", message: problem });
    let Database: typeof BetterSqlite3;
    try {
      Database = await loadDriver<typeof BetterSqlite3>(store, "better-sqlite3", imports["better-sqlite3"]);
      // The package loads its native addon at its first database: open one now, so that an addon
      // that was never built (or was built for another Node.js) is reported as such, not as a file that cannot be opened.
      new Database(":memory:").close();
    } catch (error) {
      throw betterSqliteLoadError(store, error);
    }
    return (path, busyTimeoutMs) => betterSqliteConnection(new Database(path, { timeout: busyTimeoutMs }));
  }
  const { DatabaseSync } = await loadNodeSqlite(store, imports["node:sqlite"]);
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

/**
 * The file of the SQLite package `driver` as this module resolves it (the copy its `import` loads),
 * for the checkpoint worker to load the same copy; `driver` itself for `node:sqlite`; undefined
 * when it cannot be found.
 *
 * @internal
 */
export function sqlitePackagePath(driver: SqliteDriver): string | undefined {
  if (driver === "node:sqlite") return driver;
  // The ESM build resolves from this module; the CommonJS build (where `import.meta` is empty) with its `require`.
  try {
    const meta = import.meta as { resolve?: (specifier: string) => string };
    if (typeof meta.resolve === "function") return fileURLToPath(meta.resolve(driver));
  } catch {
    // Not resolvable from here: try the other ways.
  }
  try {
    if (typeof require === "function") return require.resolve(driver);
  } catch {
    // As above.
  }
  try {
    return createRequire(resolve("package.json")).resolve(driver);
  } catch {
    return undefined;
  }
}

/** The package.json of the installed package `name` (the copy this module loads), or undefined when it cannot be read. */
function installedPackage(name: SqliteDriver): unknown {
  const main = sqlitePackagePath(name);
  if (main === undefined || main === name) return undefined;
  // Up from its main file (better-sqlite3/lib/index.js) to the folder whose package.json names it.
  for (let dir = dirname(main), depth = 0; depth < 4 && dir !== dirname(dir); dir = dirname(dir), depth++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown };
      if (manifest.name === name) return manifest;
    } catch {
      // No package.json here (or not one that reads): look further up.
    }
  }
  return undefined;
}

/** A driver ready to open files, and which one it is. */
export interface ResolvedSqliteDriver {
  driver: SqliteDriver;
  open: OpenSqlite;
}

let fallbackWarned = false;

/**
 * Loads the driver a store was given, or, when it was given none, the default one
 * ({@link defaultSqliteDriver}). When that default is `better-sqlite3` and it cannot be loaded (not
 * installed, its addon never built or built for another Node.js) but the runtime has `node:sqlite`
 * (Node.js 22.13 and later), the store uses `node:sqlite`, which reads and writes the same files,
 * and the process is warned once (`process.emitWarning`, code `AGENTRX_SQLITE_DRIVER_FALLBACK`)
 * with why and how to choose. A driver given explicitly is never replaced.
 */
export async function resolveSqliteDriver(store: string, requested: SqliteDriver | undefined, imports: SqliteImports = SQLITE_IMPORTS): Promise<ResolvedSqliteDriver> {
  const driver = requested ?? defaultSqliteDriver();
  if (requested !== undefined || driver !== "better-sqlite3") return { driver, open: await loadSqliteDriver(store, driver, imports) };
  try {
    return { driver, open: await loadSqliteDriver(store, driver, imports) };
  } catch (error) {
    let open: OpenSqlite;
    try {
      open = await loadSqliteDriver(store, "node:sqlite", imports);
    } catch {
      throw error; // No node:sqlite either (Node.js before 22.13): better-sqlite3's error says what to do.
    }
    if (!fallbackWarned) {
      fallbackWarned = true;
      const why = (error as Error).message.replace(NODE_SQLITE_HINT, "").replace(/\s+/g, " ").trim();
      globalThis.process?.emitWarning?.(
        `${store} uses the built-in "node:sqlite" driver, because "better-sqlite3" cannot be loaded; both read and write the same files. Pass driver: "node:sqlite" to choose it and silence this warning, or fix better-sqlite3 to use it: ${why}`,
        { code: "AGENTRX_SQLITE_DRIVER_FALLBACK" },
      );
    }
    return { driver: "node:sqlite", open };
  }
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

async function loadNodeSqlite(store: string, load: () => Promise<unknown>): Promise<NodeSqliteModule> {
  try {
    return (await load()) as NodeSqliteModule;
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

const RESULT_CODES: Record<number, string> = { 5: "SQLITE_BUSY", 8: "SQLITE_READONLY", 26: "SQLITE_NOTADB" };

/**
 * The SQLite result code of a driver's error as `better-sqlite3` names it (`"SQLITE_BUSY"`), also
 * for `node:sqlite`, whose errors carry it as a number (`errcode`).
 */
export function sqliteErrorCode(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof code === "string" && code.startsWith("SQLITE_")) return code;
  return typeof errcode === "number" ? RESULT_CODES[errcode & 0xff] : undefined;
}
