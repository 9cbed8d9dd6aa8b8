// `agentrx` given an option more than once: `--status` adds up (as the comma form, and as the
// `ui`'s repeated `status=`), every other option that takes a value is refused rather than the
// last one silently kept.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../sqlite/index";
import { agentrxIn, type CliResult } from "./cli-test-helpers";

const dir = mkdtempSync(join(tmpdir(), "agentrx-repeated-"));
const db = join(dir, "runs.db");
const START = Date.UTC(2023, 10, 14, 9, 0);

function agentrx(args: string[]): Promise<CliResult> {
  return agentrxIn(dir, args, { env: {} });
}

function runIds(result: CliResult): string[] {
  expect(result.stderr).toBe("");
  return (JSON.parse(result.stdout) as { runId: string }[]).map((run) => run.runId);
}

beforeAll(async () => {
  const store = new SqliteRunStore({ path: db });
  await store.createRun({ runId: "queued-1", threadId: "t-1", inputs: { input: "a" }, status: "queued", at: START });
  await store.createRun({ runId: "running-1", threadId: "t-2", inputs: { input: "b" }, status: "running", owner: "test", leaseMs: 3_600_000, at: START + 60_000 });
  await store.createRun({ runId: "queued-2", threadId: "t-2", inputs: { input: "c" }, status: "queued", at: START + 120_000 });
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentrx runs --status given more than once", () => {
  it("lists the runs of every status given, as the comma-separated form does", async () => {
    const [repeated, comma, mixed] = await Promise.all([
      agentrx(["runs", "--db", db, "--json", "--status", "queued", "--status", "running"]),
      agentrx(["runs", "--db", db, "--json", "--status", "queued,running"]),
      agentrx(["runs", "--db", db, "--json", "--status=running", "--status", "queued,running"]),
    ]);
    expect(runIds(repeated)).toEqual(["queued-2", "running-1", "queued-1"]);
    expect(runIds(comma)).toEqual(["queued-2", "running-1", "queued-1"]);
    expect(runIds(mixed)).toEqual(["queued-2", "running-1", "queued-1"]);
  });

  it("repeats every status once in the next-page hint", async () => {
    const page = await agentrx(["runs", "--db", db, "--limit", "1", "--status", "queued", "--status", "running,queued"]);
    expect(page.code).toBe(0);
    expect(page.stdout).toMatch(/^Next page: agentrx runs --db \S+ --status queued,running --limit 1 --cursor /m);
  });

  it("still refuses a status that is not one, wherever it is given", async () => {
    const result = await agentrx(["runs", "--db", db, "--status", "queued", "--status", "done"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^agentrx: --status "done" is not a run status/);
  });
});

describe("agentrx given a single-valued option twice", () => {
  it.each([
    [["runs", "--db", db, "--db", join(dir, "other.db")], "--db"],
    [["runs", "--db", db, "--thread", "t-1", "--thread", "t-2"], "--thread"],
    [["runs", "--db", db, "--limit", "1", "--limit=2"], "--limit"],
    [["runs", "--db", db, "--search", "a", "--search", "b"], "--search"],
    [["trace", "queued-1", "--db", db, "-o", "a.html", "--output", "b.html"], "--output"],
    [["ui", "--db", db, "--port", "0", "--port", "1"], "--port"],
  ])("%j exits 2 with one line naming the option", async (args, option) => {
    const result = await agentrx(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`^agentrx: ${option} was given twice; give it once`));
  });

  it("takes a flag given twice as given once", async () => {
    expect(runIds(await agentrx(["runs", "--db", db, "--json", "--json", "--thread", "t-1"]))).toEqual(["queued-1"]);
  });
});
