// The trace page in headless Chromium, at its edges: a file opened long after it was made, a run
// whose process stopped (stalled), a live stream that fails, a screen reader, the browser's own
// shortcuts, a call in doubt, and a message sent to the run with an image.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type RunStore, type StoredRunEvent, encodeRunEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { readTracePage, tracePageHtml } from "@agentrx/viewer/trace-page";
import { HumanMessage } from "@langchain/core/messages";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { startUiServer, type UiServer } from "../ui/start-ui-server";
import { chromiumSuite } from "./chromium-suite";
import { pngBase64 } from "./trace-debugger-fixtures";
import { inDoubtRun } from "./in-doubt-fixtures";

const { skip, dir, browser } = chromiumSuite("trace page edges (browser)", "agentrx-trace-edges-");
const HOUR = 3_600_000;
const owner = "worker:1";

let server: UiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});


const event = (seq: number, at: number, data: Record<string, unknown>): StoredRunEvent => ({ seq, type: String(data["type"]), at, data: encodeRunEvent({ at, ...data } as never) as StoredRunEvent["data"] });
const reply = { type: "ai", data: { content: "", tool_calls: [{ name: "lookup", args: { q: "x" }, id: "c1", type: "tool_call" }], invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} } };

/** A run that started at `t0`, asked for `lookup` 30 ms in, and is still running (its lease `leaseMs`). */
async function runningRun(store: MemoryRunStore, runId: string, t0: number, leaseMs: number): Promise<void> {
  await store.createRun({ runId, inputs: { input: "look" }, status: "running", owner, leaseMs, at: t0 });
  await store.write(runId, {
    owner,
    leaseMs,
    at: t0 + 30,
    events: [
      event(1, t0, { type: "start", runId, inputs: { input: "look" }, resumed: false }),
      { seq: 2, type: "model_call", at: t0 + 20, data: { type: "model_call", at: t0 + 20, call: 0, iteration: 0, durationMs: 20, inputCount: 1, inputDigest: "d", message: reply } as StoredRunEvent["data"] },
      { seq: 3, type: "action", at: t0 + 30, data: { type: "action", at: t0 + 30, iteration: 0, index: 0, action: { tool: "lookup", toolInput: { q: "x" }, toolCallId: "c1", log: "" } } as StoredRunEvent["data"] },
    ],
  });
}

/** A page that remembers its script errors. */
async function open(url: string, options: { at?: number } = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await browser().newPage();
  if (options.at !== undefined) await page.clock.setFixedTime(options.at);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector('[role="treeitem"]');
  return { page, errors };
}

async function writePage(store: RunStore, runId: string): Promise<string> {
  const path = join(dir, `${runId}.html`);
  writeFileSync(path, tracePageHtml(await readTracePage(store, runId, { mode: "file", source: "memory" })));
  return pathToFileURL(path).href;
}

const fact = (page: Page, key: string) => page.locator(`[data-fact="${key}"] dd`).textContent();

