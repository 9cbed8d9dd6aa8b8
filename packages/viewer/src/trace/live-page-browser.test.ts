// A run followed live in Chromium: its header and detail pane are drawn again every second and
// with each new event, but what did not change stays as it is (the damaged-record notice, the
// detail of an earlier call with its long text shown whole), so it does not flicker, and what the
// user focused, selected or opened in it stays so; a row pressed just before the tree is drawn
// again is clicked all the same.
import type { StoredRunEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { afterEach, describe, expect, it } from "vitest";
import { startUiServer, type UiServer } from "../ui/start-ui-server";
import { chromiumSuite } from "./chromium-suite";
import { writeSyntheticRun } from "./trace-test-fixtures";

const { skip, browser } = chromiumSuite("live page (browser)", "agentrx-live-page-");

let server: UiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const event = (seq: number, type: string, at: number, data: Record<string, unknown>): StoredRunEvent => ({ seq, type, at, data: { type, at, ...data } as StoredRunEvent["data"] });
const owner = "synthetic:1"; // writeSyntheticRun's

/** Records iteration `iteration`'s model call, which asks for two tool calls, and the first of them (events `seq` and `seq + 1`). */
async function writeNextTurn(store: MemoryRunStore, seq: number, iteration: number, at: number): Promise<void> {
  const toolCalls = [0, 1].map((index) => ({ name: "lookup", args: { q: `more ${index}` }, id: `call_${iteration}_${index}`, type: "tool_call" }));
  const reply = { type: "ai", data: { content: "", tool_calls: toolCalls, invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} } };
  await store.write("live", {
    owner,
    leaseMs: 3_600_000,
    at,
    events: [
      event(seq, "model_call", at, { call: iteration, iteration, durationMs: 100, inputCount: 6, inputDigest: "0000000000000000", message: reply }),
      event(seq + 1, "action", at, { iteration, index: 0, action: { tool: "lookup", toolInput: { q: "more 0" }, toolCallId: `call_${iteration}_0`, log: "", messageLog: [reply] } }),
    ],
  });
}

