// A run of thousands of steps in Chromium: the waterfall draws the rows in view (not all of them),
// and scrolling, the keyboard and selecting still reach every row.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MemoryRunStore } from "@agentrx/runs";
import { readTracePage, tracePageHtml } from "@agentrx/viewer/trace-page";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "./browser-test-helpers";
import { writeSyntheticRun } from "./trace-test-fixtures";

const skip = skipWithoutChromium("long run (browser)");
const dir = mkdtempSync(join(tmpdir(), "agentrx-long-run-"));
const ITERATIONS = 700; // 2,100 tool calls: 3,504 rows with the tool calls' results closed

let browser: Awaited<ReturnType<typeof launchChromium>>;
let url: string;

beforeAll(async () => {
  if (skip) return;
  const store = new MemoryRunStore();
  await writeSyntheticRun(store, { runId: "long", iterations: ITERATIONS, toolsPerIteration: 3 });
  const path = join(dir, "long.html");
  writeFileSync(path, tracePageHtml(await readTracePage(store, "long", { mode: "file", source: "MemoryRunStore" })));
  url = pathToFileURL(path).href;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

async function open(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector('[role="treeitem"]');
  return { page, errors };
}

const drawnRows = (page: Page) => page.locator('[role="treeitem"]').count();
/** Whether the row is drawn and inside the waterfall's visible box. */
const inView = (page: Page, id: string) =>
  page.evaluate((rowId) => {
    const row = document.getElementById(`row-${rowId}`);
    const box = document.querySelector(".waterfall")?.getBoundingClientRect();
    if (row === null || box === undefined) return false;
    const own = row.getBoundingClientRect();
    return own.top >= box.top && own.bottom <= box.bottom + 1;
  }, id);

describe.skipIf(skip)("a trace page of 2,100 tool calls in Chromium", () => {
  it("draws a window of rows around the view, not all 3,504, and counts every call in the header", async () => {
    const { page, errors } = await open();
    expect(await page.locator('[data-fact="tool-calls"] dd').textContent()).toBe("2,100");
    expect(await drawnRows(page)).toBeLessThan(600);
    // The tree is as tall as all its rows: the window sits between spacers.
    const height = await page.locator(".tree").evaluate((tree) => tree.getBoundingClientRect().height);
    expect(height).toBeGreaterThan(3_504 * 20);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("draws the rows wherever the waterfall is scrolled to, each in its place", async () => {
    const { page, errors } = await open();
    // Iteration 351's row is the 1 + 350 × 5 + 1 = 1,752nd row: scroll it to the top of the view.
    await page.locator(".waterfall").evaluate((waterfall) => {
      const tree = waterfall.querySelector(".tree") as HTMLElement;
      const row = (tree.querySelector(".row") as HTMLElement).getBoundingClientRect().height;
      waterfall.scrollTop = tree.offsetTop + 1_751 * row - 26;
    });
    await expect.poll(() => inView(page, "it-350")).toBe(true);
    expect(await page.locator("#row-it-350").getAttribute("aria-level")).toBe("2");
    await page.locator(".waterfall").evaluate((waterfall) => (waterfall.scrollTop = waterfall.scrollHeight));
    await expect.poll(() => inView(page, "answer")).toBe(true);
    expect(await drawnRows(page)).toBeLessThan(600);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("moves with the keyboard from the first row to the last and back, keeping the selected row focused", async () => {
    const { page, errors } = await open();
    await page.click("#row-run .label");
    await page.keyboard.press("End");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("row-answer");
    expect(await page.locator("#row-answer").getAttribute("aria-selected")).toBe("true");
    expect(await inView(page, "answer")).toBe(true);
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(`row-model-${ITERATIONS}-0`);
    await page.keyboard.press("Home");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("row-run");
    expect(await inView(page, "run")).toBe(true);
    // Scrolled far from the selected row, the keys still work: End selects the last row again.
    await page.locator(".waterfall").evaluate((waterfall) => (waterfall.scrollTop = waterfall.scrollHeight / 2));
    await page.waitForFunction(() => document.getElementById("row-run") === null);
    await page.keyboard.press("End");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("row-answer");
    expect(errors).toEqual([]);
    await page.close();
  });
});
