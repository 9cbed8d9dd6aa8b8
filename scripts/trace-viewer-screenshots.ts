// Records the trip-planning run of the trace viewer's tests (real tools with real delays, a retry
// and a timeout policy) into a temporary SQLite store, and takes the screenshots of
// docs/trace-viewer.md with the system's Chromium (/usr/bin/chromium):
//
//   npx tsx scripts/trace-viewer-screenshots.ts
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { AgentExecutor } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";
import { runCli } from "../packages/runs/src/cli/run-cli";
import { launchChromium } from "../packages/viewer/src/trace/browser-test-helpers";
import { recordImageRun, recordSupervisorRun } from "../packages/viewer/src/trace/trace-debugger-fixtures";
import { recordTripRun } from "../packages/viewer/src/trace/trace-test-fixtures";
import { startUiServer } from "../packages/viewer/src/ui/start-ui-server";

const dir = mkdtempSync(join(tmpdir(), "agentrx-screenshots-"));
mkdirSync(join(dir, ".agentrx"));
const db = join(dir, ".agentrx", "runs.db"); // where the demo records, as seen from its folder
const docs = join(import.meta.dirname, "..", "docs");
const store = new SqliteRunStore({ path: db });
// Priced as a small hosted model is (dollars per million tokens), so the header has a cost.
await recordTripRun(store, { runId: "8c1f0b3e-5d2a-4c6e-9a71-3f4b2d9e6a10", prices: { "trip-model": { input: 2.5, output: 10 } } });
await recordTripRun(store, { runId: "2b7d4e91-0c3a-4f58-b6e2-9d1a7c5f3e84", threadId: "support-57", scale: 0.6 });
const runId = "8c1f0b3e-5d2a-4c6e-9a71-3f4b2d9e6a10";

const html = join(dir, "run.html");
// `npx agentrx trace <runId> -o run.html`, run in the store's folder.
const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: dir };
if ((await runCli(["trace", runId, "-o", html], io)) !== 0) throw new Error("agentrx trace failed");

const browser = await launchChromium();
const page = await browser.newPage();
await page.setViewportSize({ width: 1440, height: 720 });
await page.goto(pathToFileURL(html).href);
await page.click('[data-fact="slowest"] button');
await page.screenshot({ path: join(docs, "trace-viewer.png") });
await page.click('[data-id="tool-1-0"] .label');
await page.emulateMedia({ colorScheme: "dark" });
await page.screenshot({ path: join(docs, "trace-viewer-dark.png") });

// Zoomed on the second turn, with the exact request of its model call open.
await page.emulateMedia({ colorScheme: "light" });
await page.click('[data-id="model-1-0"] .label');
await page.keyboard.press("z");
await page.click('.detail details[data-section="request"] summary');
await page.waitForTimeout(100);
await page.screenshot({ path: join(docs, "trace-viewer-zoom.png") });

// A sub-run (an executor called as a tool) under its tool call, and a tool's images.
const subRunHtml = join(dir, "supervisor.html");
await recordSupervisorRun(store, "3d9a61f2-7b0e-4c85-9f13-c2e8a4b7d506", { delayMs: 120 });
if ((await runCli(["trace", "3d9a61f2-7b0e-4c85-9f13-c2e8a4b7d506", "-o", subRunHtml], io)) !== 0) throw new Error("agentrx trace failed");
await page.setViewportSize({ width: 1440, height: 780 });
await page.goto(pathToFileURL(subRunHtml).href);
await page.click('[data-id="tool-0-0/sub0/tool-1-0"] .label');
await page.screenshot({ path: join(docs, "trace-viewer-subrun.png") });
const imagesHtml = join(dir, "images.html");
await recordImageRun(store, "a4c27e90-1f6b-4d3a-8e55-0b9d3f7c2e61");
if ((await runCli(["trace", "a4c27e90-1f6b-4d3a-8e55-0b9d3f7c2e61", "-o", imagesHtml], io)) !== 0) throw new Error("agentrx trace failed");
await page.setViewportSize({ width: 1440, height: 600 });
await page.goto(pathToFileURL(imagesHtml).href);
await page.click('[data-id="tool-0-0"] .label');
await page.locator(".detail .images").scrollIntoViewIfNeeded();
await page.waitForTimeout(100);
await page.screenshot({ path: join(docs, "trace-viewer-images.png") });
await page.setViewportSize({ width: 1440, height: 720 });

