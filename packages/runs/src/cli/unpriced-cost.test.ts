// `agentrx runs` and `agentrx show` write a run's cost with the model calls it leaves out (its
// usage's `unpricedCalls`: calls the executor's `prices` could not price), as the ui's pages do:
// `$0.0213 + 2 unpriced`, or `2 unpriced` when no call was priced (docs/cost.md#calls-without-a-price);
// `agentrx diff` writes the runs' and their iterations' costs the same way.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, priceUsage, type PriceFunction, type RunInfo, type RunUsage } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import type { CliIo } from "./cli-io";
import { diffCommand } from "./diff-command";
import { cliStyle, formatRunsTable } from "./format-runs-table";
import { runsCommand } from "./runs-command";
import { showCommand } from "./show-command";

const at = 1_700_000_000_000;
const tokens = { input_tokens: 100, output_tokens: 10, total_tokens: 110 };
const cost = (total: number) => ({ input: total / 2, output: total / 2, total, currency: "USD" as const });
const run = (runId: string, usage: RunUsage | undefined): RunInfo => ({ runId, status: "finished", inputs: {}, createdAt: at, updatedAt: at + 10, eventCount: 0, ...(usage === undefined ? {} : { usage }) });

function io(): { io: CliIo; out: () => string } {
  let stdout = "";
  return { io: { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => undefined }, env: { NO_COLOR: "1" }, cwd: "." }, out: () => stdout };
}

/** Records a run whose executor's prices know `gpt-4o` but not its model (`local-llama`): two unpriced calls, no cost. */
async function recordUnpricedRun(store: MemoryRunStore, runId: string): Promise<void> {
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const lookup = tool(async ({ q }: { q: string }) => `facts about ${q}`, { name: "lookup", description: "Looks facts up.", schema: z.object({ q: z.string() }) });
  const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "lookup", args: { q: "tides" } }] }, "The moon."], model: "local-llama" });
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store, prices: { "gpt-4o": { input: 2.5, output: 10 } } });
  const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined); // the unpriced model's warning
  try {
    await lastValueFrom(executor.stream({ input: "Explain tides." }, { runId }));
  } finally {
    warn.mockRestore();
  }
}

/**
 * Records a run of two model calls (a tool call, then the answer) whose executor's `prices` price
 * only the first (`mixed`: $0.0035 + 1 unpriced), or, with `answerOnly`, a run of the answer alone
 * that they do not price (`1 unpriced`).
 */
async function recordRun(store: MemoryRunStore, runId: string, answerOnly = false): Promise<void> {
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const lookup = tool(async ({ q }: { q: string }) => `facts about ${q}`, { name: "lookup", description: "Looks facts up.", schema: z.object({ q: z.string() }) });
  const call = { toolCalls: [{ name: "lookup", args: { q: "tides" } }], usage: { inputTokens: 1000, outputTokens: 100 } };
  const answer = { content: "The moon.", usage: { inputTokens: 2000, outputTokens: 200 } };
  const llm = new ScriptedChatModel({ responses: answerOnly ? [answer] : [call, answer], model: "gpt-4o" });
  // Prices the tool call (1,000 prompt tokens), not the answer: an unpriced call of a known model.
  const prices: PriceFunction = (_model, usage) => (usage.input_tokens === 1000 ? priceUsage(usage, { input: 2.5, output: 10 }) : undefined);
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store, prices });
  const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined); // the unpriced call's warning
  try {
    await lastValueFrom(executor.stream({ input: "Explain tides." }, { runId }));
  } finally {
    warn.mockRestore();
  }
}

describe("agentrx diff", () => {
  it("writes each run's and each iteration's cost with the calls it leaves out, never $0 for unpriced calls", async () => {
    const store = new MemoryRunStore();
    await recordRun(store, "mixed");
    await recordRun(store, "local", true);
    expect((await store.getRun("mixed"))?.usage).toMatchObject({ cost: { total: 0.0035 }, unpricedCalls: 1 });
    expect((await store.getRun("local"))?.usage).toMatchObject({ unpricedCalls: 1 });
    const { io: cli, out } = io();
    await diffCommand(store, "mixed", "local", { json: false, label: "memory" }, cli);
    const lines = out().split("\n");
    expect(lines[0]).toBe("a mixed · finished (finish) · 3300 tokens · $0.0035 + 1 unpriced");
    expect(lines[1]).toBe("b local · finished (finish) · 2200 tokens · 1 unpriced");
    // Each iteration's usage line: the priced tool call, then the unpriced answer.
    expect(lines.filter((line) => line.startsWith("  usage"))).toEqual([
      "  usage  a: 1100 tokens · $0.0035",
      "  usage  b: 2200 tokens · 1 unpriced",
      "  usage  a: 2200 tokens · 1 unpriced",
      "  usage  b: -",
    ]);
    // The runs' usage at the end.
    const usage = lines.indexOf("usage");
    expect(lines.slice(usage + 1, usage + 3)).toEqual(["  a: 3300 tokens · $0.0035 + 1 unpriced", "  b: 2200 tokens · 1 unpriced"]);
    expect(out()).not.toMatch(/\$0(\.0+)?\b(?!\.)/);
    await store.close();
  });
});

