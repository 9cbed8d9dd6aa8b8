// A page of a long run recorded with recordPrompts, in Chromium: the page embeds each request
// message once and rebuilds a call's request when the call is shown; the first, a middle and the
// last call show exactly what they were sent. So does a page of the ui that followed the run live
// (its stream sends each request message once too).
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MemoryRunStore } from "@agentrx/runs";
import { readTracePage, tracePageHtml } from "@agentrx/viewer/trace-page";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUiServer } from "../ui/start-ui-server";
import { launchChromium, skipWithoutChromium } from "./browser-test-helpers";
import { expectedRequests, recordLongPromptRun, revealedStepByStep, type ShownMessage } from "./long-prompt-fixtures";

const skip = skipWithoutChromium("long run's requests (browser)");
const dir = mkdtempSync(join(tmpdir(), "agentrx-long-requests-"));
const TOOL_CALLS = 200;

let browser: Awaited<ReturnType<typeof launchChromium>>;
let path: string;
let expected: ShownMessage[][];
let store: MemoryRunStore;

beforeAll(async () => {
  if (skip) return;
  store = new MemoryRunStore();
  await recordLongPromptRun(store, "long", TOOL_CALLS);
  expected = await expectedRequests(store, "long");
  path = join(dir, "long.html");
  writeFileSync(path, tracePageHtml(await readTracePage(store, "long", { mode: "file", source: "MemoryRunStore" })));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)("a trace page of 200 model calls, each recorded with its whole request", () => {
  it("is small (each message once) and shows the first, a middle and the last call's request as sent", async () => {
    expect(statSync(path).size).toBeLessThan(1_000_000); // each request embedded whole: about 4.9 MB
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(path).href);
    await page.waitForSelector('[role="treeitem"]');
    for (const iteration of [0, TOOL_CALLS / 2, TOOL_CALLS]) await expectRequestShown(page, iteration, expected);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skip)("a ui page of a long run recorded with requests, followed live", () => {
  it("shows each call's request as sent, for the calls the page was read with and the ones streamed after", async () => {
    const server = await startUiServer({ store: await revealedStepByStep(store, "long"), source: "memory", port: 0, pollMs: 5 });
    const page = await browser.newPage();
    try {
      page.setDefaultTimeout(20_000);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${server.url}/runs/long`);
      expect(await page.locator("[data-status]").first().getAttribute("data-status")).toBe("running");
      await page.locator('[data-status="finished"]').waitFor();
      for (const iteration of [0, 1, TOOL_CALLS / 2, TOOL_CALLS]) await expectRequestShown(page, iteration, expected);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await server.close();
    }
  }, 60_000);
});

/** Shows model call `iteration`'s request in the detail pane, and checks it is what the call was sent. */
async function expectRequestShown(page: Page, iteration: number, expected: ShownMessage[][]): Promise<void> {
  await page.click(`[data-id="model-${iteration}-0"] .label`);
  const request = page.locator('.detail details[data-section="request"]');
  const messages = 2 + 2 * iteration;
  expect(await request.locator("summary").textContent()).toBe(`Exact request: ${messages} messages, 1 tool`);
  await request.locator("summary").click();
  const shown = await request.evaluate((details) =>
    Array.from(details.querySelectorAll(":scope > .message")).map((message) => ({
      role: message.querySelector(".role")?.textContent ?? "",
      text: message.querySelector("pre.payload")?.textContent ?? "",
    })),
  );
  expect(shown).toEqual(expected[iteration]);
  // Each text in its place, for fetching it whole in the ui.
  expect(await request.locator('[data-field$=".content"]').evaluateAll((items) => items.map((item) => item.getAttribute("data-field")))).toEqual(
    Array.from({ length: messages }, (_, index) => `request.messages.${index}.content`),
  );
  expect(JSON.parse((await request.locator('[data-field="request.tools"]').textContent()) ?? "")[0].function.name).toBe("lookup");
}
