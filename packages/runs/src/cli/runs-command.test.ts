// `agentrx runs`: its next-page hint, and the values of its filters.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { agentrxIn, type CliResult } from "./cli-test-helpers";

const dir = mkdtempSync(join(tmpdir(), "agentrx-runs-"));
const db = join(dir, "other.db");
const START = Date.UTC(2023, 10, 14, 9, 0);

function agentrx(args: string[]): Promise<CliResult> {
  return agentrxIn(dir, args, { env: {} });
}

/** The cursor of a page's next-page hint, which must start with `command`. */
function nextCursor(stdout: string, command: string): string {
  const line = /^Next page: (.*)$/m.exec(stdout)?.[1];
  expect(line).toBeDefined();
  expect(line!.startsWith(`${command} --cursor `)).toBe(true);
  return line!.slice(`${command} --cursor `.length);
}

beforeAll(async () => {
  const store = new SqliteRunStore({ path: db });
  for (const [index, runId] of ["r1", "r2", "r3"].entries()) await store.createRun({ runId, inputs: { input: runId }, status: "queued", at: START + index * 60_000 });
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentrx runs paging", () => {
  it("repeats --db in the next-page hint, and offers no next page after the last run, even on a full page", async () => {
    const first = await agentrx(["runs", "--db", db, "--limit", "2"]);
    expect(first.stdout.match(/^r\d /gm)).toEqual(["r3 ", "r2 "]);
    const cursor = nextCursor(first.stdout, `agentrx runs --db ${db} --limit 2`);
    // The second page holds the last run: it offers no page after it.
    const second = await agentrx(["runs", "--db", db, "--limit", "2", "--cursor", cursor]);
    expect(second.stdout.match(/^r\d /gm)).toEqual(["r1 "]);
    expect(second.stdout).not.toContain("Next page");
    // A page exactly full with the last runs.
    const all = await agentrx(["runs", "--db", db, "--limit", "3"]);
    expect(all.stdout.match(/^r\d /gm)).toEqual(["r3 ", "r2 ", "r1 "]);
    expect(all.stdout).not.toContain("Next page");
    const json = JSON.parse((await agentrx(["runs", "--db", db, "--limit", "2", "--json"])).stdout) as { runId: string }[];
    expect(json.map((run) => run.runId)).toEqual(["r3", "r2"]);
  });

  it("says there are no more runs on a page after the last one", async () => {
    const first = await agentrx(["runs", "--db", db, "--limit", "1", "--order", "asc", "--since", "2023-11-14T09:01Z"]);
    const cursor = nextCursor(first.stdout, `agentrx runs --db ${db} --order asc --since 2023-11-14T09:01Z --limit 1`);
    const past = await agentrx(["runs", "--db", db, "--order", "asc", "--since", "2023-11-14T09:01Z", "--limit", "1", "--cursor", cursor]);
    expect(past.stdout.match(/^r\d /gm)).toEqual(["r3 "]);
    const store = new SqliteRunStore({ path: db });
    const lastCursor = (await store.listRuns({ order: "asc" })).at(-1)!.cursor!;
    const oldestCursor = (await store.listRuns()).at(-1)!.cursor!;
    await store.close();
    const empty = await agentrx(["runs", "--db", db, "--order", "asc", "--cursor", lastCursor]);
    expect((await agentrx(["runs", "--db", db, "--cursor", oldestCursor])).stdout).toMatch(/^No more runs in SQLite .* after this cursor\.\n$/);
    expect(empty).toMatchObject({ code: 0, stdout: expect.stringMatching(/^No more runs in SQLite .* after this cursor that match these filters\.\n$/) });
  });
});

describe("agentrx runs values", () => {
  it("takes an amount written without its leading zero", async () => {
    for (const amount of [".5", "$.5", "0.5", "5."]) {
      const result = await agentrx(["runs", "--db", db, "--min-cost", amount]);
      expect(result, amount).toMatchObject({ code: 0, stderr: "" });
    }
    expect(await agentrx(["runs", "--db", db, "--min-cost", "."])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--min-cost must be an amount of US dollars/) });
  });

  it("refuses a UTC offset no time zone has, rather than shifting the time", async () => {
    for (const [since, offset] of [["2023-11-14T10:00+25:00", "+25:00"], ["2023-11-14T10:00-14:30", "-14:30"], ["2023-11-14T10:00+05:75", "+05:75"], ["2023-11-14T10:00+0575", "+0575"]]) {
      const result = await agentrx(["runs", "--db", db, "--since", since!]);
      expect(result.code, since).toBe(2);
      expect(result.stderr).toContain(`--since must be a date`);
      expect(result.stderr).toContain(`: ${offset} is not a UTC offset (from -14:00 to +14:00, minutes below 60)`);
    }
    // The extremes are time zones: Kiribati (+14:00) and Baker Island (-12:00).
    for (const since of ["2023-11-14T10:00+14:00", "2023-11-14T10:00-12:00", "2023-11-14T10:00+05:45"]) expect((await agentrx(["runs", "--db", db, "--since", since])).code, since).toBe(0);
    // 09:01 in +01:00 is 08:01 UTC: every run is after it.
    const shifted = await agentrx(["runs", "--db", db, "--since", "2023-11-14T09:01+01:00"]);
    expect(shifted.stdout.match(/^r\d /gm)).toEqual(["r3 ", "r2 ", "r1 "]);
  });
});

const database = await postgresTestDatabase("agentrx runs paging on PostgreSQL");

describe.skipIf(database.skip)("agentrx runs paging on PostgreSQL", () => {
  beforeAll(async () => {
    database.assertReachable();
    const store = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
    for (const [index, runId] of ["p1", "p2"].entries()) await store.createRun({ runId, inputs: { input: runId }, status: "queued", at: START + index * 60_000 });
    await store.close();
  });
  afterAll(() => database.drop());

  it("repeats --db without its password, and --schema, in the next-page hint", async () => {
    const url = new URL(database.connectionString);
    url.password = "s3cret";
    url.searchParams.set("password", "s3cret");
    const result = await agentrx(["runs", "--db", url.href, "--schema", database.schema, "--limit", "1"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).not.toContain("s3cret");
    const shown = new URL(url.href);
    shown.password = "";
    shown.searchParams.delete("password");
    const cursor = nextCursor(result.stdout, `agentrx runs --db ${shown.href} --schema ${database.schema} --limit 1`);
    const next = await agentrx(["runs", "--db", database.connectionString, "--schema", database.schema, "--limit", "1", "--cursor", cursor]);
    expect(next.stdout.match(/^p\d /gm)).toEqual(["p1 "]);
  });
});
