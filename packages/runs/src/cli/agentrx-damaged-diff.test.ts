// `agentrx diff` (and `show --json`) on SQLite records damaged with SQL: a row that is not JSON, a
// missing event (a gap in `seq`), an event that cannot be decoded.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../sqlite/index";
import { writeSyntheticRun } from "../../../viewer/src/trace/trace-test-fixtures";
import { agentrxChild, agentrxIn, type CliResult } from "./cli-test-helpers";

const dir = mkdtempSync(join(tmpdir(), "agentrx-damaged-diff-"));
const db = join(dir, "runs.db");

type Result = CliResult;

function agentrxHere(args: string[]): Promise<Result> {
  return agentrxIn(dir, args);
}

function agentrx(args: string[]): Promise<Result> {
  return agentrxChild(dir, args);
}

// Each synthetic run (2 turns of 2 tool calls): 1 start, 2 usage, 3 model_call, 4-5 actions, 6-7
// steps, 8 usage, 9 model_call, 10-11 actions, 12-13 steps, 14 usage, 15 model_call, 16 output.
beforeAll(async () => {
  const store = new SqliteRunStore({ path: db });
  for (const runId of ["intact", "not-json", "gap", "undecodable"]) await writeSyntheticRun(store, { runId, iterations: 2, toolsPerIteration: 2 });
  await store.close();
  const raw = new Database(db);
  raw.prepare(`UPDATE agentrx_run_events SET data = '{"type":"action",' WHERE run_id = 'not-json' AND seq = 4`).run();
  raw.prepare("DELETE FROM agentrx_run_events WHERE run_id = 'gap' AND seq = 7").run();
  raw.prepare("UPDATE agentrx_run_events SET data = json_set(data, '$.action', 'garbage') WHERE run_id = 'undecodable' AND seq = 4").run();
  raw.close();
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One line on stderr, no stack trace, nothing on stdout, exit code 1. */
function expectRefused(result: Result, pattern: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at |TypeError|RunStoreError/);
  expect(result.stderr.trimEnd()).toMatch(pattern);
}

describe("agentrx diff on a damaged record", () => {
  it("refuses to compare a run whose event cannot be decoded, naming the run, the event and why, in every form", async () => {
    const html = join(dir, "undecodable.html");
    const [text, json, page, reversed] = await Promise.all([
      agentrx(["diff", "intact", "undecodable", "--db", db]),
      agentrxHere(["diff", "intact", "undecodable", "--db", db, "--json"]),
      agentrxHere(["diff", "undecodable", "intact", "--db", db, "--html", html]),
      agentrxHere(["diff", "undecodable", "intact", "--db", db]),
    ]);
    const message =
      /^agentrx: run "undecodable" cannot be compared: its record is damaged \(event 4 cannot be decoded: expected an encoded action; damaged events: 4, 6\)\. A comparison needs every event; see what can be read with: agentrx show undecodable$/;
    for (const result of [text, json, page, reversed]) expectRefused(result, message);
    expect(existsSync(html)).toBe(false);
  });

  it("refuses a row that is not JSON and a gap in seq the same way", async () => {
    const [notJson, gap] = await Promise.all([agentrxHere(["diff", "not-json", "intact", "--db", db, "--json"]), agentrxHere(["diff", "intact", "gap", "--db", db])]);
    expectRefused(notJson, /^agentrx: run "not-json" cannot be compared: its record is damaged \(event 4 cannot be read: its data is not valid JSON \(.+\); damaged events: 4, 6\)\. .* agentrx show not-json$/);
    expectRefused(gap, /^agentrx: run "gap" cannot be compared: its record is damaged \(event 7 cannot be read: it is missing \(the store returned event 8 after event 6\)\)\. .* agentrx show gap$/);
  });

  it("still compares two intact runs", async () => {
    const result = await agentrxHere(["diff", "intact", "intact", "--db", db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("No divergence");
  });
});

describe("agentrx show --json on a damaged record", () => {
  it("lists an event that cannot be decoded under unreadable, as the text form marks it, and keeps its stored data", async () => {
    const [json, text] = await Promise.all([agentrxHere(["show", "undecodable", "--db", db, "--json"]), agentrxHere(["show", "undecodable", "--db", db])]);
    expect(json.code).toBe(0);
    const record = JSON.parse(json.stdout) as { events: { seq: number; data: Record<string, unknown> }[]; unreadable: { seq: number; error: string }[] };
    expect(record.unreadable).toEqual([
      { seq: 4, error: "it cannot be decoded (expected an encoded action)" },
      { seq: 6, error: "it cannot be decoded (step 6 refers to action 0 of iteration 0, which is not recorded)" },
    ]);
    expect(record.events.map((event) => event.seq)).toEqual(Array.from({ length: 16 }, (_, index) => index + 1));
    expect(record.events[3]?.data["action"]).toBe("garbage");
    expect(json.stderr).toBe('agentrx: warning: 2 events of run "undecodable" could not be read (4, 6); the rest is shown, the others are listed under "unreadable"\n');
    expect(text.stderr).toMatch(/could not be read \(4, 6\)/);
  });
});
