// A failed tool call on the trace page in Chromium: a red chip and bar, and a detail that says the
// observation is the error the agent was shown; a rejected call and the run's status stay apart.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readTracePage, tracePageHtml } from "@agentrx/viewer/trace-page";
import { describe, expect, it } from "vitest";
import { chromiumSuite } from "./chromium-suite";
import { APOLOGY, recordFailingRun } from "./failed-call-fixtures";

const { skip, dir, browser } = chromiumSuite("failed tool calls (browser)", "agentrx-failed-call-");

describe.skipIf(skip)("a failed tool call's page in Chromium", () => {
  it("marks the failed calls red in the tree and on the timeline, and its detail says the observation is the error", async () => {
    const store = await recordFailingRun();
    const path = join(dir, "failing.html");
    writeFileSync(path, tracePageHtml(await readTracePage(store, "failing", { mode: "file", source: "memory" })));
    const page = await browser().newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(path).href);
    await page.waitForSelector('[role="treeitem"]');
    expect(await page.locator("header [data-status]").textContent()).toBe("finished");
    for (const id of ["tool-0-0", "tool-0-1", "tool-0-2"]) {
      expect(await page.locator(`[data-id="${id}"] .chip.failed`).allTextContents(), id).toEqual(["failed"]);
      expect(await page.locator(`[data-id="${id}"] .bar`).getAttribute("class"), id).toContain("failed");
    }
    expect(await page.locator('[data-id="tool-0-3"] .chip').count()).toBe(0);
    expect(await page.locator('[data-id="tool-1-0"] .chip').allTextContents()).toEqual(["rejected"]);
    expect(await page.locator('[data-id="tool-1-0"] .chip.failed').count()).toBe(0);

    await page.click('[data-id="tool-0-0"] .label');
    expect(await page.locator('.detail [data-outcome="failed"]').textContent()).toMatch(/^This call failed: .*The observation is the error the agent was shown/);
    expect(await page.locator('.detail [data-field="observation"]').textContent()).toBe(APOLOGY);
    expect(await page.locator(".detail").textContent()).toContain("Outcomefailed");
    expect(await page.locator(".detail").textContent()).not.toContain('"failed": true'); // said once, not again as metadata

    await page.click('[data-id="tool-1-0"] .label');
    expect(await page.locator('.detail [data-outcome="rejected"]').textContent()).toMatch(/^Rejected: a person rejected this call/);
    expect(await page.locator('.detail [data-outcome="failed"]').count()).toBe(0);
    expect(await page.locator(".detail").textContent()).toContain("Durationnot run"); // as the notebook's table says
    await page.click('[data-id="tool-0-3"] .label');
    expect(await page.locator(".detail [data-outcome]").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
