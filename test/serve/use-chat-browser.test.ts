// The AI SDK's real useChat (@ai-sdk/react) in headless Chromium against a Node server that answers
// with the chat route of docs/serving.md (packages/serve/src/test-helpers/chat-route.ts, on
// @agentrx/serve): a page built with Vite in the test, a scripted agent (no network, no key).
// Needs Chromium at /usr/bin/chromium (skipped without it, failed in CI).
//
// The same page is built twice: on the AI SDK the repository installs (ai 6, @ai-sdk/react 3), and
// on the latest major (ai 7, @ai-sdk/react 4, which need Node.js 22 to run on a server but bundle
// for a browser from any), which the test installs into .cache/ai-sdk-7 from npm's registry (a
// new project gets it; without the registry its tests are skipped with a line saying why, and fail
// with CI set).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** The AI SDK the latest page is built on, at the versions a new project gets. */
const LATEST = { ai: "7.0.173", "@ai-sdk/react": "4.0.177" };
const latestDir = fileURLToPath(new URL("../../.cache/ai-sdk-7/", import.meta.url));

/**
 * Installs {@link LATEST} into .cache/ai-sdk-7 (once; its peers, React and zod, resolve from the
 * repository's node_modules above it, so the page has one React); returns why it could not, or
 * undefined.
 */
function installLatest(): string | undefined {
  const installed = (name: string) => {
    try {
      return JSON.parse(readFileSync(join(latestDir, "node_modules", name, "package.json"), "utf8")).version as string;
    } catch {
      return undefined;
    }
  };
  if (Object.entries(LATEST).every(([name, version]) => installed(name) === version)) return undefined;
  mkdirSync(latestDir, { recursive: true });
  const manifest = { name: "agentrx-test-ai-sdk-7", private: true, description: "Written by test/serve/use-chat-browser.test.ts.", dependencies: LATEST };
  writeFileSync(join(latestDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  try {
    const fetch = ["--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=5000"];
    execFileSync("npm", ["install", "--legacy-peer-deps", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock", ...fetch], { cwd: latestDir, stdio: "pipe", timeout: 180_000 });
    return undefined;
  } catch (error) {
    const output = `${(error as { stderr?: Buffer }).stderr?.toString() ?? (error as Error).message}`.trim().split("\n").slice(-3).join(" ");
    return `ai ${LATEST.ai} and @ai-sdk/react ${LATEST["@ai-sdk/react"]} could not be installed from npm's registry (${output})`;
  }
}

/** The page's two builds: the repository's AI SDK at /, the latest at /ai7/. */
const builds = [
  { name: "ai 6, @ai-sdk/react 3", base: "/", suffix: "", outDir: "", skip: undefined as string | undefined },
  { name: `ai ${LATEST.ai}, @ai-sdk/react ${LATEST["@ai-sdk/react"]}`, base: "/ai7/", suffix: "-v7", outDir: "", skip: undefined as string | undefined },
];

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
const routesOf = () => ({
  approve: chatRoute(weatherExecutor({ approval: true, store }), { store, tools: [] }),
  slow: chatRoute(weatherExecutor({ store, tokenDelayMs: 40, answer: SLOW_ANSWER }), { store, tools: [] }),
  tools: chatRoute(weatherExecutor({ store }), { store, tools: [] }),
});
/** Each build's own routes (a scripted executor plays its script once): a chat id ending in -v7 is the latest build's. */
const routes = { current: routesOf(), latest: routesOf() };
const routeOf = (chatId: string): ChatRoute => {
  const ofBuild = chatId.endsWith("-v7") ? routes.latest : routes.current;
  return ofBuild[chatId.split("-")[0] as keyof typeof ofBuild] ?? ofBuild.tools;
};

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
  const [current, latest] = builds as [(typeof builds)[0], (typeof builds)[0]];
  latest.skip = installLatest();
  if (latest.skip !== undefined) {
    if (process.env.CI) throw new Error(`${latest.skip}; with CI set, the useChat tests of the latest AI SDK need it.`);
    console.warn(`Skipping the useChat tests of the latest AI SDK: ${latest.skip} (with CI set, this fails instead).`);
  }
  const root = fileURLToPath(new URL("./use-chat-page", import.meta.url));
  for (const each of builds) {
    if (each.skip !== undefined) continue;
    each.outDir = mkdtempSync(join(tmpdir(), "agentrx-use-chat-"));
    // The latest build takes `ai` and `@ai-sdk/react` from .cache/ai-sdk-7 (React from the repository's).
    const alias = each === current ? [] : ["ai", "@ai-sdk/react"].map((name) => ({ find: new RegExp(`^${name}$`), replacement: join(latestDir, "node_modules", name) }));
    await build({
      configFile: false,
      logLevel: "error",
      root,
      base: each.base,
      resolve: { alias },
      build: { outDir: each.outDir, emptyOutDir: true, minify: false },
    });
  }
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
    const served = url.pathname.startsWith("/ai7/") ? builds[1]! : builds[0]!;
    const path = url.pathname.slice(served.base.length - 1);
    const file = normalize(join(served.outDir, path === "/" ? "index.html" : path));
    if (!served.outDir || !file.startsWith(served.outDir)) return void res.writeHead(404).end();
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
  for (const each of builds) if (each.outDir) rmSync(each.outDir, { recursive: true, force: true });
});

async function openChat(chatId: string, base = "/"): Promise<Page> {
  const page = await (browser as Browser).newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(`${origin}${base}?chat=${chatId}`);
  await page.waitForSelector("#status");
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill("#input", text);
  await page.click("#send");
}

const assistantText = (page: Page) => page.locator('.message[data-role="assistant"] .text').allTextContents().then((texts) => texts.join(""));

for (const each of builds) {
describe.skipIf(skip)(`useChat (${each.name}) against @agentrx/serve in Chromium`, () => {
  it("renders a streamed answer with two tool calls", async ({ skip }) => {
    skip(each.skip !== undefined, each.skip);
    const page = await openChat(`tools-1${each.suffix}`, each.base);
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

  it("asks for approval; clicking Approve resumes the run, which finishes", async ({ skip }) => {
    skip(each.skip !== undefined, each.skip);
    const page = await openChat(`approve-1${each.suffix}`, each.base);
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

  it("a reload in the middle of the run reconnects and shows the whole answer once", async ({ skip }) => {
    skip(each.skip !== undefined, each.skip);
    const chatId = `slow-1${each.suffix}`;
    const page = await openChat(chatId, each.base);
    await send(page, "Weather and time in Paris?");
    await expect.poll(() => assistantText(page), { timeout: 15_000 }).toContain("word5 ");
    const before = await assistantText(page);
    expect(before).not.toContain("word59.");
    expect(reconnections.filter((id) => id === chatId)).toEqual([]);
    await page.reload();
    await page.waitForSelector('.message[data-role="assistant"][data-stop="finish"]', { timeout: 20_000 });
    expect(await assistantText(page)).toBe(`Let me check. ${SLOW_ANSWER}`);
    expect(await page.locator(".tool").count()).toBe(2);
    expect(reconnections.filter((id) => id === chatId)).toHaveLength(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
}
