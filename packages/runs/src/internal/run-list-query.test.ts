import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ListRunsOptions, RunStore } from "@agentrx/executors";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { compareRows, decodeCursor, encodeCursor } from "./run-list-query";
import type { RunRow } from "./run-record";

const dir = mkdtempSync(join(tmpdir(), "agentrx-run-list-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every run `listRuns` lists, a page of one at a time, following each page's last cursor. */
async function pageByPage(store: RunStore, options: ListRunsOptions): Promise<string[]> {
  const listed: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const [run] = await store.listRuns({ ...options, limit: 1, ...(cursor === undefined ? {} : { cursor }) });
    if (run === undefined) return listed;
    listed.push(run.runId);
    cursor = run.cursor;
  }
  throw new Error(`paging did not end: ${listed.join(", ")}`);
}

describe("listRuns' cursors on a damaged row", () => {
  it("page past an SQLite row whose time or cost is text, in both orders, the row still listed as corrupt", async () => {
    const path = join(dir, "damaged.db");
    const store = new SqliteRunStore({ path });
    const at = Date.now();
    for (const [index, runId] of ["r1", "r2", "r3", "r4"].entries()) await store.createRun({ runId, inputs: { input: runId }, status: "queued", at: at + index });
    const sqlite = new Database(path);
    sqlite.prepare("UPDATE agentrx_runs SET created_at = 'abc', updated_at = 'abc', cost_usd = 'abc' WHERE run_id = 'r2'").run();
    sqlite.prepare("UPDATE agentrx_runs SET created_at = 'abd', updated_at = 'abd', cost_usd = 'abd' WHERE run_id = 'r3'").run();
    sqlite.close();
    try {
      const [damaged] = await store.listRuns({ limit: 1 });
      expect(damaged).toMatchObject({ runId: "r3", error: 'Corrupt record: its created_at "abd" is not a time (whole epoch milliseconds).' });
      // SQLite sorts text after every number, texts by their bytes.
      // (r1 and r4 cost nothing, and equal keys are ordered by run id.)
      for (const sort of ["createdAt", "updatedAt", "cost"] as const) {
        expect(await pageByPage(store, { sort, order: "asc" })).toEqual(["r1", "r4", "r2", "r3"]);
        expect(await pageByPage(store, { sort, order: "desc" })).toEqual(["r3", "r2", "r4", "r1"]);
      }
    } finally {
      await store.close();
    }
  });
});

describe("decodeCursor", () => {
  it("takes back the text key a damaged row's cursor holds, and refuses text a store would hold as a number", () => {
    expect(decodeCursor(encodeCursor("createdAt", "desc", "abc", "r2"), "createdAt", "desc")).toEqual({ key: "abc", runId: "r2" });
    expect(decodeCursor(encodeCursor("cost", "asc", "", "r2"), "cost", "asc")).toEqual({ key: "", runId: "r2" });
    for (const key of ["1", " 12 ", "-3", "0.5", ".5", "1e3", "+2.5E-1\n"]) {
      expect(() => decodeCursor(encodeCursor("createdAt", "desc", key, "r2"), "createdAt", "desc"), key).toThrow(/options\.cursor is not a cursor listRuns made \(its position is damaged\)/);
    }
  });
});

describe("compareRows", () => {
  it("orders as SQLite does: numbers by value, then texts by code point, then run ids", () => {
    const row = (created_at: number | string, run_id: string) => ({ created_at, run_id }) as unknown as RunRow;
    const filter = { sort: "createdAt", order: "asc", limit: 1 } as const;
    expect(compareRows(row(5, "a"), { key: "abc", runId: "a" }, filter)).toBeLessThan(0);
    expect(compareRows(row("abc", "a"), { key: 10 ** 15, runId: "a" }, filter)).toBeGreaterThan(0);
    expect(compareRows(row("abd", "a"), { key: "abc", runId: "z" }, filter)).toBeGreaterThan(0);
    expect(compareRows(row("abc", "b"), { key: "abc", runId: "a" }, filter)).toBeGreaterThan(0);
    expect(compareRows(row(5, "a"), { key: 7, runId: "a" }, { ...filter, order: "desc" })).toBeGreaterThan(0);
  });
});

const database = await postgresTestDatabase("listRuns cursors on PostgreSQL");

describe.skipIf(database.skip)("listRuns on PostgreSQL given a text key", () => {
  afterAll(() => database.drop());

  it("refuses it with an InvalidArgumentError naming options.cursor, as the other stores refuse a damaged cursor", async () => {
    database.assertReachable();
    const store = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
    try {
      await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: Date.now() });
      for (const sort of ["createdAt", "cost"] as const) {
        const error = await store.listRuns({ sort, cursor: encodeCursor(sort, "desc", "abc", "r1") }).catch((caught: unknown) => caught as Error & { argument?: string });
        expect(error).toMatchObject({ name: "InvalidArgumentError", argument: "options.cursor" });
        expect((error as Error).message).toMatch(/^RunStore\.listRuns: options\.cursor is not a cursor listRuns made \(its position is damaged\)/);
      }
    } finally {
      await store.close();
    }
  });
});
