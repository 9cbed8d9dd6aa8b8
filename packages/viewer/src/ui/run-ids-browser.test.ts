// Runs whose ids a URL path cannot hold as they are (`.`, `..`, ids with `/`, `%`, `?`, `#`) in
// Chromium: the list's links open their trace pages, a page follows its run live and fetches its
// whole texts, and the diff page links back to them.
import type { StoredRunEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { chromiumSuite } from "../trace/chromium-suite";
import { writeSyntheticRun } from "../trace/trace-test-fixtures";
import { startUiServer, type UiServer } from "./start-ui-server";

const { skip, browser } = chromiumSuite("odd run ids (browser)", "agentrx-run-ids-");
const IDS = [".", "..", "a/b%c?d#e", "~.."];

let server: UiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function newPage(errors: string[]): Promise<Page> {
  const page = await browser().newPage();
  page.on("pageerror", (error) => errors.push(error.message));
  return page;
}

const shownRunId = (page: Page) => page.locator("h1.title code").textContent();

describe.skipIf(skip)("run ids that are not plain path segments, in agentrx ui", () => {
  it("opens each run's page from the list, and from the diff page", async () => {
    const store = new MemoryRunStore();
    for (const [n, runId] of IDS.entries()) await writeSyntheticRun(store, { runId, iterations: 1, toolsPerIteration: 1, start: Date.now() - 60_000 + n });
    server = await startUiServer({ store, source: "memory", port: 0 });
    const errors: string[] = [];
    const page = await newPage(errors);
    for (const runId of IDS) {
      await page.goto(`${server.url}/`);
      await page.waitForSelector("table.runs tbody tr");
      await page.locator(`tr[data-run-id="${runId}"] td.mono a`).click();
      await page.waitForSelector('[role="treeitem"]');
      expect(await shownRunId(page), runId).toBe(runId);
      expect(await page.locator('[data-fact="tool-calls"] dd').textContent(), runId).toBe("1");
    }
    await page.goto(`${server.url}/diff?${new URLSearchParams({ a: ".", b: ".." }).toString()}`);
    await page.waitForSelector('[data-side="b"] a');
    await page.click('[data-side="b"] a');
    await page.waitForSelector('[role="treeitem"]');
    expect(await shownRunId(page)).toBe("..");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("follows a run whose id is .. live, and fetches its whole long text", async () => {
    const store = new MemoryRunStore();
    const runId = "..";
    const t0 = Date.now();
    const owner = "test:1";
    await store.createRun({ runId, inputs: { input: "live" }, status: "running", owner, leaseMs: 60_000, at: t0 });
    const event = (seq: number, type: string, at: number, data: Record<string, unknown>): StoredRunEvent => ({ seq, type, at, data: { type, at, ...data } as StoredRunEvent["data"] });
    const message = { type: "ai", data: { content: "", tool_calls: [{ name: "lookup", args: { q: "x" }, id: "c1", type: "tool_call" }], invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} } };
    await store.write(runId, {
      owner,
      leaseMs: 60_000,
      at: t0 + 20,
      events: [
        event(1, "start", t0, { runId, inputs: { input: "live" }, resumed: false }),
        event(2, "model_call", t0 + 10, { call: 0, iteration: 0, durationMs: 10, inputCount: 1, inputDigest: "d", message }),
        event(3, "action", t0 + 20, { iteration: 0, index: 0, action: { tool: "lookup", toolInput: { q: "x" }, toolCallId: "c1", log: "" } }),
      ],
    });
    server = await startUiServer({ store, source: "memory", port: 0 });
    const errors: string[] = [];
    const page = await newPage(errors);
    await page.goto(`${server.url}/runs/~..`);
    await page.waitForSelector('[role="treeitem"]');
    expect(await shownRunId(page)).toBe("..");
    expect(await page.locator("[data-status]").textContent()).toBe("running");

    const long = "z".repeat(300_000); // longer than a live update carries: "Show all" asks the server
    const at = Date.now();
    await store.write(runId, {
      owner,
      leaseMs: 60_000,
      at,
      events: [
        event(4, "step", at, { iteration: 0, index: 0, observation: long, durationMs: at - t0 - 20 }),
        event(5, "output", at + 1, { runId, output: "done", returnValues: { output: "done" }, messages: [], stopReason: "finish", withSteps: false }),
      ],
      update: { status: "finished", stopReason: "finish", release: true },
    });
    await page.waitForSelector('[data-status="finished"]', { timeout: 10_000 });
    await page.click('[data-id="tool-0-0"] .label');
    await page.click("text=Show all");
    await expect.poll(() => page.locator('.detail [data-field="observation"]').evaluate((element) => element.textContent?.length)).toBe(300_000);
    expect(errors).toEqual([]);
    await page.close();
  });
});
