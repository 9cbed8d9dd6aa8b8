// The capacity scenario's flags, read and checked before anything runs; the runs a contestant
// held; how its table and the bench's summary table show its figures; the bench's scenario names.
// No servers: the bench's own functions, and bench/index.ts refusing what it cannot run.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type LevelResult, capacityTable, checkCapacityFlags, held, parseCapacityFlags, summaryRows } from "../../bench/capacity";
import { benchArgs, summaryTable } from "../../bench/index";
import { unreachable } from "../../bench/services";

const INDEX = fileURLToPath(new URL("../../bench/index.ts", import.meta.url));

function level(contestant: string, runs: number, fields: Partial<LevelResult> = {}): LevelResult {
  return { contestant, runs, p50Ms: 1, p99Ms: 2, lagP99Ms: 11, heapKbPerRun: 20, cpuMsPerRun: 30, errors: 0, seconds: 7, ...fields };
}
const missed = { p99Ms: 40 };

describe("the capacity scenario's flags", () => {
  it("reads every flag up front", () => {
    expect(parseCapacityFlags(["capacity", "--levels=5,10", "--workers=1,4", "--only=SQLite"])).toEqual({
      help: false,
      levels: [5, 10],
      workers: [1, 4],
      inProcess: false,
      only: "sqlite",
    });
    expect(parseCapacityFlags([])).toMatchObject({ levels: [50, 100, 250, 500, 1000, 2000], workers: [1, 2, 4], inProcess: false, only: undefined });
  });

  it.each(["--workers=0", "--workers=1,x", "--workers="])("refuses %s before anything runs", (flag) => {
    expect(() => checkCapacityFlags(["capacity", "--levels=5", flag])).toThrow(/--workers takes positive whole numbers separated by commas, got "--workers=/);
  });

  it("refuses an --only that selects no contestant, naming the contestants", () => {
    expect(() => checkCapacityFlags(["capacity", "--only=nothing-like-this"])).toThrow(/--only=nothing-like-this selects no contestant; the contestants:.*timer floor.*LangGraph createAgent \+ PostgresSaver.*BullMQ workers/s);
    // The worker rows are what --only=worker selects, and --in-process leaves them out.
    expect(() => checkCapacityFlags(["capacity", "--only=worker"])).not.toThrow();
    expect(() => checkCapacityFlags(["capacity", "--only=worker", "--in-process"])).toThrow(/--only=worker selects no contestant \(--in-process leaves the worker rows out\)/);
    expect(() => checkCapacityFlags(["capacity", "--only="])).toThrow(/--only takes the text of a contestant's name/);
  });
});

describe("the runs a contestant held", () => {
  it("is the largest level below the first level it missed", () => {
    const results = [level("SQLite", 5), level("SQLite", 20, missed), level("SQLite", 50)];
    expect(held(results, "SQLite")).toBe(5);
    expect(held([level("SQLite", 5, missed), level("SQLite", 50)], "SQLite")).toBe(0);
    expect(held([level("SQLite", 5), level("SQLite", 50)], "SQLite")).toBe(50);
  });

  it("takes the levels in increasing order whatever order they ran in, and counts a failed level as missed", () => {
    expect(held([level("x", 50), level("x", 10), level("x", 20, missed)], "x")).toBe(10);
    expect(held([level("x", 10), level("x", 20, { failure: "worker 1 exited with code 1 during level 20" }), level("x", 50)], "x")).toBe(10);
  });
});

describe("the capacity table", () => {
  it("shows a heap below the level's baseline as ~0 and says why, not as a negative figure", () => {
    const lines = capacityTable([level("timer floor (the run's waits, no framework)", 5, { heapKbPerRun: -3.25 })]).join("\n");
    expect(lines).not.toMatch(/-3\.[23]/);
    expect(lines).toMatch(/\s~0\s/);
    expect(lines).toMatch(/~0 = .*below/);
  });

  it("prints a level a worker process ended, with what happened", () => {
    const lines = capacityTable([level("AgentRx, 1 BullMQ worker + PostgreSQL + follower", 5, { errors: 5, failure: "worker 1 exited with signal SIGKILL during level 5" })]).join("\n");
    expect(lines).toMatch(/ 5\s+no\n/);
    expect(lines).toMatch(/worker 1 exited with signal SIGKILL during level 5/);
  });
});

describe("the capacity rows of the bench's summary table", () => {
  const results: LevelResult[] = [
    level("LangChain floor (the agent and tools in a bare loop)", 50, { cpuMsPerRun: 24 }),
    level("AgentRx in-process, no store", 50, { cpuMsPerRun: 26 }),
    level("AgentRx in-process + PostgreSQL", 50, { cpuMsPerRun: 35 }),
    level("LangGraph createAgent + PostgresSaver", 50, { ...missed, cpuMsPerRun: 86 }),
    level("AI SDK streamText (no store)", 50, { cpuMsPerRun: 77 }),
    level("AgentRx, 1 BullMQ worker + PostgreSQL + follower", 50),
    level("AgentRx, 4 BullMQ workers + PostgreSQL + follower", 50),
  ];
  const rows = summaryRows(results);
  const row = (text: string) => rows.find((candidate) => candidate.scenario.includes(text));

  it("puts each contestant in the column its legend describes", () => {
    expect(row("no store")).toMatchObject({ agentrx: 50, floor: 50, aiSdk: 50 });
    expect(row("recorded in PostgreSQL")).toMatchObject({ agentrx: 50, langgraph: 0 });
    expect(row("recorded in PostgreSQL")?.langchainV1).toBeUndefined();
    expect(row("vs LangGraph")).toMatchObject({ agentrx: 35, langgraph: 86 });
    expect(row("vs LangGraph")?.floor).toBeUndefined();
    expect(row("vs the AI SDK")).toMatchObject({ agentrx: 26, aiSdk: 77 });
    expect(row("vs the AI SDK")?.floor).toBeUndefined();
    // One worker's figure is the row above; no column claims it is a floor.
    expect(row("4 worker processes")?.floor).toBeUndefined();
  });

  it("clamps a heap below the baseline to 0", () => {
    const heap = summaryRows([level("AgentRx in-process + SQLite", 5, { heapKbPerRun: -2 })]).find((candidate) => candidate.scenario.includes("heap"));
    expect(heap?.agentrx).toBe(0);
  });

  it("the bench's table has a langgraph column, and a capacity legend that describes its columns", () => {
    const text = summaryTable(rows.map((summary) => ({ row: summary, scenario: "capacity" })), { node: "v20", cpus: 2, seconds: 1 }).join("\n");
    expect(text.split("\n")[0]).toMatch(/agentrx\s+floor\s+.*ai-sdk\s+lc-v1\s+langgraph\s+check/);
    expect(text).toMatch(/ai-sdk = the AI SDK's streamText/);
    expect(text).toMatch(/floor = the LangChain floor/);
    expect(text).toMatch(/langgraph = LangGraph's createAgent .*PostgresSaver/);
    expect(text).not.toMatch(/generateText/); // that legend is the other scenarios'
  });

  it("the other scenarios' legend stays when their rows are there, without a langgraph column", () => {
    const other = { scenario: "per-step", metric: "ms", agentrx: 1, floor: 1, aiSdk: 2, check: { label: "x", value: 1, limit: 2 } };
    const text = summaryTable([{ row: other, scenario: "per-step" }], { node: "v20", cpus: 2, seconds: 1 }).join("\n");
    expect(text).toMatch(/generateText/);
    expect(text).not.toMatch(/langgraph|streamText/);
  });
});

describe("bench/index.ts", () => {
  it("reads scenario names and capacity flags, and refuses what it cannot run", () => {
    expect(benchArgs(["per-step", "tokens"])).toEqual({ names: ["per-step", "tokens"], flags: [] });
    expect(benchArgs(["capacity", "--levels=5"])).toEqual({ names: ["capacity"], flags: ["--levels=5"] });
    expect(() => benchArgs(["capcity"])).toThrow(/unknown scenario "capcity"; the scenarios: per-step, .*capacity, runs-search/);
    expect(() => benchArgs(["per-step", "--levels=5"])).toThrow(/--levels=5 is a flag of the capacity scenario/);
  });

  it("exits 1 on an unknown scenario name, listing the known ones, and runs nothing", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", INDEX, "capcity"], { encoding: "utf8", timeout: 15_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/unknown scenario "capcity"; the scenarios: per-step/);
    expect(result.stdout).toBe("");
  });
});

describe("the servers' reachability", () => {
  it("says why Redis is not reachable (the connection's error, not just that it closed)", async () => {
    const problems = await unreachable({ redisUrl: "redis://127.0.0.1:1", databaseUrl: "postgres://postgres@127.0.0.1:1/test" });
    expect(problems.redis).toMatch(/Redis is not reachable at redis:\/\/127\.0\.0\.1:1 \(.*ECONNREFUSED/);
    expect(problems.postgres).toMatch(/PostgreSQL is not reachable .*ECONNREFUSED/);
  });
});
