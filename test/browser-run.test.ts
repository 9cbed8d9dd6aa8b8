// AgentRx in a real browser: a script using @agentrx/core/testing, @agentrx/agents,
// @agentrx/executors and @agentrx/runs is bundled for the browser (as an application's bundler
// would, from the packages' dist) and run in headless Chromium, served from http://localhost (a
// secure context, like a dev server). Needs `npm run build` first, and Chromium at /usr/bin/chromium.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForBrowser, describeBuiltins, type BrowserBundle } from "./browser/bundle-for-browser";
import { launchChromium, skipWithoutChromium } from "./browser/chromium";

const skip = skipWithoutChromium("AgentRx in the browser");
const ORIGIN = "http://localhost";
const PAGE = `<!doctype html><meta charset="utf-8"><title>AgentRx in the browser</title><script type="module" src="/agent.js"></script>`;

let bundle: BrowserBundle;
let browser: Browser | undefined;
let page: Page;
const pageErrors: string[] = [];
/** The requests the page sent to its origin's model route: authorization header and body. */
const modelRequests: { authorization: string | undefined; body: { model: string; messages: unknown[] } }[] = [];

const COMPLETION = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello from the route." }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
};

/** Calls `agentRx[name]()` in the page and returns what it resolves to. */
function inPage<T>(name: "answer" | "unsubscribe" | "abort" | "listTies" | "openai" | "nodeGlobals"): Promise<T> {
  return page.evaluate((fn) => (globalThis as unknown as { agentRx: Record<string, () => Promise<unknown>> }).agentRx[fn]!(), name) as Promise<T>;
}

beforeAll(async () => {
  if (skip) return;
  bundle = await bundleForBrowser({ entryPoint: "test/browser/fixtures/agent-in-browser.ts" });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  // The page and the bundle are served by the test itself: nothing goes to the network.
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/") return route.fulfill({ contentType: "text/html", body: PAGE });
    if (path === "/agent.js") return route.fulfill({ contentType: "text/javascript", body: bundle.code });
    if (path === "/api/llm/v1/chat/completions") {
      modelRequests.push({ authorization: route.request().headers().authorization, body: route.request().postDataJSON() });
      return route.fulfill({ contentType: "application/json", body: JSON.stringify(COMPLETION) });
    }
    return route.fulfill({ status: 404, body: "" });
  });
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction(() => "agentRx" in globalThis, undefined, { timeout: 30_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe.skipIf(skip)("AgentRx in Chromium", () => {
  it("is bundled with no Node built-in, from the packages' builds", () => {
    expect(bundle.builtins, describeBuiltins(bundle.builtins)).toEqual([]);
    expect(bundle.inputs).toEqual(expect.arrayContaining(["packages/core/dist/testing/index.browser.js", "packages/runs/dist/index.browser.js", "packages/agents/dist/index.js", "packages/executors/dist/index.js"]));
  });

  it("runs in a page that has none of Node's globals", async () => {
    expect(await inPage<string[]>("nodeGlobals")).toEqual([]);
  });

  it("streams a run: the tool call, its result, the answer token by token, and the record in a MemoryRunStore", async () => {
    const run = await inPage<{
      types: string[];
      output: string;
      stopReason: string;
      observation: string;
      streamed: string;
      recorded: { runId: string; status: string; events: number };
      runId: string;
    }>("answer");
    expect(run.types[0]).toBe("start");
    expect(run.types.at(-1)).toBe("output");
    expect(run.types.filter((type) => type !== "token")).toEqual(["start", "usage", "action", "step", "usage", "output"]);
    expect(run.types.filter((type) => type === "token").length).toBeGreaterThan(1);
    expect(run.observation).toBe("Sunny, 21 °C");
    expect(run.output).toBe("Sunny in Paris, 21 °C.");
    expect(run.streamed).toBe("Sunny in Paris, 21 °C.");
    expect(run.stopReason).toBe("finish");
    expect(run.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.recorded).toMatchObject({ runId: run.runId, status: "finished" });
    expect(run.recorded.events).toBeGreaterThanOrEqual(4);
  });

  it("cancels a run when its subscriber unsubscribes: the tool in flight is aborted and the run recorded as cancelled", async () => {
    const run = await inPage<{ types: string[]; toolAborted: boolean; modelCalls: number; status: string }>("unsubscribe");
    expect(run).toEqual({ types: ["start", "usage", "action"], toolAborted: true, modelCalls: 1, status: "cancelled" });
  });

  it("aborts a run with an AbortSignal: an AbortError with the signal's reason", async () => {
    const run = await inPage<{ errorName: string; isAbortError: boolean; reason: unknown; toolAborted: boolean }>("abort");
    expect(run).toEqual({ errorName: "AbortError", isAbortError: true, reason: "the user pressed stop", toolAborted: true });
  });

  it("lists runs created at the same moment by code point, as SQLite and PostgreSQL do (no Buffer needed)", async () => {
    expect(await inPage<string[]>("listTies")).toEqual(["\u{1F600}", "\uFF5E", "b", "a"]);
  });

  it("calls OpenAI through the page's origin with dangerouslyAllowBrowser, and is refused without it", async () => {
    const result = await inPage<{ refusal: string | undefined; content: string; baseURL: string }>("openai");
    expect(result.refusal).toMatch(/browser-like environment[\s\S]*dangerouslyAllowBrowser/);
    expect(result).toMatchObject({ content: "Hello from the route.", baseURL: `${ORIGIN}/api/llm/v1` });
    expect(modelRequests).toHaveLength(1);
    expect(modelRequests[0]).toMatchObject({ authorization: "Bearer unused", body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hello." }] } });
  });

  it("raised no error in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
