// The diff page of two runs that each called a provider, in Chromium: their tool calls got
// different ids, so a prompt is compared without them (recorded prompts) or not compared (digests
// only), and the page says which instead of showing one run's digest as both runs'.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { MemoryRunStore, readRunRecord } from "@agentrx/runs";
import { diffPageData, diffPageHtml } from "@agentrx/viewer/trace-page";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { chromiumSuite } from "../trace/chromium-suite";

const { skip, dir, browser } = chromiumSuite("diff page prompt ids (browser)", "agentrx-diff-ids-");

const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
const prompt = ChatPromptTemplate.fromMessages([["system", "You are helpful."], ["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
const callWithId = (id: string): ScriptedResponse => ({ toolCalls: [{ name: "weather", args: { city: "Paris" }, id }], usage: { inputTokens: 5, outputTokens: 2 } });

async function record(store: RunStore, runId: string, ids: [string, string], recordPrompts: boolean): Promise<void> {
  const llm = new ScriptedChatModel({ responses: [callWithId(ids[0]), callWithId(ids[1]), "Sunny."], model: "gpt-4o" });
  await new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], store, recordPrompts }).invoke({ input: "Weather in Paris?" }, { runId });
}

describe.skipIf(skip)("the diff page of runs whose tool calls got different ids", () => {
  it.each([
    [true, "ignored", /^the same but for tool-call ids \(digests \S+ and \S+\)$/],
    [false, "uncompared", /^not compared: the digests hash tool-call ids, which differ between the runs \(recordPrompts compares the messages\) \(digests \S+ and \S+\)$/],
  ])("says how the prompts after them were compared (recordPrompts: %s)", async (recordPrompts, promptIds, line) => {
    const store = new MemoryRunStore();
    await record(store, "a", ["call_a1", "call_a2"], recordPrompts);
    await record(store, "b", ["call_b1", "call_b2"], recordPrompts);
    const data = diffPageData(await readRunRecord(store, "a"), await readRunRecord(store, "b"), { mode: "file", source: "memory" });
    expect(data.diff.iterations.map((iteration) => iteration.promptIds)).toEqual([undefined, promptIds, promptIds]);
    const path = join(dir, `ids-${recordPrompts}.html`);
    writeFileSync(path, diffPageHtml(data));
    const page = await browser().newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(path).href);
    await page.waitForSelector(".diff-banner");
    expect(await page.locator(".diff-banner").textContent()).toBe("No divergence: same inputs, iterations and answer.");
    // Iteration 0 came before any tool call: its digest is both runs'.
    expect(await page.locator('section[data-iteration="0"] [data-field="prompt"] .cell').allTextContents()).toEqual([`digest ${data.diff.iterations[0]?.prompt.a}`]);
    for (const n of [1, 2]) {
      const row = page.locator(`section[data-iteration="${n}"] [data-field="prompt"]`);
      expect(await row.getAttribute("data-prompt-ids")).toBe(promptIds);
      const cells = await row.locator(".cell").allTextContents();
      expect(cells).toHaveLength(1);
      expect(cells[0]).toMatch(line);
      expect(cells[0]).toContain(data.diff.iterations[n]?.prompt.b as string);
    }
    const recorded = page.locator('section[data-iteration="1"] details.recorded-prompt summary');
    if (recordPrompts) expect(await recorded.textContent()).toBe("Recorded prompt: 4 messages in a, 4 in b (the same but for tool-call ids)");
    else expect(await recorded.count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