describe.skipIf(skip)("a running run's page in agentrx ui", () => {
  it("keeps the damaged-record notice as it is until what it says changes", async () => {
    const store = new MemoryRunStore();
    const start = Date.now() - 5_000;
    // Two turns of two calls, still running; event 4 (an action) cannot be decoded, nor then its step (event 6).
    const events = await writeSyntheticRun(store, { runId: "live", iterations: 2, toolsPerIteration: 2, running: true, start, alter: (stored) => (stored.seq === 4 ? { ...stored, data: { ...stored.data, action: "garbage" } } : stored) });
    server = await startUiServer({ store, source: "memory", port: 0 });
    const page = await browser().newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${server.url}/runs/live`);
    const notice = page.locator('[data-fact="unreadable"]');
    await notice.waitFor();
    expect(await notice.locator("strong").textContent()).toBe("2 events of this run could not be read");
    expect(await page.locator('[data-fact="tool-calls"] dd').textContent()).toBe("3"); // event 4's call is unreadable

    // A user focuses a button of the notice and selects its text; the page then shows a new event.
    await page.evaluate(() => {
      const shown = document.querySelector('[data-fact="unreadable"]') as HTMLElement;
      Object.assign(window, { notice: shown });
      (shown.querySelector("button") as HTMLButtonElement).focus();
      window.getSelection()?.selectAllChildren(shown.querySelector("strong") as HTMLElement);
    });
    const at = (events[events.length - 1] as StoredRunEvent).at + 100;
    await writeNextTurn(store, 14, 2, at);
    await page.waitForFunction(() => document.querySelector('[data-fact="tool-calls"] dd')?.textContent === "4", undefined, { timeout: 10_000 });
    // The header was drawn again (the new tool call is counted), and the notice is the same element.
    const kept = await page.evaluate(() => {
      const state = window as unknown as { notice: Element };
      return {
        notice: document.querySelector('[data-fact="unreadable"]') === state.notice,
        focused: document.activeElement?.getAttribute("data-target"),
        selected: window.getSelection()?.toString(),
      };
    });
    expect(kept).toEqual({ notice: true, focused: "event-4", selected: "2 events of this run could not be read" });

    // When what the notice says changes, it changes.
    await store.write("live", { owner, leaseMs: 3_600_000, at: at + 1, events: [event(16, "action", at + 1, { iteration: 2, index: 1, action: "garbage" })] });
    await expect.poll(() => notice.locator("strong").textContent(), { timeout: 10_000 }).toBe("3 events of this run could not be read");
    expect(await notice.locator("button").allTextContents()).toEqual(["event 4", "event 6", "event 16"]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("keeps the detail of an earlier call as the user left it (its long text shown whole, scrolled) while new events arrive", async () => {
    const store = new MemoryRunStore();
    const events = await writeSyntheticRun(store, { runId: "live", iterations: 2, toolsPerIteration: 1, running: true, start: Date.now() - 5_000, firstObservationLength: 10_000 });
    server = await startUiServer({ store, source: "memory", port: 0 });
    const page = await browser().newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${server.url}/runs/live`);
    await page.waitForSelector('[role="treeitem"]');
    await page.click('[data-id="tool-0-0"] .label');
    const observation = page.locator('.detail [data-field="observation"]');
    const shown = () => observation.evaluate((element) => element.textContent?.length);
    await expect.poll(shown, { timeout: 10_000 }).toBe(4_001); // 4,000 and "…"
    await page.click(".detail >> text=Show all");
    await expect.poll(shown, { timeout: 10_000 }).toBe(10_000);
    await page.locator(".detail").evaluate((pane) => (pane.scrollTop = 200));

    // The run goes on: a new turn is drawn (the header counts its call), the detail of the earlier call stays.
    await writeNextTurn(store, events.length + 1, 2, (events[events.length - 1] as StoredRunEvent).at + 100);
    await page.waitForFunction(() => document.querySelector('[data-fact="tool-calls"] dd')?.textContent === "3", undefined, { timeout: 10_000 });
    expect(await observation.evaluate((element) => element.textContent?.length)).toBe(10_000);
    expect(await page.locator(".detail").evaluate((pane) => pane.scrollTop)).toBe(200);

    // What the detail shows changes when the selected call does: its result arrives.
    await page.click('[data-id="tool-2-0"] .label');
    await expect.poll(() => page.locator(".detail").textContent(), { timeout: 10_000 }).toContain("Still running.");
    const at = Date.now();
    await store.write("live", { owner, leaseMs: 3_600_000, at, events: [event(events.length + 3, "step", at, { iteration: 2, index: 0, observation: "found more", durationMs: 50 })] });
    await expect.poll(() => observation.textContent(), { timeout: 10_000 }).toBe("found more");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("selects the row pressed, and opens or closes the one whose twisty is pressed, when the tree is drawn again before the release", async () => {
    const store = new MemoryRunStore();
    await writeSyntheticRun(store, { runId: "live", iterations: 2, toolsPerIteration: 1, running: true, start: Date.now() - 5_000 });
    server = await startUiServer({ store, source: "memory", port: 0 });
    const page = await browser().newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${server.url}/runs/live`);
    await page.waitForSelector('[role="treeitem"]');
    const selected = () => page.locator('[role="treeitem"][aria-selected="true"]').getAttribute("data-id");
    expect(await selected()).toBe("run");

    /**
     * Where `selector` is now, measured in the page in one step: the tree is redrawn every second,
     * so an element found first and measured after may be gone by then (`boundingBox()` is null).
     */
    const boxOf = (selector: string) =>
      page.locator(selector).evaluate((element) => {
        const { x, y, width, height } = element.getBoundingClientRect();
        return { x, y, width, height };
      });
    /** Presses `selector` in the row `id`, waits until the running run's tree draws that row again (every second), and releases. */
    const pressAcrossRedraw = async (id: string, selector: string) => {
      const box = await boxOf(`[data-id="${id}"] ${selector}`);
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.evaluate((rowId) => Object.assign(window, { pressedRow: document.querySelector(`[data-id="${rowId}"]`) }), id);
      await page.waitForFunction((rowId) => document.querySelector(`[data-id="${rowId}"]`) !== (window as unknown as { pressedRow: Element }).pressedRow, id, { timeout: 10_000 });
      await page.mouse.up();
    };

    /**
     * Presses across a redraw until `done` holds, at most three times: on a loaded machine a redraw
     * between measuring the row and pressing it can move the row from under the pointer, so the
     * press lands elsewhere. A page that lost presses across redraws fails all three.
     */
    const pressAcrossRedrawUntil = async (id: string, selector: string, done: () => Promise<boolean>) => {
      for (let attempt = 1; ; attempt++) {
        await pressAcrossRedraw(id, selector);
        const held = await expect.poll(done, { timeout: 5_000 }).toBe(true).then(() => true, () => false);
        if (held) return;
        if (attempt === 3) throw new Error(`three presses on ${id} ${selector} across a redraw did nothing`);
      }
    };

    // The row's element is replaced while the button is down: the browser sends no click, the row is selected all the same.
    await pressAcrossRedrawUntil("tool-1-0", ".label", async () => (await selected()) === "tool-1-0");
    await expect.poll(() => page.locator('.detail [data-field="observation"]').textContent(), { timeout: 10_000 }).toContain("result 1.0");

    // The same for a twisty: the tool call opens (its result row shows), and stays selected.
    expect(await page.locator('[data-id="tool-1-0"]').getAttribute("aria-expanded")).toBe("false");
    await pressAcrossRedrawUntil("tool-1-0", ".twisty", async () => (await page.locator('[data-id="tool-1-0"]').getAttribute("aria-expanded")) === "true");
    expect(await page.locator('[data-id="step-1-0"]').count()).toBe(1);
    expect(await selected()).toBe("tool-1-0");

    // Pressed on one row and released on another: nothing is selected.
    const first = await boxOf('[data-id="it-0"] .label');
    const second = await boxOf('[data-id="it-1"] .label');
    await page.mouse.move(first.x + 2, first.y + first.height / 2);
    await page.mouse.down();
    await page.mouse.move(second.x + 2, second.y + second.height / 2, { steps: 3 });
    await page.mouse.up();
    expect(await selected()).toBe("tool-1-0");
    expect(errors).toEqual([]);
    await page.close();
  });
});
