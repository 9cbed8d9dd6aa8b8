// A fork's trace page in Chromium, served by `agentrx ui`: the header counts the fork's own work
// and names its copied prefix apart, with a link to the run it was forked from; the copied rows'
// details say where they were copied from.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type PriceTable } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import type { Page } from "playwright-core";
import { lastValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startUiServer, type UiServer } from "../ui/start-ui-server";
import { launchChromium, skipWithoutChromium } from "./browser-test-helpers";

const skip = skipWithoutChromium("fork page (browser)");
const PRICES: PriceTable = { "weather-model": { input: 1000, output: 2000 } };

let browser: Awaited<ReturnType<typeof launchChromium>>;
let server: UiServer;
const store = new MemoryRunStore();

beforeAll(async () => {
  if (skip) return;
  const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}.`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const executorOf = (responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"]) => {
    const llm = new ScriptedChatModel({ responses, model: "weather-model" });
    return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], store, prices: PRICES });
  };
  const call = (city: string) => ({ toolCalls: [{ name: "weather", args: { city }, id: `call-${city}` }] });
  await lastValueFrom(executorOf([call("Paris"), call("Rome"), "Sunny in both."]).stream({ input: "Paris, then Rome?" }, { runId: "source" }));
  await lastValueFrom(executorOf(["Sunny in both, really."]).fork("source", { at: 2, runId: "forked" }));
  browser = await launchChromium();
  server = await startUiServer({ store, source: "memory", port: 0 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await browser?.closeAll();
});

async function open(runId: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${server.url}/runs/${runId}`);
  await page.waitForSelector('[role="treeitem"]');
  return { page, errors };
}

const fact = (page: Page, key: string) => page.locator(`[data-fact="${key}"] dd`).textContent();

describe.skipIf(skip)("a fork's page in agentrx ui", () => {
  it("counts the fork's own iteration, model call and tokens in the header, and its copied prefix apart", async () => {
    const { page, errors } = await open("forked");
    // The fork made one model call in one iteration; the two copied iterations (two model calls,
    // two tool calls) were the source's.
    expect([await fact(page, "iterations"), await fact(page, "model-calls"), await fact(page, "tool-calls")]).toEqual(["1", "1", "0"]);
    const ownEvents = (await store.readEvents("forked")).filter(({ data }) => data["type"] === "usage" && (data["iteration"] as number) >= 2);
    const ownTokens = ownEvents.reduce((sum, { data }) => sum + (data["usage"] as { total_tokens: number }).total_tokens, 0);
    expect(await fact(page, "tokens")).toBe(String(ownTokens));
    expect(Number(await fact(page, "tokens"))).toBeLessThan((await store.getRun("forked"))?.usage?.total_tokens ?? 0);
    const copied = page.locator('[data-fact="copied"]');
    expect(await copied.textContent()).toMatch(/^Forked from\s*source\s*iterations 1–2 copied: 2 model calls, 2 tool calls, \d+ tokens, \$0\.\d{4}\s*\(that run's work, not counted above\)$/);
    expect(await copied.locator("a[data-fork-source]").getAttribute("href")).toBe("/runs/source");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("says in a copied row's detail which run it was copied from, with a link; the fork's own rows say nothing of it", async () => {
    const { page, errors } = await open("forked");
    for (const id of ["it-0", "model-1-0", "tool-1-0"]) {
      await page.click(`#row-${id} .label`);
      expect(await page.locator(".detail [data-copied-from]").textContent()).toMatch(/^source \(this run's record copies it/);
      expect(await page.locator(".detail [data-copied-from] a").getAttribute("href")).toBe("/runs/source");
    }
    for (const id of ["it-2", "model-2-0"]) {
      await page.click(`#row-${id} .label`);
      expect(await page.locator(".detail [data-copied-from]").count()).toBe(0);
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});
