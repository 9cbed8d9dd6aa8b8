// How SqliteRunStore's drivers are loaded when they cannot be: better-sqlite3 installed but never
// built (npm 12 skips its install script unless `allowScripts` allows it), built for another
// Node.js (NODE_MODULE_VERSION), or not installed; and the default driver's fallback to node:sqlite.
// The modules are injected, so node_modules stays as it is.
import { RunStoreError } from "@agentrx/executors";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { betterSqliteEngineProblem } from "./better-sqlite3-errors";
import { loadSqliteDriver, resolveSqliteDriver, type SqliteImports } from "./sqlite-driver";

/** What `bindings` throws when better_sqlite3.node was never built. */
const unbuilt = () =>
  Object.assign(new Error("Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node\n → /app/node_modules/better-sqlite3/build/Release/better_sqlite3.node"), {
    tries: ["/app/node_modules/better-sqlite3/build/better_sqlite3.node"],
  });

/** What Node.js throws when the addon was built for another Node.js. */
const otherAbi = () =>
  Object.assign(
    new Error(
      "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
    ),
    { code: "ERR_DLOPEN_FAILED" },
  );

const notInstalled = () => Object.assign(new Error("Cannot find package 'better-sqlite3' imported from /app/node_modules/@agentrx/runs/dist/index.js"), { code: "ERR_MODULE_NOT_FOUND" });

/** better-sqlite3 as it loads when its addon does not: the package imports, its constructor throws. */
function brokenBetterSqlite(error: () => Error): () => Promise<unknown> {
  return async () => ({
    default: function Database() {
      throw error();
    },
  });
}

/** A stand-in for node:sqlite (absent from Node 20), on the real better-sqlite3. */
const fakeNodeSqlite = async () => ({
  DatabaseSync: class {
    readonly #db: BetterSqlite3.Database;
    constructor(path: string) {
      this.#db = new BetterSqlite3(path);
    }
    prepare(sql: string) {
      return this.#db.prepare(sql);
    }
    exec(sql: string) {
      this.#db.exec(sql);
    }
    close() {
      this.#db.close();
    }
  },
});

const noNodeSqlite = () => Promise.reject(Object.assign(new Error("No such built-in module: node:sqlite"), { code: "ERR_UNKNOWN_BUILTIN_MODULE" }));

const imports = (betterSqlite3: () => Promise<unknown>, nodeSqlite: () => Promise<unknown> = noNodeSqlite): SqliteImports => ({ "better-sqlite3": betterSqlite3, "node:sqlite": nodeSqlite });

/** The `RunStoreError` `promise` rejects with (failing the test when it is anything else). */
async function storeError(promise: Promise<unknown>): Promise<RunStoreError> {
  const error = await rejectionOf(promise);
  expect(RunStoreError.isInstance(error)).toBe(true);
  return error as unknown as RunStoreError;
}

afterEach(() => vi.restoreAllMocks());

describe("loading better-sqlite3 when its addon cannot load", () => {
  it("says the addon was never built, and what to run, rather than passing on 'Could not locate the bindings file'", async () => {
    const { message, cause, operation } = await storeError(loadSqliteDriver("SqliteRunStore", "better-sqlite3", imports(brokenBetterSqlite(unbuilt))));
    expect(operation).toBe("open");
    expect(message).toMatch(/^SqliteRunStore: the "better-sqlite3" package is installed, but its native addon was never built/);
    expect(message).toMatch(/allowScripts/);
    expect(message).toContain("npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3");
    expect(message).toContain('On Node.js 22.13 or later, driver: "node:sqlite" uses the built-in SQLite and needs no addon');
    expect(message).toContain("(Could not locate the bindings file)");
    expect(message).not.toContain("\n");
    expect((cause as Error).message).toMatch(/^Could not locate the bindings file/);
  });

  it("says the addon was built for another Node.js, with both ABI versions, and to rebuild it", async () => {
    const error = await storeError(loadSqliteDriver("SqliteRunStore", "better-sqlite3", imports(brokenBetterSqlite(otherAbi))));
    expect(error.message).toMatch(/^SqliteRunStore: the "better-sqlite3" native addon was built for another Node\.js version \(NODE_MODULE_VERSION 115; this one, Node\.js v[\d.]+, needs 127\): run `npm rebuild better-sqlite3` with this Node\.js/);
    expect(error.message).toContain('driver: "node:sqlite"');
    expect(error.message).not.toContain("install-scripts");
    expect(error.message).not.toContain("\n");
  });

  it("says so too when the addon fails as the package is imported, and for another system's build", async () => {
    const atImport = await storeError(loadSqliteDriver("SqliteRunStore", "better-sqlite3", imports(() => Promise.reject(unbuilt()))));
    expect(atImport.message).toMatch(/native addon was never built.*npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3/);
    const elf = () => Object.assign(new Error("/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node: invalid ELF header"), { code: "ERR_DLOPEN_FAILED" });
    const foreign = await storeError(loadSqliteDriver("SqliteRunStore", "better-sqlite3", imports(brokenBetterSqlite(elf))));
    expect(foreign.message).toMatch(/^SqliteRunStore: the "better-sqlite3" native addon cannot be loaded on this system .*invalid ELF header.*: run `npm rebuild better-sqlite3` on this machine/);
  });

  it("adds the node:sqlite alternative to the 'not installed' error", async () => {
    const error = await storeError(loadSqliteDriver("SqliteRunStore", "better-sqlite3", imports(() => Promise.reject(notInstalled()))));
    expect(error.message).toMatch(/^SqliteRunStore needs the "better-sqlite3" package, which is not installed: npm install better-sqlite3\. On Node\.js 22\.13 or later, driver: "node:sqlite"/);
  });

  it("loads a working better-sqlite3 as before", async () => {
    const open = await loadSqliteDriver("SqliteRunStore", "better-sqlite3", imports(async () => ({ default: BetterSqlite3 })));
    const db = open(":memory:", 0);
    expect(db.prepare("SELECT 1 AS one").get()).toEqual({ one: 1 });
    db.close();
  });
});

