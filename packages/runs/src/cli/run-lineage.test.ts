import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type PriceTable } from "@agentrx/executors";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import type { CliIo } from "./cli-io";
import { cliStyle, formatRunsTable } from "./format-runs-table";
import { runsCommand } from "./runs-command";
import { showCommand } from "./show-command";

describe("agentrx runs and show: lineage", () => {
  it("shows under a forked run, and in its summary, which run and iteration it came from", async () => {
    const store = new MemoryRunStore();
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    await store.createRun({ runId: "source", inputs: {}, status: "queued", at });
    await store.createRun({ runId: "fork-1", inputs: {}, status: "queued", forkOf: { runId: "source", iteration: 2 }, at: at + 1000 });
    let stdout = "";
    const io: CliIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => undefined }, env: { NO_COLOR: "1" }, cwd: "." };
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: false, label: "memory" }, io);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[1]).toMatch(/^fork-1\s+-\s+queued\s/);
    // No checkpoint yet: its own turns are not known, the copied ones are.
    expect(lines[2]).toBe("  ↳ fork of source@2: 2 turns copied from source; TURNS, TOKENS and COST count them");
    expect(lines[3]).toMatch(/^source\s+-\s+queued\s/);
    expect(lines[4]).toMatch(/^2 runs in memory/);

    let json = "";
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: true, label: "memory" }, { ...io, stdout: { write: (text: string) => (json += text) } });
    expect(JSON.parse(json)[0]).toMatchObject({ runId: "fork-1", forkOf: { runId: "source", iteration: 2 } });

    let shown = "";
    await showCommand(store, "fork-1", { json: false, label: "memory" }, { ...io, stdout: { write: (text: string) => (shown += text) } });
    expect(shown.split("\n")[0]).toMatch(/^Run fork-1 · queued · .* · fork of source@2 \(tokens and cost count its 2 copied turns\) · started /);
    await store.close();
  });

  it("dims the lineage line when colours are on, and adds none for a run that is no fork", async () => {
    const base = { inputs: {}, createdAt: 0, updatedAt: 0, eventCount: 0 } as const;
    const table = formatRunsTable([{ ...base, runId: "f", status: "running", eventCount: 1, forkOf: { runId: "s", iteration: 0 } }, { ...base, runId: "s", status: "finished" }], cliStyle(true));
    const lines = table.split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe("\u001b[2m  ↳ fork of s@0: nothing copied\u001b[0m");
  });

  it("says how many of a real fork's turns were copied (not its tool steps), and that its tokens and cost count them", async () => {
    const store = new MemoryRunStore();
    const prices: PriceTable = { "scripted-model": { input: 1, output: 2 } };
    const usage = { inputTokens: 1_000, outputTokens: 100 };
    const lookup = tool(async ({ q }) => `found ${q}`, { name: "lookup", description: "Looks up.", schema: z.object({ q: z.string() }) });
    const callLookup = (id: string) => ({ content: "", toolCalls: [{ name: "lookup", args: { q: id }, id }], usage });
    // The source: lookup a and b in one turn, lookup c, answer. The fork after its first turn (two
    // tool steps) runs lookup d, then answers.
    const callTwo = { content: "", toolCalls: [...callLookup("a").toolCalls, ...callLookup("b").toolCalls], usage };
    const llm = new ScriptedChatModel({ model: "scripted-model", responses: [callTwo, callLookup("c"), { content: "done", usage }, callLookup("d"), { content: "done again", usage }] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], prices, store });
    const source = await executor.invoke({ input: "Find it" });
    const fork = await executor.fork(source.runId as string, { at: 1, runId: "the-fork" });
    // The fork's row counts the copied turn: 3 turns, 3 model calls' tokens and cost.
    expect(fork.usage?.total_tokens).toBe(3_300);

    let stdout = "";
    const io: CliIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => undefined }, env: { NO_COLOR: "1" }, cwd: "." };
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: false, label: "memory" }, io);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[1]).toMatch(/^the-fork\s+-\s+finished\s+finish\s+3\s+3,300\s+\$0\.0036\s/);
    expect(lines[0]).toMatch(/^RUN\s+THREAD\s+STATUS\s+STOP\s+TURNS\s+TOKENS\s/);
    expect(lines[2]).toBe(`  ↳ fork of ${source.runId}@1: 1 turn copied from ${source.runId}, 2 its own; TURNS, TOKENS and COST count both`);
    expect(lines[4]).toMatch(/^2 runs in memory, \$0\.0072 in all \(forks' copied turns included\)\. /);

    let shown = "";
    await showCommand(store, "the-fork", { json: false, label: "memory" }, { ...io, stdout: { write: (text: string) => (shown += text) } });
    expect(shown.split("\n")[0]).toMatch(new RegExp(`^Run the-fork · finished \\(finish\\) · 3,300 tokens · \\$0\\.0036 · .* · 3 turns · fork of ${source.runId}@1 \\(tokens and cost count its 1 copied turn\\) · started `));
    await store.close();
  });
});
