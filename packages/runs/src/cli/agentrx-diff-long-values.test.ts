// `agentrx diff` on runs whose values are long: a 5 MB input, a turn of many tool calls. Each value
// is one cut line with its length, the part where two values start to differ shown, and a last
// line says that --json and --html show them whole.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoredRunEvent } from "@agentrx/executors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../sqlite/index";
import { writeSyntheticRun } from "../../../viewer/src/trace/trace-test-fixtures";
import { agentrxIn, type CliResult } from "./cli-test-helpers";

const dir = mkdtempSync(join(tmpdir(), "agentrx-diff-long-"));
const db = join(dir, "runs.db");
const BIG = "x".repeat(5_000_000);

function agentrxHere(args: string[]): Promise<CliResult> {
  return agentrxIn(dir, [...args, "--db", db]);
}

/** The run's first event starts it with `input`. */
const withInput = (input: string) => (event: StoredRunEvent) => (event.type === "start" ? { ...event, data: { ...event.data, inputs: { input } } } : event);

beforeAll(async () => {
  const store = new SqliteRunStore({ path: db });
  await writeSyntheticRun(store, { runId: "big-a", iterations: 1, toolsPerIteration: 1, alter: withInput(`${BIG}a`) });
  await writeSyntheticRun(store, { runId: "big-b", iterations: 1, toolsPerIteration: 1, alter: withInput(`${BIG}b`) });
  await writeSyntheticRun(store, { runId: "big-same", iterations: 1, toolsPerIteration: 2, alter: withInput(`${BIG}a`) });
  await writeSyntheticRun(store, { runId: "many-calls", iterations: 1, toolsPerIteration: 200 });
  await writeSyntheticRun(store, { runId: "small-a", iterations: 1, toolsPerIteration: 1 });
  await writeSyntheticRun(store, { runId: "small-b", iterations: 1, toolsPerIteration: 2 });
  await store.close();
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentrx diff with long values", () => {
  it("cuts 5 MB inputs that differ at their end to one line each, showing where they differ, and says --json shows them whole", async () => {
    const text = await agentrxHere(["diff", "big-a", "big-b"]);
    expect(text).toMatchObject({ code: 0, stderr: "" });
    expect(text.stdout.length).toBeLessThan(3_000);
    const lines = text.stdout.split("\n");
    const inputs = lines.indexOf("▶ inputs");
    expect(lines[inputs + 1]).toBe(`  a: …${"x".repeat(96)}a"} (5,000,013 characters)`);
    expect(lines[inputs + 2]).toBe(`  b: …${"x".repeat(96)}b"} (5,000,013 characters)`);
    expect(lines.at(-2)).toBe("(long values are cut; agentrx diff --json or --html shows them whole)");

    const json = JSON.parse((await agentrxHere(["diff", "big-a", "big-b", "--json"])).stdout) as { inputs: { a: { input: string }; b: { input: string } } };
    expect(json.inputs.a.input).toBe(`${BIG}a`);
    expect(json.inputs.b.input).toBe(`${BIG}b`);
  });

  it("cuts equal long inputs from their start, and inputs that differ early where both start", async () => {
    const same = await agentrxHere(["diff", "big-a", "big-same"]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain(`\ninputs\n  = {"input":"${"x".repeat(89)}… (5,000,013 characters)\n`);
    const early = await agentrxHere(["diff", "big-a", "small-a"]);
    expect(early.stdout).toContain(`\n▶ inputs\n  a: {"input":"${"x".repeat(89)}… (5,000,013 characters)\n  b: {"input":"synthetic"}\n`);
  });

  it("cuts a turn of 200 tool calls to one line of at most 500 characters", async () => {
    const text = await agentrxHere(["diff", "many-calls", "small-a"]);
    expect(text.code).toBe(0);
    const tools = text.stdout.split("\n").find((line) => line.startsWith("  tools  a: "));
    expect(tools).toMatch(/^ {2}tools {2}a: lookup \{"q":"item 0\.0"\} → result 0\.0 x+ \| lookup .*… \(\d{1,3}(,\d{3})* characters\)$/);
    expect(tools!.length).toBeLessThan(560);
    expect(text.stdout).toContain("(long values are cut; agentrx diff --json or --html shows them whole)");
  });

  it("shows short values whole, without the note", async () => {
    const text = await agentrxHere(["diff", "small-a", "small-b"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('\ninputs\n  = {"input":"synthetic"}\n');
    expect(text.stdout).not.toContain("long values are cut");
  });
});

describe("agentrx diff of runs that have not ended", () => {
  it("says a fork without a record has none, and that no divergence is so far while a run goes on", async () => {
    const store = new SqliteRunStore({ path: db });
    const now = Date.now();
    // Forks as fork() leaves them when its process dies between creating the run and writing the copy.
    for (const runId of ["unmade-1", "unmade-2"]) {
      await store.createRun({ runId, inputs: { input: "synthetic" }, status: "running", owner: "dead", leaseMs: 1, forkOf: { runId: "small-a", iteration: 1 }, at: now - 1_000 });
    }
    await writeSyntheticRun(store, { runId: "live", iterations: 1, toolsPerIteration: 1, running: true, start: now });
    await store.close();

    const both = await agentrxHere(["diff", "unmade-1", "unmade-2"]);
    expect(both.code).toBe(0);
    expect(both.stdout.split("\n").slice(2, 5)).toEqual([
      "a has no record: it is a fork of small-a whose copy was never written (agentrx show <runA> says why)",
      "b has no record: it is a fork of small-a whose copy was never written (agentrx show <runB> says why)",
      "No divergence so far (runs a and b have not ended): same inputs, iterations and answer.",
    ]);
    const fork = await agentrxHere(["diff", "small-a", "unmade-1"]);
    expect(fork.stdout.split("\n").slice(2, 4)).toEqual(["b is a fork of a at iteration 1", "b has no record: it is a fork of small-a whose copy was never written (agentrx show <runB> says why)"]);
    expect((await agentrxHere(["diff", "live", "live"])).stdout).toContain("\nNo divergence so far (runs a and b have not ended): same inputs, iterations and answer.\n");
    expect((await agentrxHere(["diff", "small-a", "small-a"])).stdout).toContain("\nNo divergence: same inputs, iterations and answer.\n");
  });
});
