// Records a weather run and its fork (which asks for another city after two iterations) into a
// temporary SQLite store, writes their diff page with `agentrx diff --html`, and takes the
// screenshot of docs/trace-viewer.md's "Comparing two runs" with the system's Chromium:
//
//   npx tsx scripts/trace-viewer-diff-screenshot.ts
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";
import { runCli } from "../packages/runs/src/cli/run-cli";
import { launchChromium } from "../packages/viewer/src/trace/browser-test-helpers";

const dir = mkdtempSync(join(tmpdir(), "agentrx-diff-screenshot-"));
mkdirSync(join(dir, ".agentrx"));
const db = join(dir, ".agentrx", "runs.db");
const docs = join(import.meta.dirname, "..", "docs");

const prompt = ChatPromptTemplate.fromMessages([["system", "You plan trips."], ["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
const forecasts: Record<string, string> = { Paris: "Paris: 21°C, sunny.", Rome: "Rome: 27°C, clear.", Oslo: "Oslo: 9°C, rain all week.", Lisbon: "Lisbon: 24°C, sunny." };
function executorOf(store: RunStore, responses: ScriptedResponse[]) {
  const weather = tool(async ({ city }: { city: string }) => forecasts[city] ?? "unknown", { name: "weather", description: "The week's forecast.", schema: z.object({ city: z.string() }) });
  const llm = new ScriptedChatModel({ responses, model: "gpt-4o" });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], store, prices: { "gpt-4o": { input: 2.5, output: 10 } } });
}
const call = (city: string): ScriptedResponse => ({ toolCalls: [{ name: "weather", args: { city }, id: `call-${city}` }], usage: { inputTokens: 900, outputTokens: 40 } });
const answer = (text: string): ScriptedResponse => ({ content: text, usage: { inputTokens: 1400, outputTokens: 120 } });

const store = new SqliteRunStore({ path: db });
const source = "3f2a9c1e-7b4d-4e8a-9c61-2d5f8e0b7a13";
const fork = "b81e4d07-2c9a-4f3b-8e56-a1d0c7f94e22";
await lastValueFrom(
  executorOf(store, [call("Paris"), call("Rome"), call("Oslo"), answer("Paris and Rome are warm; pack a raincoat for Oslo.")]).stream(
    { input: "Three cities next week: Paris, Rome, then somewhere north. What should I pack?" },
    { runId: source },
  ),
);
await lastValueFrom(executorOf(store, [call("Lisbon"), answer("Warm and sunny everywhere: light clothes will do.")]).fork(source, { at: 2, runId: fork }));
await store.close();

const html = join(dir, "diff.html");
const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: dir };
if ((await runCli(["diff", source, fork, "--html", html], io)) !== 0) throw new Error("agentrx diff --html failed");

const browser = await launchChromium();
const page = await browser.newPage();
await page.setViewportSize({ width: 1280, height: 640 });
await page.goto(pathToFileURL(html).href);
await page.waitForSelector("[data-first-divergence]");
await page.waitForTimeout(1500); // the divergence's flash fades
await page.screenshot({ path: join(docs, "trace-viewer-diff.png") });
await browser.closeAll();
rmSync(dir, { recursive: true, force: true });
console.log(`Screenshot written to ${join(docs, "trace-viewer-diff.png")}.`);
