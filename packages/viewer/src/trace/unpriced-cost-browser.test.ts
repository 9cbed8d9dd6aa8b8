// The trace page's header in Chromium for a run whose cost leaves out calls without a price.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MemoryRunStore } from "@agentrx/runs";
import { readTracePage, tracePageHtml } from "@agentrx/viewer/trace-page";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchChromium, skipWithoutChromium } from "./browser-test-helpers";
import { recordPartlyPricedRun, recordUnpricedRun } from "./unpriced-cost-fixtures";

const skip = skipWithoutChromium("unpriced cost (browser)");
const dir = mkdtempSync(join(tmpdir(), "agentrx-unpriced-"));
let browser: Awaited<ReturnType<typeof launchChromium>>;
const store = new MemoryRunStore();

beforeAll(async () => {
  if (skip) return;
  await recordPartlyPricedRun(store);
  const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined); // the unpriced model's warning
  try {
    await recordUnpricedRun(store, "none-priced");
  } finally {
    warn.mockRestore();
  }
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)("a partly priced run's page in Chromium", () => {
  it("shows the cost with the number of unpriced calls it leaves out, and names their model on hover", async () => {
    const path = join(dir, "partly-priced.html");
    writeFileSync(path, tracePageHtml(await readTracePage(store, "partly-priced", { mode: "file", source: "MemoryRunStore" })));
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(path).href);
    await page.waitForSelector('[role="treeitem"]');
    expect(await page.locator('[data-fact="cost"] dd').textContent()).toMatch(/^\$0\.\d+ \+ 2 unpriced$/);
    expect(await page.locator('[data-fact="cost"]').getAttribute("title")).toBe("The cost leaves out 2 model calls whose model (local-llama) had no price: give it one in the executor's prices.");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a run none of whose calls was priced as its unpriced calls, not as no cost at all", async () => {
    const path = join(dir, "none-priced.html");
    writeFileSync(path, tracePageHtml(await readTracePage(store, "none-priced", { mode: "file", source: "MemoryRunStore" })));
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(path).href);
    await page.waitForSelector('[role="treeitem"]');
    expect(await page.locator('[data-fact="cost"] dd').textContent()).toBe("2 unpriced");
    expect(await page.locator('[data-fact="cost"]').getAttribute("title")).toBe("No model call was priced: 2 model calls whose model (local-llama) had no price: give it one in the executor's prices.");
    // Each call's row says it was not priced.
    expect(await page.locator('[data-kind="model"] .note').first().textContent()).toMatch(/ · unpriced/);
    expect(errors).toEqual([]);
    await page.close();
  });
});
