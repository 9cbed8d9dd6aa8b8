// The trace page as a debugger, in headless Chromium: what it says of model calls that were not
// streamed, the live text of a streaming call, zooming the waterfall, sub-runs, cost and the exact
// requests, and images in tool results.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { readTracePage, tracePageHtml } from "@agentrx/viewer/trace-page";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { launchChromium, skipWithoutChromium } from "./browser-test-helpers";

const skip = skipWithoutChromium("trace page as a debugger (browser)");
const dir = mkdtempSync(join(tmpdir(), "agentrx-trace-debugger-"));
let browser: Awaited<ReturnType<typeof launchChromium>>;
const store = new MemoryRunStore();

async function writePage(runId: string, from: RunStore = store): Promise<string> {
  const path = join(dir, `${runId}.html`);
  writeFileSync(path, tracePageHtml(await readTracePage(from, runId, { mode: "file", source: "MemoryRunStore" })));
  return path;
}

/** A page that fails the test on any script error. */
async function open(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector('[role="treeitem"]');
  return { page, errors };
}

/** The value of a row of the detail's key-value list. */
const detailValue = (page: Page, key: string) => page.locator(".detail dl.kv dt", { hasText: new RegExp(`^${key}$`) }).locator("xpath=following-sibling::dd[1]").textContent();

/** An agent that asks for one lookup, then answers. */
function lookupExecutor(options: { store: RunStore; responses?: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"] } & Record<string, unknown>) {
  const { store: runStore, responses, ...rest } = options;
  const lookup = tool(async ({ q }) => `found ${q}`, { name: "lookup", description: "Looks something up.", schema: z.object({ q: z.string() }) });
  const llm = new ScriptedChatModel({ streaming: true, latencyMs: 5, tokenDelayMs: 1, responses: responses ?? [{ toolCalls: [{ name: "lookup", args: { q: "x" } }] }, "The answer is 42."] });
  const prompt = ChatPromptTemplate.fromMessages([["system", "You look things up."], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store: runStore, ...rest });
}

beforeAll(async () => {
  if (skip) return;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)("model calls that were not streamed", () => {
  it("says an invoke run's calls were not streamed instead of leaving the first token blank", async () => {
    await lookupExecutor({ store }).invoke({ input: "What is it?" }, { runId: "invoked" });
    const { page, errors } = await open(pathToFileURL(await writePage("invoked")).href);
    expect(await page.locator('[data-id="model-1-0"] .note').textContent()).toMatch(/^The answer is 42\. · not streamed/);
    expect(await page.locator(".bar .ttft").count()).toBe(0);
    await page.click('[data-id="model-1-0"] .label');
    expect(await detailValue(page, "First token")).toBe("– (not streamed: nothing watched the model's tokens, as in an invoke run)");
    expect(await page.locator('.detail [data-field="reply.content"]').textContent()).toBe("The answer is 42.");
    expect(await page.locator(".detail").textContent()).not.toMatch(/waiting for the reply/i);
    expect(errors).toEqual([]);
    await page.close();
  });
});
