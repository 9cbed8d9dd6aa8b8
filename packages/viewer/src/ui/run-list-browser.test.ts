// The `ui`'s run list in Chromium: its filters come from the page's URL (shown in its controls,
// kept across its refreshes, written back when they change), each run shows the start of its
// input (as text) and its cost (the list sorts by it when asked), and a running run whose process
// stopped is shown stalled, on its trace page too.
import { MemoryRunStore } from "@agentrx/runs";
import type { RunStatus, RunUsage } from "@agentrx/executors";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "../trace/browser-test-helpers";
import { startUiServer, type UiServer } from "./start-ui-server";

const skip = skipWithoutChromium("run list (browser)");

let browser: Awaited<ReturnType<typeof launchChromium>>;
let server: UiServer | undefined;

beforeAll(async () => {
  if (!skip) browser = await launchChromium();
}, 60_000);

afterEach(async () => {
  await server?.close();
  server = undefined;
});

afterAll(async () => {
  await browser?.closeAll();
});

const base = Date.now() - 3_600_000;

/** Records a run that ended with `status` (or is still `running`, its lease held for ten minutes). */
async function addRun(store: MemoryRunStore, runId: string, fields: { status: RunStatus; threadId?: string; input?: string; at: number; usage?: RunUsage }): Promise<void> {
  const { status, threadId, input = `Question of ${runId}`, at } = fields;
  await store.createRun({ runId, inputs: { input }, status: "running", owner: "test:1", leaseMs: 600_000, at: base + at, ...(threadId === undefined ? {} : { threadId }) });
  if (status === "running") return;
  const update = status === "failed" ? { status, error: "boom" } : status === "finished" ? { status, stopReason: "finish" } : { status };
  await store.write(runId, { owner: "test:1", leaseMs: 600_000, at: base + at + 1, events: [], update: { ...update, ...(fields.usage === undefined ? {} : { usage: fields.usage }), release: true } });
}

async function serve(store: MemoryRunStore): Promise<string> {
  server = await startUiServer({ store, source: "memory", port: 0 });
  return server.url;
}

async function open(url: string, errors: string[]): Promise<Page> {
  const page = await browser.newPage();
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector("table.runs");
  return page;
}

const rows = (page: Page) => page.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-run-id")));
/** The statuses ticked in the status control, comma-separated. */
const ticked = (page: Page) => page.locator("[data-status-choice]:checked").evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value).join(","));
/** Opens the status control and ticks or unticks `status` in it. */
async function toggleStatus(page: Page, status: string): Promise<void> {
  if (!(await page.locator('[data-filter="status"]').evaluate((details) => (details as HTMLDetailsElement).open))) await page.click('[data-filter="status"] summary');
  await page.click(`[data-status-choice="${status}"]`);
}
const controls = (page: Page) =>
  page.evaluate(() => ({
    status: Array.from(document.querySelectorAll<HTMLInputElement>("[data-status-choice]:checked"), (box) => box.value).join(","),
    thread: document.querySelector<HTMLInputElement>('[aria-label="Thread"]')?.value,
    search: document.querySelector<HTMLInputElement>('[data-filter="search"]')?.value,
  }));
const query = (page: Page) => page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));

