import { InvalidArgumentError } from "@agentrx/core";
import { RunBusyError, RunStoreError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { closedStoreError, loadDriver, seqError, wrapStoreError } from "./store-errors";

describe("loadDriver", () => {
  it("says which package to install when the driver is missing", async () => {
    const missing = Object.assign(new Error("Cannot find package 'better-sqlite3'"), { code: "ERR_MODULE_NOT_FOUND" });
    const error = await loadDriver("SqliteRunStore", "better-sqlite3", () => Promise.reject(missing)).catch((caught: unknown) => caught);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ operation: "open", cause: missing });
    expect((error as Error).message).toBe('SqliteRunStore needs the "better-sqlite3" package, which is not installed: npm install better-sqlite3');
    const cjsMissing = Object.assign(new Error("Cannot find module 'pg'"), { code: "MODULE_NOT_FOUND" });
    expect(((await loadDriver("PostgresRunStore", "pg", () => Promise.reject(cjsMissing)).catch((caught: unknown) => caught)) as Error).message).toMatch(/npm install pg$/);
  });

  it("tells a driver that fails to load apart from a missing one", async () => {
    const broken = new Error("The module was compiled against a different Node.js version");
    const error = (await loadDriver("SqliteRunStore", "better-sqlite3", () => Promise.reject(broken)).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/could not be loaded \(The module was compiled against a different Node\.js version\)\. Reinstall it: npm install better-sqlite3/);
  });

  it("unwraps a CommonJS module's default export", async () => {
    const driver = () => "driver";
    expect(await loadDriver("S", "d", async () => ({ default: driver }))).toBe(driver);
    expect(await loadDriver("S", "d", async () => driver)).toBe(driver);
  });
});

describe("store errors", () => {
  it("wraps a driver error with the operation, the run, the code and the cause", () => {
    const cause = Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
    const error = wrapStoreError("SqliteRunStore", "write", "r1", cause);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ operation: "write", runId: "r1", cause, message: 'SqliteRunStore: write failed for run "r1": disk I/O error (SQLITE_IOERR)' });
  });

  it("passes its own errors through unchanged", () => {
    const busy = new RunBusyError({ runId: "r1", owner: "a" });
    const invalid = new InvalidArgumentError({ argument: "limit", value: 0, message: "bad" });
    expect(wrapStoreError("S", "claimRun", "r1", busy)).toBe(busy);
    expect(wrapStoreError("S", "listRuns", undefined, invalid)).toBe(invalid);
  });

  it("names the closed store and the operation, and the seq a write needed", () => {
    expect(closedStoreError("PostgresRunStore", "getRun", "r1")).toMatchObject({ operation: "getRun", runId: "r1", message: expect.stringMatching(/^PostgresRunStore is closed/) });
    expect(seqError("S", "r1", 4, 3).message).toMatch(/starts at seq 3, but the run has 4 event\(s\), so the next seq is 5; it repeats a recorded seq/);
    expect(seqError("S", "r1", 4, 7).message).toMatch(/leaves a gap/);
  });
});