/** Records a finished run of `usage` (no events) in `store`. */
async function writeFinished(store: MemoryRunStore, runId: string, usage: RunUsage): Promise<void> {
  await store.createRun({ runId, inputs: {}, status: "running", owner: "test", leaseMs: 60_000, at });
  await store.write(runId, { owner: "test", leaseMs: 60_000, at: at + 1, events: [], update: { status: "finished", stopReason: "finish", usage, release: true } });
}

describe("agentrx runs' COST column", () => {
  it("adds the calls the cost leaves out, and shows them alone when no call was priced", () => {
    const table = formatRunsTable(
      [run("priced", { ...tokens, cost: cost(0.0213) }), run("partly", { ...tokens, cost: cost(0.0213), unpricedCalls: 2 }), run("local", { ...tokens, unpricedCalls: 1 }), run("none", tokens)],
      cliStyle(false),
    );
    const costOf = (runId: string) => table.split("\n").find((line) => line.startsWith(runId))?.split(/\s{2,}/)[6];
    expect(table.split("\n")[0]?.split(/\s{2,}/)[6]).toBe("COST");
    expect(costOf("priced")).toBe("$0.0213");
    expect(costOf("partly")).toBe("$0.0213 + 2 unpriced");
    expect(costOf("local")).toBe("1 unpriced");
    expect(costOf("none")).toBe("-");
  });

  it("counts them in the listing's total too", async () => {
    const store = new MemoryRunStore();
    const write = (runId: string, usage: RunUsage) => writeFinished(store, runId, usage);
    await write("partly", { ...tokens, cost: cost(0.02), unpricedCalls: 2 });
    await write("local", { ...tokens, unpricedCalls: 1 });
    const { io: cli, out } = io();
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: false, label: "memory" }, cli);
    expect(out()).toMatch(/^2 runs in memory, \$0\.0200 \+ 3 unpriced in all\. /m);
    await store.close();
  });

  it("counts a sub-run listed with its caller once, in its caller's (which covers it)", async () => {
    const store = new MemoryRunStore();
    const write = (runId: string, usage: RunUsage) => writeFinished(store, runId, usage);
    await write("main", { ...tokens, cost: cost(0.03), unpricedCalls: 1 });
    await write("as-tool:main:1:call_1", { ...tokens, cost: cost(0.01), unpricedCalls: 1 });
    await write("handoff:as-tool:main:1:call_1:0:call_2", { ...tokens, cost: cost(0.005) });
    // A sub-run whose caller is not listed counts (its cost is in no listed row), as does a run named like a caller's prefix.
    await write("as-tool:other:1:call_1", { ...tokens, cost: cost(0.002) });
    await write("mai", { ...tokens, cost: cost(0.0001) });
    const { io: cli, out } = io();
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: false, label: "memory" }, cli);
    expect(out()).toMatch(/^5 runs in memory, \$0\.0321 \+ 1 unpriced in all\. /m);
    await store.close();
  });
});

describe("agentrx show's summary line", () => {
  it("says how many calls a recorded run's cost leaves out, from its usage", async () => {
    const store = new MemoryRunStore();
    await recordUnpricedRun(store, "local-run");
    expect((await store.getRun("local-run"))?.usage).toMatchObject({ unpricedCalls: 2 });
    const { io: cli, out } = io();
    await showCommand(store, "local-run", { json: false, label: "memory" }, cli);
    expect(out().split("\n")[0]).toMatch(/^Run local-run · finished \(finish\) · [\d,]+ tokens · 2 unpriced · /);
    // Each model call's usage line says it was not priced (renderTrace's usage lines).
    expect(out().split("\n").filter((line) => line.startsWith("usage "))).toEqual([expect.stringMatching(/ tokens · unpriced$/), expect.stringMatching(/ tokens · unpriced$/)]);

    const { io: list, out: listed } = io();
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: false, label: "memory" }, list);
    expect(listed().split("\n")[1]?.split(/\s{2,}/)[6]).toBe("2 unpriced");
    await store.close();
  });
});