describe.skipIf(skip)("the run list's filters in Chromium", () => {
  it("starts from the URL's status and thread, shows them in its controls and keeps them across its refreshes", async () => {
    const store = new MemoryRunStore();
    await addRun(store, "a-failed-t1", { status: "failed", threadId: "t1", at: 1 });
    await addRun(store, "b-finished-t1", { status: "finished", threadId: "t1", at: 2 });
    await addRun(store, "c-finished-t2", { status: "finished", threadId: "t2", at: 3 });
    const url = await serve(store);
    const errors: string[] = [];

    const failed = await open(`${url}/?status=failed`, errors);
    expect(await rows(failed)).toEqual(["a-failed-t1"]);
    // A run added afterwards shows once the page has refreshed: with the filter, not every run.
    await addRun(store, "d-failed-t2", { status: "failed", threadId: "t2", at: 4 });
    await failed.waitForSelector('[data-run-id="d-failed-t2"]');
    expect(await rows(failed)).toEqual(["d-failed-t2", "a-failed-t1"]);
    expect(await controls(failed)).toEqual({ status: "failed", thread: "", search: "" });
    await failed.close();

    const thread = await open(`${url}/?thread=t1`, errors);
    expect(await controls(thread)).toEqual({ status: "", thread: "t1", search: "" });
    expect(await rows(thread)).toEqual(["b-finished-t1", "a-failed-t1"]);
    await addRun(store, "e-finished-t1", { status: "finished", threadId: "t1", at: 5 });
    await thread.waitForSelector('[data-run-id="e-finished-t1"]');
    expect(await rows(thread)).toEqual(["e-finished-t1", "b-finished-t1", "a-failed-t1"]);
    await thread.close();

    // A thread id with a leading space is another thread, at load and after a refresh.
    await addRun(store, "f-spaced", { status: "finished", threadId: " t1", at: 6 });
    const spaced = await open(`${url}/?thread=%20t1`, errors);
    expect(await rows(spaced)).toEqual(["f-spaced"]);
    await addRun(store, "g-spaced", { status: "finished", threadId: " t1", at: 7 });
    await spaced.waitForSelector('[data-run-id="g-spaced"]');
    expect(await rows(spaced)).toEqual(["g-spaced", "f-spaced"]);
    await spaced.close();

    // Several statuses (a link's) are ticked in the status control; the search goes with them.
    const several = await open(`${url}/?status=failed,finished&thread=t1&search=question`, errors);
    expect(await controls(several)).toEqual({ status: "finished,failed", thread: "t1", search: "question" });
    expect(await several.locator('[data-filter="status"] summary').textContent()).toBe("finished or failed");
    expect(await rows(several)).toEqual(["e-finished-t1", "b-finished-t1", "a-failed-t1"]);
    await addRun(store, "f-failed-t1", { status: "failed", threadId: "t1", at: 6 });
    await addRun(store, "g-running-t1", { status: "running", threadId: "t1", at: 7 });
    await several.waitForSelector('[data-run-id="f-failed-t1"]');
    expect(await rows(several)).toEqual(["f-failed-t1", "e-finished-t1", "b-finished-t1", "a-failed-t1"]);
    await several.close();
    expect(errors).toEqual([]);
  });

  it("writes the filters the user changes into the URL, keeping its limit, so a reload starts from them", async () => {
    const store = new MemoryRunStore();
    await addRun(store, "a-failed-t1", { status: "failed", threadId: "t1", at: 1 });
    await addRun(store, "b-finished-t1", { status: "finished", threadId: "t1", at: 2 });
    await addRun(store, "c-finished-t2", { status: "finished", threadId: "t2", at: 3 });
    const url = await serve(store);
    const errors: string[] = [];
    const page = await open(`${url}/?limit=10`, errors);
    expect(await rows(page)).toEqual(["c-finished-t2", "b-finished-t1", "a-failed-t1"]);

    await toggleStatus(page, "finished");
    expect(await query(page)).toEqual({ limit: "10", status: "finished" });
    await page.fill('[aria-label="Thread"]', "t1");
    expect(await query(page)).toEqual({ limit: "10", status: "finished", thread: "t1" });
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 1);
    expect(await rows(page)).toEqual(["b-finished-t1"]);

    await page.reload();
    await page.waitForSelector("table.runs");
    expect(await controls(page)).toEqual({ status: "finished", thread: "t1", search: "" });
    expect(await rows(page)).toEqual(["b-finished-t1"]);

    // Emptied controls leave the URL.
    await toggleStatus(page, "finished");
    await page.fill('[aria-label="Thread"]', "");
    expect(await query(page)).toEqual({ limit: "10" });
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 3);
    await page.close();
    expect(errors).toEqual([]);
  });
});

