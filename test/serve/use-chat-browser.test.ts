// The AI SDK's real useChat (@ai-sdk/react) in headless Chromium against a Node server that answers
// with the chat route of docs/serving.md (packages/serve/src/test-helpers/chat-route.ts, on
// @agentrx/serve): a page built with Vite in the test, a scripted agent (no network, no key).
// Needs Chromium at /usr/bin/chromium (skipped without it, failed in CI).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryRunStore } from "@agentrx/runs";
import { writeResponse } from "@agentrx/serve";
import type { Browser, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatRoute, chatRoute } from "../../packages/serve/src/test-helpers/chat-route";
import { ANSWER, weatherExecutor } from "../../packages/serve/src/test-helpers/weather-executor";
import { launchChromium, skipWithoutChromium } from "../browser/chromium";

const skip = skipWithoutChromium("useChat against @agentrx/serve");
const SLOW_ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ") + ".";
const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

let outDir: string;
let server: Server;
let origin: string;
let browser: Browser | undefined;
const store = new MemoryRunStore();
const pageErrors: string[] = [];
/** The reconnections (useChat's resume) the route answered with a run's stream. */
const reconnections: string[] = [];

/**
 * The chat route of docs/serving.md, one per kind of chat (each on a scripted executor of its
 * own): the chat id's prefix says which. useChat answers approvals with approve or reject only,
 * so there is no edited input for `tools` to check.
 */
const routes = {
  approve: chatRoute(weatherExecutor({ approval: true, store }), { store, tools: [] }),
  slow: chatRoute(weatherExecutor({ store, tokenDelayMs: 40, answer: SLOW_ANSWER }), { store, tools: [] }),
  tools: chatRoute(weatherExecutor({ store }), { store, tools: [] }),
};
const routeOf = (chatId: string): ChatRoute => routes[chatId.split("-")[0] as keyof typeof routes] ?? routes.tools;

/** A Node request's body as text. */
async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The chat id a POST names, to pick its route ("" for a body that is not JSON: the route answers 400). */
function chatIdOf(body: string): string {
  try {
    return String((JSON.parse(body) as { id?: unknown }).id ?? "");
  } catch {
    return "";
  }
}

beforeAll(async () => {
  if (skip) return;
  outDir = mkdtempSync(join(tmpdir(), "agentrx-use-chat-"));
  await build({
    configFile: false,
    logLevel: "error",
    root: fileURLToPath(new URL("./use-chat-page", import.meta.url)),
    build: { outDir, emptyOutDir: true, minify: false },
  });
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method === "POST" && url.pathname === "/api/chat") {
      const body = await bodyOf(req);
      const request = new Request(url, { method: "POST", headers: { "content-type": req.headers["content-type"] ?? "application/json" }, body });
      return writeResponse(await routeOf(chatIdOf(body)).POST(request), res);
    }
    const resume = /^\/api\/chat\/([^/]+)\/stream$/.exec(url.pathname);
    if (req.method === "GET" && resume) {
      const id = decodeURIComponent(resume[1] as string);
      const response = await routeOf(id).GET(new Request(url), { params: { id } });
      if (response.status === 200) reconnections.push(id);
      return writeResponse(response, res);
    }
    const file = normalize(join(outDir, url.pathname === "/" ? "index.html" : url.pathname));
    if (!file.startsWith(outDir)) return void res.writeHead(404).end();
    try {
      const body = readFileSync(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

async function openChat(chatId: string): Promise<Page> {
  const page = await (browser as Browser).newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(`${origin}/?chat=${chatId}`);
  await page.waitForSelector("#status");
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill("#input", text);
  await page.click("#send");
}

const assistantText = (page: Page) => page.locator('.message[data-role="assistant"] .text').allTextContents().then((texts) => texts.join(""));

describe.skipIf(skip)("useChat (@ai-sdk/react) against @agentrx/serve in Chromium", () => {
  it("renders a streamed answer with two tool calls", async () => {
    const page = await openChat("tools-1");
    await send(page, "Weather and time in Paris?");
    await page.waitForSelector('.message[data-role="assistant"][data-stop="finish"]');
    await expect.poll(() => page.textContent("#status")).toBe("ready");
    expect(await page.locator(".tool").evaluateAll((nodes) => nodes.map((node) => [node.getAttribute("data-tool"), node.getAttribute("data-state"), node.textContent]))).toEqual([
      ["get_weather", "output-available", 'get_weather({"city":"Paris"}) = sunny in Paris'],
      ["get_time", "output-available", 'get_time({"city":"Paris"}) = 14:05 in Paris'],
    ]);
    expect(await assistantText(page)).toBe(`Let me check. ${ANSWER}`);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("asks for approval; clicking Approve resumes the run, which finishes", async () => {
    const page = await openChat("approve-1");
    await send(page, "Weather and time in Paris?");
    await page.waitForSelector('.tool[data-tool="get_time"][data-state="approval-requested"] button.approve');
    expect(await page.getAttribute('.message[data-role="assistant"]', "data-stop")).toBe("interrupted");
    await page.click("button.approve");
    await page.waitForSelector('.message[data-role="assistant"][data-stop="finish"]');
    expect(await page.locator(".tool").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-state")))).toEqual(["output-available", "output-available"]);
    expect(await page.textContent('.tool[data-tool="get_time"] .output')).toBe(" = 14:05 in Paris");
    expect(await assistantText(page)).toBe(`Let me check. ${ANSWER}`);
    expect(await page.locator('.message[data-role="assistant"]').count()).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("a reload in the middle of the run reconnects and shows the whole answer once", async () => {
    const page = await openChat("slow-1");
    await send(page, "Weather and time in Paris?");
    await expect.poll(() => assistantText(page), { timeout: 15_000 }).toContain("word5 ");
    const before = await assistantText(page);
    expect(before).not.toContain("word59.");
    expect(reconnections).toEqual([]);
    await page.reload();
    await page.waitForSelector('.message[data-role="assistant"][data-stop="finish"]', { timeout: 20_000 });
    expect(await assistantText(page)).toBe(`Let me check. ${SLOW_ANSWER}`);
    expect(await page.locator(".tool").count()).toBe(2);
    expect(reconnections).toHaveLength(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