// A run paused for approval, and a ui that can act on it (an executor over the same store).
const refund = withApproval(tool(async ({ order }: { order: string }) => `refunded ${order}`, { name: "refund_order", description: "Refunds an order.", schema: z.object({ order: z.string() }) }));
const agent = RunnableLambda.from(async (input: { steps: unknown[] }) =>
  input.steps.length === 0
    ? [{ tool: "refund_order", toolInput: { order: "A-1042" }, log: "", toolCallId: "call_1", messageLog: [] }]
    : { returnValues: { output: "Refunded order A-1042." }, log: "" },
);
const executor = new AgentExecutor({ agent: agent as never, tools: [refund], store });
await lastValueFrom(executor.stream({ input: "Refund order A-1042, it arrived broken." }, { runId: "5e0c9d27-8a41-4b3f-a6d2-71c8e4f09b35" }));
const server = await startUiServer({ store, source: "SQLite .agentrx/runs.db", port: 0, executor });
await page.setViewportSize({ width: 1440, height: 520 });
await page.goto(`${server.url}/runs/5e0c9d27-8a41-4b3f-a6d2-71c8e4f09b35`);
await page.waitForSelector("[data-interrupt]");
await page.screenshot({ path: join(docs, "trace-viewer-actions.png") });

// A run in progress, its model streaming its answer (recordTokens: "each"), followed live.
const streamingModel = new ScriptedChatModel({
  streaming: true,
  latencyMs: 400,
  tokenDelayMs: 90,
  responses: [
    { toolCalls: [{ name: "get_weather", args: { city: "Nice" } }] },
    "Nice will be sunny all week: 24°C on Friday, a light sea breeze in the afternoon, and a warm evening for a walk along the Promenade des Anglais. Pack sunscreen and a light jacket.",
  ],
});
const weather = tool(async ({ city }: { city: string }) => `${city}: 24°C, sunny; light wind`, { name: "get_weather", description: "Weather.", schema: z.object({ city: z.string() }) });
const streamingPrompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const streaming = new AgentExecutor({ agent: createToolCallingAgent({ llm: streamingModel, tools: [weather], prompt: streamingPrompt }), tools: [weather], store, recordTokens: "each" });
const liveRun = lastValueFrom(streaming.stream({ input: "What will the weather be in Nice?" }, { runId: "e71b2c4d-9a3f-4e08-b5d6-28c1f9a0e347" }));
await page.setViewportSize({ width: 1440, height: 600 });
while ((await store.getRun("e71b2c4d-9a3f-4e08-b5d6-28c1f9a0e347")) === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
await page.goto(`${server.url}/runs/e71b2c4d-9a3f-4e08-b5d6-28c1f9a0e347`);
await page.waitForSelector('[data-id="model-1-0"]', { timeout: 20_000 });
await page.click('[data-id="model-1-0"] .label');
await page.waitForFunction(() => (document.querySelector('.detail [data-field="live-text"]')?.textContent?.length ?? 0) > 90, undefined, { timeout: 20_000 });
await page.screenshot({ path: join(docs, "trace-viewer-live.png") });
await liveRun;

await page.emulateMedia({ colorScheme: "light" });
// Tall enough for all six runs: the trip run's cost shows.
await page.setViewportSize({ width: 1200, height: 340 });
await page.goto(`${server.url}/`);
await page.waitForSelector("table.runs tbody tr");
await page.screenshot({ path: join(docs, "trace-viewer-runs.png") });
await server.close();
await browser.closeAll();
await store.close();
rmSync(dir, { recursive: true, force: true });
console.log(`Screenshots written to ${docs}.`);