describe.skipIf(skip)("the run list's status filter in Chromium", () => {
  it("shows the runs of several statuses ticked together, from a link's repeated or comma-separated statuses too", async () => {
    const store = new MemoryRunStore();
    await addRun(store, "a-failed", { status: "failed", at: 1 });
    await addRun(store, "b-interrupted", { status: "interrupted", at: 2 });
    await addRun(store, "c-finished", { status: "finished", at: 3 });
    await addRun(store, "d-cancelled", { status: "cancelled", at: 4 });
    const url = await serve(store);
    const errors: string[] = [];
    const summary = (page: Page) => page.locator('[data-filter="status"] summary').textContent();

    // A link may repeat the parameter (as a form sends several choices).
    const page = await open(`${url}/?status=failed&status=interrupted`, errors);
    expect(await rows(page)).toEqual(["b-interrupted", "a-failed"]);
    expect(await ticked(page)).toBe("failed,interrupted");
    expect(await summary(page)).toBe("failed or interrupted");

    // Ticking one more shows its runs too, and writes every status ticked into the URL.
    await toggleStatus(page, "cancelled");
    expect(await query(page)).toEqual({ status: "failed,cancelled,interrupted" });
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 3);
    expect(await rows(page)).toEqual(["d-cancelled", "b-interrupted", "a-failed"]);
    expect(await summary(page)).toBe("failed or cancelled or interrupted");
    // The list closes on Escape, as a menu does.
    await page.keyboard.press("Escape");
    expect(await page.locator('[data-filter="status"]').evaluate((details) => (details as HTMLDetailsElement).open)).toBe(false);

    await page.reload();
    await page.waitForSelector("table.runs");
    expect(await ticked(page)).toBe("failed,cancelled,interrupted");
    expect(await rows(page)).toEqual(["d-cancelled", "b-interrupted", "a-failed"]);

    // Nothing ticked: every run, and no status in the URL.
    for (const status of ["failed", "cancelled", "interrupted"]) await toggleStatus(page, status);
    expect(await query(page)).toEqual({});
    expect(await summary(page)).toBe("any status");
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 4);
    await page.close();

    // The one-status form of old links still works.
    const single = await open(`${url}/?status=finished`, errors);
    expect(await rows(single)).toEqual(["c-finished"]);
    expect(await ticked(single)).toBe("finished");
    await single.close();
    expect(errors).toEqual([]);
  });
});

describe.skipIf(skip)("the run list's refreshes in Chromium", () => {
  it("keeps the rows of runs that did not change, so a focused link stays focused, and redraws those that did", async () => {
    const store = new MemoryRunStore();
    await addRun(store, "a-finished", { status: "finished", at: 1 });
    await addRun(store, "b-running", { status: "running", at: 2 });
    const url = await serve(store);
    const errors: string[] = [];
    const page = await open(`${url}/`, errors);
    // A keyboard user on the first run's link.
    await page.focus('tr[data-run-id="a-finished"] a');
    await page.evaluate(() => Object.assign(window, { kept: document.querySelector('tr[data-run-id="a-finished"]') }));

    // The run still running ends, and a new run starts: the next refresh shows both.
    await store.write("b-running", { owner: "test:1", leaseMs: 600_000, at: base + 10, events: [], update: { status: "finished", stopReason: "finish", release: true } });
    await addRun(store, "c-failed", { status: "failed", at: 3 });
    await page.waitForSelector('[data-run-id="c-failed"]', { timeout: 10_000 });
    expect(await rows(page)).toEqual(["c-failed", "b-running", "a-finished"]);
    expect(await page.locator('[data-run-id="b-running"] .status').textContent()).toBe("finished");
    expect(
      await page.evaluate(() => ({
        same: document.querySelector('tr[data-run-id="a-finished"]') === (window as unknown as { kept: Element }).kept,
        focused: document.activeElement?.textContent,
      })),
    ).toEqual({ same: true, focused: "a-finished" });
    await page.close();
    expect(errors).toEqual([]);
  });
});