describe("the default driver's fallback to node:sqlite", () => {
  it("opens with node:sqlite when better-sqlite3 cannot load and node:sqlite can, with one warning saying why and how to choose", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const resolved = await resolveSqliteDriver("SqliteRunStore", undefined, imports(brokenBetterSqlite(unbuilt), fakeNodeSqlite));
    expect(resolved.driver).toBe("node:sqlite");
    const db = resolved.open(":memory:", 0);
    expect(db.prepare("SELECT 2 AS two").get()).toEqual({ two: 2 });
    db.close();
    expect(warn).toHaveBeenCalledTimes(1);
    const [message, options] = warn.mock.calls[0] as [string, { code: string }];
    expect(options).toMatchObject({ code: "AGENTRX_SQLITE_DRIVER_FALLBACK" });
    expect(message).toMatch(/^SqliteRunStore uses the built-in "node:sqlite" driver, because "better-sqlite3" cannot be loaded; both read and write the same files\. Pass driver: "node:sqlite" to choose it and silence this warning, or fix better-sqlite3 to use it: SqliteRunStore: .*never built .*npm rebuild better-sqlite3/);
    // Once per process.
    await resolveSqliteDriver("SqliteRunStore", undefined, imports(brokenBetterSqlite(unbuilt), fakeNodeSqlite));
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("does not fall back from a driver given explicitly, nor where node:sqlite is missing", async () => {
    const explicit = await storeError(resolveSqliteDriver("SqliteRunStore", "better-sqlite3", imports(brokenBetterSqlite(otherAbi), fakeNodeSqlite)));
    expect(explicit.message).toMatch(/built for another Node\.js version/);
    const noBuiltIn = await storeError(resolveSqliteDriver("SqliteRunStore", undefined, imports(brokenBetterSqlite(unbuilt))));
    expect(noBuiltIn.message).toMatch(/never built/);
  });

  it("uses better-sqlite3 when it loads", async () => {
    const resolved = await resolveSqliteDriver("SqliteRunStore", undefined, imports(async () => ({ default: BetterSqlite3 }), fakeNodeSqlite));
    expect(resolved.driver).toBe("better-sqlite3");
  });
});

describe("a better-sqlite3 release for a later Node.js (refused before it loads: its addon would crash the process)", () => {
  const release13 = { name: "better-sqlite3", version: "13.2.0", engines: { node: ">=22" } };

  it("refuses better-sqlite3 13 on Node.js 20, naming both versions and the release to install", () => {
    expect(betterSqliteEngineProblem("SqliteRunStore", release13, "20.19.6")).toBe(
      'SqliteRunStore: the installed "better-sqlite3" 13.2.0 needs Node.js >=22, and this is Node.js 20.19.6: its native addon would crash this process. Install the release for this Node.js: npm install better-sqlite3@12 (it supports Node.js 20), or run Node.js 22 or later.',
    );
    expect(betterSqliteEngineProblem("SqliteRunStore", { ...release13, engines: { node: ">= 20.19.3" } }, "v20.19.2")).toContain("needs Node.js >= 20.19.3, and this is Node.js 20.19.2");
  });

  it("takes what the running Node.js satisfies, and any bound it cannot read, as no problem", () => {
    for (const node of ["22.0.0", "22.23.3", "24.1.0", "v26.10.0"]) expect(betterSqliteEngineProblem("SqliteRunStore", release13, node)).toBeUndefined();
    expect(betterSqliteEngineProblem("SqliteRunStore", { ...release13, engines: { node: ">=20.19.3" } }, "20.19.3")).toBeUndefined();
    expect(betterSqliteEngineProblem("SqliteRunStore", { ...release13, engines: { node: "20.x || 22.x || >=23" } }, "18.0.0")).toBeUndefined();
    expect(betterSqliteEngineProblem("SqliteRunStore", { name: "better-sqlite3", version: "12.11.1" }, "20.19.6")).toBeUndefined();
    expect(betterSqliteEngineProblem("SqliteRunStore", undefined, "20.19.6")).toBeUndefined();
    expect(betterSqliteEngineProblem("SqliteRunStore", release13, undefined)).toBeUndefined();
  });

  it("lets the release this repository installs load on this Node.js", async () => {
    const open = await loadSqliteDriver("SqliteRunStore", "better-sqlite3");
    const db = open(":memory:", 0);
    expect(db.prepare("SELECT 1 AS one").get()).toEqual({ one: 1 });
    db.close();
  });
});
