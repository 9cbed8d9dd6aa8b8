// The diff page in Chromium: a run and its fork (the shared prefix collapsed, the first divergence
// marked and scrolled to, the recorded prompts side by side), two unrelated runs, the run list's
// Compare action and a fork's link to the diff with the run it was forked from.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import type { Page } from "playwright-core";
import { lastValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { launchChromium, skipWithoutChromium } from "../trace/browser-test-helpers";
import { startUiServer, type UiServer } from "./start-ui-server";

const skip = skipWithoutChromium("diff page (browser)");

const prompt = ChatPromptTemplate.fromMessages([["system", "You are helpful."], ["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
const PRICES = { "gpt-4o": { input: 2.5, output: 10 } };

function executorOf(store: RunStore, responses: ScriptedResponse[]) {
  const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}. ${"Long forecast text. ".repeat(40)}`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
  const llm = new ScriptedChatModel({ responses, model: "gpt-4o" });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], store, prices: PRICES });
}
const call = (city: string): ScriptedResponse => ({ toolCalls: [{ name: "weather", args: { city }, id: `call-${city}` }], usage: { inputTokens: 1000, outputTokens: 100 } });
const answer = (text: string): ScriptedResponse => ({ content: text, usage: { inputTokens: 2000, outputTokens: 200 } });

let browser: Awaited<ReturnType<typeof launchChromium>>;
let server: UiServer;
const store = new MemoryRunStore();

async function open(path: string, errors: string[], size = { width: 1200, height: 500 }): Promise<Page> {
  const page = await browser.newPage();
  page.on("pageerror", (error) => errors.push(error.message));
  await page.setViewportSize(size);
  await page.goto(`${server.url}${path}`);
  await page.waitForSelector(".diff-banner, table.runs");
  return page;
}

beforeAll(async () => {
  if (skip) return;
  // A run of four iterations (three tool calls, then the answer), and its fork after two
  // iterations that asks for another city: they agree on iterations 0 and 1.
  await lastValueFrom(executorOf(store, [call("Paris"), call("Rome"), call("Oslo"), answer("Sunny everywhere.")]).stream({ input: "Paris, Rome, then Oslo?" }, { runId: "trip" }));
  await lastValueFrom(executorOf(store, [call("Madrid"), answer("Sunny in Madrid too.")]).fork("trip", { at: 2, runId: "trip-fork" }));
  await lastValueFrom(executorOf(store, [answer("Hello!")]).stream({ input: "Say hello" }, { runId: "hello" }));
  browser = await launchChromium();
  server = await startUiServer({ store, source: "memory", port: 0 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await browser?.closeAll();
});

describe.skipIf(skip)("the diff page in Chromium", () => {
  it("shows a run and its fork: the shared prefix collapsed, the first divergence marked and scrolled to", async () => {
    const errors: string[] = [];
    const page = await open("/diff?a=trip&b=trip-fork", errors);
    expect(await page.locator(".diff-banner").textContent()).toContain("First divergence: Iteration 2: tool call 0 (weather) has a different input.");
    // The shared prefix: iterations 0 and 1, collapsed.
    const prefix = page.locator("details.shared-prefix");
    expect(await prefix.getAttribute("open")).toBeNull();
    expect(await prefix.locator(":scope > summary").textContent()).toBe("Shared prefix: iterations 0–1, the same in both runs; b is a fork of a at iteration 2");
    expect(await prefix.locator("section[data-iteration]").evaluateAll((sections) => sections.map((section) => section.getAttribute("data-iteration")))).toEqual(["0", "1"]);
    // The first divergence: the tool calls of iteration 2, one side each, marked.
    const first = page.locator("[data-first-divergence]");
    expect(await first.count()).toBe(1);
    expect(await first.getAttribute("data-field")).toBe("toolCalls");
    expect(await first.evaluate((element) => element.closest("section")?.getAttribute("data-iteration"))).toBe("2");
    expect(await first.locator('[data-side="a"] code').first().textContent()).toBe('weather({"city":"Oslo"})');
    expect(await first.locator('[data-side="b"] code').first().textContent()).toBe('weather({"city":"Madrid"})');
    // It was scrolled into view: the body scrolled, and the marked row is inside the window.
    await page.waitForFunction(() => (document.querySelector(".diff-body")?.scrollTop ?? 0) > 0);
    const box = (await first.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeLessThan(500);
    // The recorded prompts of iteration 2 (the same: the fork was sent the same conversation), and the answers.
    const recorded = page.locator('section[data-iteration="2"] details.recorded-prompt summary');
    expect(await recorded.textContent()).toMatch(/^Recorded prompt: 6 messages in a, 6 in b \(the same\)$/);
    const answers = page.locator('[data-field="answer"] .cell');
    expect(await answers.allTextContents()).toEqual(["Sunny everywhere.", "Sunny in Madrid too."]);
    // Three tool-calling model calls ($0.0035 each) and the answer ($0.0070).
    expect((await page.locator('[data-field="cost"] .cell').allTextContents())[0]).toBe("$0.0175");
    // The runs link to their pages.
    expect(await page.locator('.run-card[data-side="b"] a').getAttribute("href")).toBe("/runs/trip-fork");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows two unrelated runs: the inputs are the first divergence, no shared prefix", async () => {
    const errors: string[] = [];
    const page = await open("/diff?a=hello&b=trip", errors);
    expect(await page.locator(".diff-banner").textContent()).toContain("First divergence: The runs started with different inputs.");
    expect(await page.locator("details.shared-prefix").count()).toBe(0);
    expect(await page.locator("[data-first-divergence]").getAttribute("data-section")).toBe("inputs");
    expect(await page.locator('[data-section="inputs"] .cell').allTextContents()).toEqual([
      JSON.stringify({ input: "Say hello" }, null, 2),
      JSON.stringify({ input: "Paris, Rome, then Oslo?" }, null, 2),
    ]);
    // Run a has one iteration, b four: iterations 1 to 3 say that a has none.
    expect(await page.locator('section[data-iteration="3"] p.muted').textContent()).toBe("Run a has no iteration 3.");
    expect(await page.locator(".run-card .mono").allTextContents()).toEqual(["hello", "trip"]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("says so when the runs do not differ", async () => {
    const errors: string[] = [];
    const page = await open("/diff?a=trip&b=trip", errors);
    expect(await page.locator(".diff-banner").textContent()).toBe("No divergence: same inputs, iterations and answer.");
    expect(await page.locator("[data-first-divergence]").count()).toBe(0);
    expect(await page.locator('[data-field="answer"] .cell.both').textContent()).toBe("Sunny everywhere.");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("compares two runs ticked in the run list (the older one is a)", async () => {
    const errors: string[] = [];
    const page = await open("/", errors);
    const compare = page.locator('[data-action="compare"]');
    expect(await compare.isDisabled()).toBe(true);
    await page.check('[data-select="trip-fork"]');
    expect(await compare.isDisabled()).toBe(true);
    await page.check('[data-select="hello"]');
    await page.check('[data-select="trip"]');
    expect(await compare.isDisabled()).toBe(true); // three ticked
    await page.uncheck('[data-select="hello"]');
    expect(await compare.isDisabled()).toBe(false);
    await compare.click();
    await page.waitForURL((url) => url.pathname === "/diff");
    const url = new URL(page.url());
    expect([url.searchParams.get("a"), url.searchParams.get("b")]).toEqual(["trip", "trip-fork"]);
    await page.waitForSelector("[data-first-divergence]");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("links a fork's trace page to its diff with the run it was forked from", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/runs/trip-fork`);
    const link = page.locator("[data-compare-parent]");
    expect(await link.textContent()).toBe("Compare with parent run trip");
    await link.click();
    await page.waitForSelector("[data-first-divergence]");
    expect(new URL(page.url()).search).toBe("?a=trip&b=trip-fork");
    // A run that is not a fork has no such link.
    await page.goto(`${server.url}/runs/trip`);
    await page.waitForSelector('[role="treeitem"]');
    expect(await page.locator("[data-compare-parent]").count()).toBe(0);
    await page.close();
  });

  it("answers 400 without two runs and 404 for an unknown one", async () => {
    expect((await fetch(`${server.url}/diff?a=trip`)).status).toBe(400);
    const missing = await fetch(`${server.url}/diff?a=trip&b=nope`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("No run &#34;nope&#34;");
  });
});