describe.skipIf(skip)("the run list's columns in Chromium", () => {
  it("shows the start of each run's input on one line, the whole preview on hover, as text", async () => {
    const store = new MemoryRunStore();
    const hostile = `<script>window.pwned = 1</script> "double" 'single' & <b>bold</b>\n\nthen   a long tail of words that goes on past the cell`;
    await addRun(store, "hostile", { status: "finished", input: hostile, at: 1 });
    await addRun(store, "short", { status: "finished", input: "Weather in Paris?", at: 2 });
    const url = await serve(store);
    // Embedded as JSON with `<` escaped: no recorded text can end the data's element.
    const html = await (await fetch(`${url}/`)).text();
    expect(html).not.toContain("<script>window.pwned");
    const errors: string[] = [];
    const page = await open(`${url}/`, errors);
    expect(await page.locator("thead th").last().textContent()).toBe("Input");
    const cell = (runId: string) => page.locator(`[data-run-id="${runId}"] td[data-input]`);
    expect(await cell("short").textContent()).toBe("Weather in Paris?");
    expect(await cell("short").getAttribute("title")).toBe("Weather in Paris?");
    // One line, cut to 60 characters; the tooltip is the store's preview as it is.
    expect(await cell("hostile").textContent()).toBe(`<script>window.pwned = 1</script> "double" 'single' & <b>bo…`);
    expect(await cell("hostile").getAttribute("title")).toBe(hostile);
    expect(await cell("hostile").locator("script, b").count()).toBe(0);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    await page.close();
    expect(errors).toEqual([]);
  });

  it("cuts a run's input of emoji to 60 characters without splitting an emoji", async () => {
    const store = new MemoryRunStore();
    await addRun(store, "emoji", { status: "finished", input: "😀".repeat(40), at: 1 });
    const errors: string[] = [];
    const page = await open(`${await serve(store)}/`, errors);
    // 59 code units and the ellipsis would end in half an emoji: the cut falls one earlier.
    expect(await page.locator('[data-run-id="emoji"] td[data-input]').textContent()).toBe(`${"😀".repeat(29)}…`);
    await page.close();
    expect(errors).toEqual([]);
  });

  it("shows each run's cost, and sorts the runs by it, most expensive first, when asked (in the URL too)", async () => {
    const store = new MemoryRunStore();
    const priced = async (runId: string, at: number, total: number | undefined, unpricedCalls?: number) => {
      const usage = {
        input_tokens: 100,
        output_tokens: 10,
        total_tokens: 110,
        ...(total === undefined ? {} : { cost: { input: total / 2, output: total / 2, total, currency: "USD" as const } }),
        ...(unpricedCalls === undefined ? {} : { unpricedCalls }),
      };
      await addRun(store, runId, { status: "finished", at, usage });
    };
    await priced("cheap", 1, 0.0012);
    await priced("dear", 2, 0.25);
    await priced("unpriced", 3, undefined);
    // Calls the executor's prices could not price: the cost leaves them out, and says so.
    await priced("partly", 4, 0.0213, 2);
    await priced("local", 5, undefined, 3);
    const url = await serve(store);
    const errors: string[] = [];
    const page = await open(`${url}/`, errors);
    expect(await page.locator("thead th").allTextContents()).toEqual(["", "Run", "Thread", "Status", "Stop", "Turns", "Tokens", "Cost", "Duration", "Started", "Input"]);
    const cost = (runId: string) => page.locator(`[data-run-id="${runId}"] td[data-cost]`).textContent();
    expect([await cost("cheap"), await cost("dear"), await cost("unpriced")]).toEqual(["$0.0012", "$0.2500", "–"]);
    expect([await cost("partly"), await cost("local")]).toEqual(["$0.0213 + 2 unpriced", "3 unpriced"]);
    expect(await rows(page)).toEqual(["local", "partly", "unpriced", "dear", "cheap"]);

    await page.selectOption('[aria-label="Sort"]', "cost");
    expect(await query(page)).toEqual({ sort: "cost" });
    await page.waitForFunction(() => document.querySelector("tbody tr")?.getAttribute("data-run-id") === "dear");
    expect((await rows(page)).slice(0, 3)).toEqual(["dear", "partly", "cheap"]);
    await page.reload();
    await page.waitForSelector("table.runs");
    expect(await page.locator('[aria-label="Sort"]').inputValue()).toBe("cost");
    expect((await rows(page)).slice(0, 3)).toEqual(["dear", "partly", "cheap"]);
    await page.close();
    expect(errors).toEqual([]);
  });

  it("shows a running run whose lease lapsed as stalled, saying why and how to resume it, in the list and on its page", async () => {
    const store = new MemoryRunStore();
    const now = Date.now();
    // Its process stopped a minute ago without ending it: the lease (1 s) lapsed long since.
    await store.createRun({ runId: "stuck", inputs: { input: "Book a flight" }, status: "running", owner: "gone:1", leaseMs: 1_000, at: now - 60_000 });
    await store.createRun({ runId: "alive", inputs: { input: "Book a hotel" }, status: "running", owner: "here:1", leaseMs: 600_000, at: now });
    const url = await serve(store);
    const errors: string[] = [];
    const page = await open(`${url}/`, errors);
    const status = (runId: string) => page.locator(`[data-run-id="${runId}"] .status`);
    expect(await status("stuck").textContent()).toBe("running (stalled)");
    const hint = await status("stuck").getAttribute("title");
    expect(hint).toContain("the process running this run stopped without ending it");
    expect(hint).toContain('executor.resume("stuck")');
    expect(await status("alive").textContent()).toBe("running");
    expect(await status("alive").getAttribute("title")).toBeNull();

    await page.goto(`${url}/runs/stuck`);
    const badge = page.locator("header [data-status]");
    await badge.waitFor();
    expect(await badge.textContent()).toBe("running (stalled)");
    expect(await badge.getAttribute("title")).toContain('executor.resume("stuck")');
    await page.goto(`${url}/runs/alive`);
    await badge.waitFor();
    expect(await badge.textContent()).toBe("running");
    expect(await badge.getAttribute("data-stalled")).toBeNull();
    await page.close();
    expect(errors).toEqual([]);
  });
});