describe.skipIf(skip)("the trace page's clock", () => {
  it("shows a running run in a file as it was when the file was made, however late it is opened", async () => {
    const store = new MemoryRunStore();
    const t0 = Date.now() - 1000;
    await runningRun(store, "snapshot", t0, 60_000);
    const url = await writePage(store, "snapshot");
    const made = Date.now();
    // Opened a day later: the run still ran for about a second, as when the file was made.
    const { page, errors } = await open(url, { at: made + 24 * HOUR });
    const wall = await fact(page, "wall-time");
    expect(wall).toMatch(/^\d+(\.\d+)? m?s$/);
    expect(await page.locator('[data-id="tool-0-0"] .bar').getAttribute("class")).toContain("running");
    expect(Number(await page.locator('[data-id="tool-0-0"] .bar').getAttribute("data-end"))).toBeLessThanOrEqual(made);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("draws a stalled run (its process stopped) as its record ends, not as running until now", async () => {
    const store = new MemoryRunStore();
    const t0 = Date.now() - HOUR; // its process stopped an hour ago, its 1 s lease long lapsed
    await runningRun(store, "stuck", t0, 1000);
    server = await startUiServer({ store, source: "memory", port: 0 });
    const { page, errors } = await open(`${server.url}/runs/stuck`);
    expect(await page.locator("header [data-status]").textContent()).toBe("running (stalled)");
    expect(await fact(page, "wall-time")).toBe("30 ms");
    expect(await page.locator('[data-id="tool-0-0"] .chip').allTextContents()).toEqual(["no result"]);
    expect(await page.locator(".bar.running").count()).toBe(0);
    await page.click('[data-id="tool-0-0"] .label');
    expect(await page.locator(".detail").textContent()).toContain("No result recorded: the run's process stopped (its lease lapsed) before the tool returned.");
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skip)("following a run live", () => {
  it("says when the live stream fails, and when the server refuses it for good", async () => {
    const store = new MemoryRunStore();
    await runningRun(store, "live", Date.now(), 60_000);
    let state: "ok" | "failing" | "gone" = "ok";
    const flaky = new Proxy(store, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (typeof value !== "function") return value;
        if (key !== "getRun") return value.bind(target);
        return async (runId: string) => {
          if (state === "failing") throw new Error("database unreachable");
          return state === "gone" ? undefined : target.getRun(runId);
        };
      },
    });
    server = await startUiServer({ store: flaky, source: "memory", port: 0, pollMs: 50 });
    const { page } = await open(`${server.url}/runs/live`);
    state = "failing";
    const notice = page.locator('[data-fact="live"]');
    await expect.poll(() => notice.textContent(), { timeout: 10_000 }).toContain("Live updates failed: database unreachable");
    state = "gone"; // deleted: the stream is refused (404) and the browser stops asking
    await expect.poll(() => notice.textContent(), { timeout: 10_000 }).toContain("Live updates stopped");
    await page.close();
  });
});

describe.skipIf(skip)("a screen reader", () => {
  it("is not read the page again each time it is redrawn: a running call's row and detail, every second, are in no live region", async () => {
    const store = new MemoryRunStore();
    await runningRun(store, "ticking", Date.now() - 1000, 60_000);
    server = await startUiServer({ store, source: "memory", port: 0 });
    const page = await browser().newPage();
    await page.clock.install();
    await page.goto(`${server.url}/runs/ticking`);
    await page.waitForSelector('[role="treeitem"]');
    await page.click('[data-id="tool-0-0"] .label');
    await page.evaluate(() => {
      const counts = { drawn: 0, live: 0 };
      Object.assign(window, { __counts: counts });
      const live = '[aria-live]:not([aria-live="off"]), [role="status"], [role="log"], [role="alert"]';
      new MutationObserver((records) => {
        for (const record of records) {
          const at = record.target instanceof Element ? record.target : record.target.parentElement;
          if (at?.closest(".detail, .waterfall")) counts.drawn++;
          if (at?.closest(live)) counts.live++;
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    // The running call's bar grows with the clock (its detail, "running…", is redrawn only when what it says changes).
    await page.clock.runFor(3000);
    const counts = await page.evaluate(() => (window as unknown as { __counts: { drawn: number; live: number } }).__counts);
    expect(counts.drawn).toBeGreaterThan(0);
    expect(counts.live).toBe(0);
    expect(await page.locator(".detail").getAttribute("aria-live")).toBeNull();
    await page.close();
  });
});

describe.skipIf(skip)("the keyboard", () => {
  it("leaves the browser's shortcuts alone: Ctrl + and Ctrl 0 zoom the page, Alt ← goes back", async () => {
    const store = new MemoryRunStore();
    await runningRun(store, "keys", Date.now() - 1000, 60_000);
    const { page, errors } = await open(await writePage(store, "keys"));
    await page.click('[data-id="tool-0-0"] .label');
    type Press = { key: string; ctrlKey?: boolean; altKey?: boolean; metaKey?: boolean };
    const press = (init: Press) =>
      page.evaluate((options: Press) => {
        const target = document.activeElement as HTMLElement;
        const keydown = new KeyboardEvent("keydown", { ...options, bubbles: true, cancelable: true });
        target.dispatchEvent(keydown);
        return keydown.defaultPrevented;
      }, init);
    expect(await press({ key: "+", ctrlKey: true })).toBe(false);
    expect(await press({ key: "0", ctrlKey: true })).toBe(false);
    expect(await press({ key: "ArrowLeft", altKey: true })).toBe(false);
    expect(await press({ key: "ArrowUp", metaKey: true })).toBe(false);
    expect(await page.locator("[data-zoom]").getAttribute("data-zoom")).toBe("1");
    expect(await page.locator('[aria-selected="true"]').getAttribute("data-id")).toBe("tool-0-0");
    // Without a modifier the keys are the tree's.
    expect(await press({ key: "+" })).toBe(true);
    expect(await press({ key: "ArrowLeft" })).toBe(true);
    await expect.poll(() => page.locator('[aria-selected="true"]').getAttribute("data-id")).toBe("it-0");
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skip)("what a run waits on and what was sent to it", () => {
  it("says a call in doubt may have run, instead of calling it not run", async () => {
    const { store, executor } = await inDoubtRun();
    await executor.resume("pay");
    const { page, errors } = await open(await writePage(store, "pay"));
    expect(await page.locator('[data-id="tool-0-0"] .chip').allTextContents()).toEqual(["in doubt"]);
    await page.click('[data-id="tool-0-0"] .label');
    const detail = await page.locator(".detail").textContent();
    expect(detail).toContain("In doubt: the call started before the run stopped (a crash or a cancellation) and no result was recorded, so it may have run.");
    expect(detail).not.toContain("Not run");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a message sent to the run with its image as a thumbnail, never as base64", async () => {
    const store = new MemoryRunStore();
    const t0 = Date.now() - 1000;
    await runningRun(store, "sent", t0, 60_000);
    const png = pngBase64(8, 8, () => [200, 30, 30]);
    const message = new HumanMessage({ content: [{ type: "text", text: "Look at this chart." }, { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }] });
    await store.write("sent", { owner, leaseMs: 60_000, at: t0 + 40, events: [event(4, t0 + 40, { type: "message", message, iteration: 1, inboxSeq: 1 })] });
    const { page, errors } = await open(await writePage(store, "sent"));
    const row = page.locator('[data-id="event-4"]');
    expect(await row.textContent()).toContain("message sent to the run before iteration 2: Look at this chart.[image 1: image/png");
    await row.locator(".label").click();
    expect(await page.locator(".detail").textContent()).not.toContain(png.slice(0, 40));
    expect(await page.locator('.detail [data-field="summary"]').textContent()).toMatch(/^Look at this chart\.\[image 1: image\/png, \d+ B\]$/);
    expect(await page.locator(".detail figure.thumb img").getAttribute("src")).toBe(`data:image/png;base64,${png}`);
    expect(await page.content()).not.toContain(`"url":"data:image/png;base64,${png}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
