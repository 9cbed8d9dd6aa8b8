// The trace page as a debugger, in headless Chromium: what it says of model calls that were not
// streamed, the live text of a streaming call, zooming the waterfall, sub-runs, cost and the exact
// requests, and images in tool results.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { readTracePage, tracePageHtml } from "@agentrx/viewer/trace-page";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import type { Page } from "playwright-core";
import { lastValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startUiServer, type UiServer } from "../ui/start-ui-server";
import { launchChromium, skipWithoutChromium } from "./browser-test-helpers";
import { writeSyntheticRun } from "./trace-test-fixtures";
import { LARGE_IMAGE_BASE64, recordImageRun, recordSupervisorRun } from "./trace-debugger-fixtures";

const skip = skipWithoutChromium("trace page as a debugger (browser)");
const dir = mkdtempSync(join(tmpdir(), "agentrx-trace-debugger-"));
let browser: Awaited<ReturnType<typeof launchChromium>>;
const store = new MemoryRunStore();

async function writePage(runId: string, from: RunStore = store): Promise<string> {
  const path = join(dir, `${runId}.html`);
  writeFileSync(path, tracePageHtml(await readTracePage(from, runId, { mode: "file", source: "MemoryRunStore" })));
  return path;
}

/** A page that fails the test on any script error. */
async function open(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  page.setDefaultTimeout(5_000);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector('[role="treeitem"]');
  return { page, errors };
}

/** The value of a row of the detail's key-value list. */
const detailValue = (page: Page, key: string) => page.locator(".detail dl.kv dt", { hasText: new RegExp(`^${key}$`) }).locator("xpath=following-sibling::dd[1]").textContent();

const fact = (page: Page, key: string) => page.locator(`[data-fact="${key}"] dd`).textContent();

/** An agent that asks for one lookup, then answers. */
function lookupExecutor(options: { store: RunStore; responses?: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"] } & Record<string, unknown>) {
  const { store: runStore, responses, ...rest } = options;
  const lookup = tool(async ({ q }) => `found ${q}`, { name: "lookup", description: "Looks something up.", schema: z.object({ q: z.string() }) });
  const llm = new ScriptedChatModel({ streaming: true, latencyMs: 5, tokenDelayMs: 1, responses: responses ?? [{ toolCalls: [{ name: "lookup", args: { q: "x" } }] }, "The answer is 42."] });
  const prompt = ChatPromptTemplate.fromMessages([["system", "You look things up."], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store: runStore, ...rest });
}

beforeAll(async () => {
  if (skip) return;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)("model calls that were not streamed", () => {
  it("says an invoke run's calls were not streamed instead of leaving the first token blank", async () => {
    await lookupExecutor({ store }).invoke({ input: "What is it?" }, { runId: "invoked" });
    const { page, errors } = await open(pathToFileURL(await writePage("invoked")).href);
    expect(await page.locator('[data-id="model-1-0"] .note').textContent()).toMatch(/^The answer is 42\. · not streamed/);
    expect(await page.locator(".bar .ttft").count()).toBe(0);
    await page.click('[data-id="model-1-0"] .label');
    expect(await detailValue(page, "First token")).toBe("– (not streamed: nothing watched the model's tokens, as in an invoke run)");
    expect(await page.locator('.detail [data-field="reply.content"]').textContent()).toBe("The answer is 42.");
    expect(await page.locator(".detail").textContent()).not.toMatch(/waiting for the reply/i);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skip)("a model call streaming on a live page", () => {
  let server: UiServer;
  beforeAll(async () => {
    server = await startUiServer({ store, source: "MemoryRunStore", port: 0, pollMs: 50 });
  });
  afterAll(async () => server?.close());

  it("shows the tokens of the call in progress as they arrive, then its recorded reply", async () => {
    const owner = "test:1";
    const t0 = Date.now();
    await store.createRun({ runId: "streaming", inputs: { input: "Tell me." }, status: "running", owner, leaseMs: 60_000, at: t0 });
    const event = (seq: number, type: string, at: number, data: Record<string, unknown>): StoredRunEvent => ({ seq, type, at, data: { type, at, ...data } as StoredRunEvent["data"] });
    const write = (events: StoredRunEvent[], update?: Parameters<RunStore["write"]>[1]["update"]) =>
      store.write("streaming", { owner, leaseMs: 60_000, at: Date.now(), events, ...(update ? { update } : {}) });
    // Tokens recorded before the page opens are shown too.
    await write([event(1, "start", t0, { runId: "streaming", inputs: { input: "Tell me." }, resumed: false }), event(2, "token", t0 + 5, { iteration: 0, text: "Once upon " })]);
    const { page, errors } = await open(`${server.url}/runs/streaming`);
    await page.click('[data-id="model-0-0"] .label');
    const live = page.locator('.detail [data-field="live-text"]');
    expect(await live.textContent()).toBe("Once upon ");
    expect(await page.locator('[data-id="model-0-0"] .note').textContent()).toMatch(/^Once upon▍/);
    expect(await detailValue(page, "First token")).toMatch(/^after \d/);

    await write([event(3, "token", Date.now(), { iteration: 0, text: "a time" }), event(4, "token", Date.now(), { iteration: 0, text: ", a model streamed." })]);
    await expect.poll(() => live.textContent(), { timeout: 10_000 }).toBe("Once upon a time, a model streamed.");
    expect(await page.locator(".detail").textContent()).toContain("Streaming: 35 characters so far.");
    expect(await page.locator(".detail").textContent()).not.toContain("Waiting for the reply");

    const done = Date.now();
    const message = { type: "ai", data: { content: "Once upon a time, a model streamed.", tool_calls: [], invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} } };
    await write(
      [
        event(5, "model_call", done, { call: 0, iteration: 0, durationMs: done - t0, inputCount: 1, inputDigest: "d", message }),
        event(6, "output", done + 1, { runId: "streaming", output: "Once upon a time, a model streamed.", returnValues: { output: "x" }, messages: [], stopReason: "finish", withSteps: false }),
      ],
      { status: "finished", stopReason: "finish", release: true },
    );
    await page.waitForSelector('[data-status="finished"]', { timeout: 10_000 });
    await page.click('[data-id="model-0-0"] .label');
    expect(await page.locator('.detail [data-field="reply.content"]').textContent()).toBe("Once upon a time, a model streamed.");
    expect(await live.count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("keeps a zoomed view on the same stretch of time while a live run grows", async () => {
    // A running run that started 2 s ago: its timeline ends at "now", so it grows on every redraw.
    const start = Date.now() - 2_000;
    const events = await writeSyntheticRun(store, { runId: "zoom-live", iterations: 3, toolsPerIteration: 1, running: true, start });
    const { page, errors } = await open(`${server.url}/runs/zoom-live`);
    // Zoom to the second model call ("z" zooms to the selected row's bar).
    await page.click('[data-id="model-1-0"] .label');
    await page.keyboard.press("z");
    await expect.poll(async () => Number(await page.locator(".zoom-label").getAttribute("data-zoom"))).toBeGreaterThan(4);
    // The bar's left edge, read in one step inside the page. A live page redraws its rows (new
    // elements) every second: a locator's boundingBox() can find the element just before a redraw
    // replaces it and then measure nothing (null), which once read as a bar moved to x = 0.
    const left = () =>
      page.evaluate(() => {
        const bar = document.querySelector('[data-id="model-1-0"] .bar');
        if (bar === null) throw new Error("model-1-0 has no bar in view");
        return bar.getBoundingClientRect().x;
      });
    const before = await left();
    // The run goes on: another token 1.5 s later, and the page redraws with a longer timeline.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const at = Date.now();
    const seq = events.length + 1;
    await store.write("zoom-live", { owner: "synthetic:1", leaseMs: 3_600_000, at, events: [{ seq, type: "token", at, data: { type: "token", at, iteration: 3, text: "more" } as StoredRunEvent["data"] }] });
    await expect.poll(() => page.locator('[data-id="model-3-0"]').count(), { timeout: 10_000 }).toBe(1);
    // The bar stays where it was: the view holds the same times, and so its zoom grows with the run.
    expect(Math.abs((await left()) - before)).toBeLessThan(1.5);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a real run's text growing while its model streams (recordTokens: \"each\")", async () => {
    // About 8 s of streaming (33 words, 250 ms each): the page must open and show part of it
    // before it ends, also on a loaded machine (15 words were seen to end first).
    const text = "Tides rise and fall twice a day because the moon pulls the sea toward it, and the sun adds its own smaller pull, so the highest tides come at new and full moon.";
    const llm = new ScriptedChatModel({ streaming: true, tokenDelayMs: 250, responses: [text] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], store, recordTokens: "each" });
    const run = lastValueFrom(executor.stream({ input: "Why tides?" }, { runId: "real-stream" }));
    while ((await store.getRun("real-stream")) === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    const { page, errors } = await open(`${server.url}/runs/real-stream`);
    await page.waitForSelector('[data-id="model-0-0"]');
    await page.click('[data-id="model-0-0"] .label');
    // Some of the text, not all of it yet: the call still streams.
    const live = page.locator('.detail [data-field="live-text"]');
    await expect.poll(async () => ((await live.count()) > 0 ? ((await live.textContent()) ?? "").length : 0), { timeout: 10_000 }).toBeGreaterThan(0);
    const partial = (await live.textContent()) ?? "";
    expect(text.startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan(text.length);
    await run;
    await page.waitForSelector('[data-status="finished"]', { timeout: 10_000 });
    await page.click('[data-id="model-0-0"] .label');
    expect(await page.locator('.detail [data-field="reply.content"]').textContent()).toBe(text);
    expect(errors).toEqual([]);
    await page.close();
  }, 30_000);
});

describe.skipIf(skip)("zooming the waterfall", () => {
  const axisLabels = (page: Page) => page.locator(".axis .tick").allTextContents();
  /** A bar's box, once it is drawn (a zoom redraws on the next animation frame). */
  const barBox = async (page: Page, id: string) => {
    let box = await page.locator(`[data-id="${id}"] .bar`).boundingBox();
    for (let i = 0; box === null && i < 50; i++) box = await page.locator(`[data-id="${id}"] .bar`).boundingBox();
    if (box === null) throw new Error(`no bar for ${id}`);
    return box;
  };

  it("zooms with the buttons, the keyboard and Ctrl + wheel, pans by dragging, and resets; the axis never repeats a label", async () => {
    await writeSyntheticRun(store, { runId: "zoom", iterations: 6, toolsPerIteration: 2, start: 1_800_000_000_000 });
    const { page, errors } = await open(pathToFileURL(await writePage("zoom")).href);
    const whole = await barBox(page, "model-3-0");
    const wholeLabels = await axisLabels(page);
    expect(new Set(wholeLabels).size).toBe(wholeLabels.length);
    expect(await page.locator('[data-zoom-action="reset"]').isDisabled()).toBe(true);

    // Two clicks on "+": the bars are 4 times as wide, and the axis shows a quarter of the run.
    await page.click('[data-zoom-action="in"]');
    await page.click('[data-zoom-action="in"]');
    await expect.poll(() => page.locator(".zoom-label").textContent()).toBe("×4");
    // A model call's bar wholly in view (one in the middle of the run) is 4 times as wide.
    const axisBox = (await page.locator(".axis").boundingBox())!;
    let inView = 0;
    for (let n = 0; n <= 6; n++) {
      if ((await page.locator(`[data-id="model-${n}-0"] .bar`).count()) === 0) continue; // out of view
      const box = await barBox(page, `model-${n}-0`);
      if (box.x < axisBox.x + 1 || box.x + box.width > axisBox.x + axisBox.width - 1) continue;
      inView++;
      expect(box.width).toBeCloseTo(whole.width * 4, 0); // every model call takes 100 ms
    }
    expect(inView).toBeGreaterThan(0);
    let labels = await axisLabels(page);
    expect(labels.length).toBeGreaterThan(2);
    expect(new Set(labels).size).toBe(labels.length);

    // Deep zoom with the keyboard: labels stay distinct (more decimals), never "1.2 s 1.2 s".
    await page.click('[data-id="model-3-0"] .label');
    for (let i = 0; i < 8; i++) await page.keyboard.press("+");
    await expect.poll(() => page.locator(".zoom-label").textContent()).toBe("×1020");
    labels = await axisLabels(page);
    expect(labels.length).toBeGreaterThan(2);
    expect(new Set(labels).size, labels.join(" ")).toBe(labels.length);

    // Back out, then drag the timeline to the left: the view moves later in the run.
    await page.keyboard.press("0");
    await expect.poll(() => page.locator(".zoom-label").textContent()).toBe("");
    await page.keyboard.press("+");
    await page.keyboard.press("+");
    await expect.poll(() => page.locator(".zoom-label").textContent()).toBe("×4");
    const before = await barBox(page, "model-3-0");
    const axis = (await page.locator(".axis").boundingBox())!;
    await page.mouse.move(axis.x + axis.width * 0.6, axis.y + 10);
    await page.mouse.down();
    await page.mouse.move(axis.x + axis.width * 0.4, axis.y + 10, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => (await barBox(page, "model-3-0")).x).toBeCloseTo(before.x - axis.width * 0.2, -1);
    // Shift + ← pans back by a quarter of the view.
    await page.click('[data-id="model-3-0"] .label');
    const panned = await barBox(page, "model-3-0");
    await page.keyboard.press("Shift+ArrowLeft");
    await expect.poll(async () => (await barBox(page, "model-3-0")).x).toBeCloseTo(panned.x + axis.width * 0.25, -1);
    expect(await page.locator('[role="treeitem"][aria-selected="true"]').getAttribute("data-id")).toBe("model-3-0");

    // Ctrl + wheel over the axis zooms in around the pointer.
    await page.click('[data-zoom-action="reset"]');
    await page.mouse.move(axis.x + axis.width / 2, axis.y + 10);
    await page.keyboard.down("Control");
    await page.mouse.wheel(0, -300);
    await page.keyboard.up("Control");
    await expect.poll(async () => Number(await page.locator(".zoom-label").getAttribute("data-zoom"))).toBeGreaterThan(1.5);

    // "z" zooms to the selected row's bar.
    await page.click('[data-zoom-action="reset"]');
    await page.click('[data-id="tool-3-1"] .label');
    await page.keyboard.press("z");
    await expect.poll(async () => (await barBox(page, "tool-3-1")).width).toBeGreaterThan(axis.width * 0.75);
    await page.click('[data-zoom-action="reset"]');
    await expect.poll(async () => (await barBox(page, "model-3-0")).width).toBeCloseTo(whole.width, 0);
    expect(await axisLabels(page)).toEqual(wholeLabels);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skip)("sub-runs", () => {
  it("draws a sub-run as a collapsible tree under the tool call that started it, with its details", async () => {
    await recordSupervisorRun(store, "supervisor", { delayMs: 5 });
    const { page, errors } = await open(pathToFileURL(await writePage("supervisor")).href);
    const sub = "tool-0-0/sub0";
    const ids = await page.locator('[role="treeitem"]').evaluateAll((rows) => rows.map((row) => row.getAttribute("data-id")));
    expect(ids).toEqual([
      "run",
      "it-0",
      "model-0-0",
      "tool-0-0",
      `${sub}/run`,
      `${sub}/it-0`,
      `${sub}/model-0-0`,
      `${sub}/tool-0-0`,
      `${sub}/it-1`,
      `${sub}/model-1-0`,
      `${sub}/tool-1-0`,
      `${sub}/it-2`,
      `${sub}/model-2-0`,
      `${sub}/answer`,
      "step-0-0",
      "it-1",
      "model-1-0",
      "answer",
    ]);
    const subRow = page.locator(`[data-id="${sub}/run"]`);
    expect(await subRow.locator(".kind").textContent()).toBe("sub-run");
    expect(await subRow.getAttribute("aria-level")).toBe("4");
    expect(await page.locator(`[data-id="${sub}/tool-0-0"] .bar`).count()).toBe(1);

    // Its tool call's detail, with the texts of the sub-run's events.
    await page.click(`[data-id="${sub}/tool-1-0"] .label`);
    expect(await page.locator(".detail h2").textContent()).toBe("tool call lookup");
    expect(await page.locator('.detail [data-field="event.toolInput"]').textContent()).toBe('{\n  "q": "spring tides"\n}');
    expect(await page.locator('.detail [data-field="event.observation"]').textContent()).toBe("facts about spring tides: the moon's pull raises the sea twice a day");
    // The sub-run's own detail: its inputs and answer.
    await page.click(`[data-id="${sub}/run"] .label`);
    expect(await page.locator(".detail h2").textContent()).toBe("sub-run researcher");
    expect(await page.locator('.detail [data-field="event.inputs"]').textContent()).toContain("How do tides work?");
    expect(await page.locator('.detail [data-field="event.output"]').textContent()).toBe("Tides follow the moon; spring tides come at new and full moon.");

    // Closed with ←, the sub-run's rows go; → opens it again.
    await page.keyboard.press("ArrowLeft");
    expect(await page.locator(`[data-id="${sub}/it-0"]`).count()).toBe(0);
    expect(await subRow.getAttribute("aria-expanded")).toBe("false");
    await page.keyboard.press("ArrowRight");
    expect(await page.locator(`[data-id="${sub}/it-0"]`).count()).toBe(1);
    // Closing the tool call hides its sub-run too.
    await page.click('[data-id="tool-0-0"] .twisty');
    expect(await page.locator(`[data-id="${sub}/run"]`).count()).toBe(0);
    expect(await fact(page, "tool-calls")).toBe("1");
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skip)("cost and the exact request of a model call", () => {
  it("shows the run's cost in the header, each call's in its row and detail, and the request it was sent, collapsed", async () => {
    const lookup = tool(async ({ q }) => `found ${q}`, { name: "lookup", description: "Looks something up.", schema: z.object({ q: z.string() }) });
    const llm = new ScriptedChatModel({
      model: "scripted-1",
      responses: [{ toolCalls: [{ name: "lookup", args: { q: "x" } }], usage: { inputTokens: 1000, outputTokens: 100 } }, { content: "42.", usage: { inputTokens: 2000, outputTokens: 10 } }],
    });
    const prompt = ChatPromptTemplate.fromMessages([["system", "You look things up."], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store, prices: { "scripted-1": { input: 2, output: 10 } } });
    await lastValueFrom(executor.stream({ input: "What is x?" }, { runId: "priced" }));
    expect((await store.getRun("priced"))?.usage?.cost?.total).toBeCloseTo(0.0071, 10);
    const { page, errors } = await open(pathToFileURL(await writePage("priced")).href);
    expect(await fact(page, "cost")).toBe("$0.0071");
    expect(await page.locator('[data-id="model-0-0"] .note').textContent()).toMatch(/ · 1,100 tokens · \$0\.0030$/);

    await page.click('[data-id="model-1-0"] .label');
    expect(await detailValue(page, "Cost")).toBe("$0.0041");
    expect(await detailValue(page, "Model")).toBe("scripted-1");
    const request = page.locator('.detail details[data-section="request"]');
    expect(await request.locator("summary").textContent()).toBe("Exact request: 4 messages, 1 tool");
    expect(await request.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false); // collapsed
    expect(await page.locator('.detail [data-field="request.messages.0.content"]').isVisible()).toBe(false);
    await request.locator("summary").click();
    expect(await request.locator(".message .role").allTextContents()).toEqual(["system", "human", "ai", "tool call · lookup · call_0_0", "tool"]);
    expect(await page.locator('.detail [data-field="request.messages.0.content"]').textContent()).toBe("You look things up.");
    expect(await page.locator('.detail [data-field="request.messages.3.content"]').textContent()).toBe("found x");
    expect(JSON.parse((await page.locator('.detail [data-field="request.tools"]').textContent()) ?? "")[0].function.name).toBe("lookup");

    // The run's detail has its cost too.
    await page.click('[data-id="run"] .label');
    expect(await detailValue(page, "Cost")).toBe("$0.0071");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("says where the exact request would be when the run did not record it (invoke)", async () => {
    if ((await store.getRun("invoked")) === undefined) await lookupExecutor({ store }).invoke({ input: "What is it?" }, { runId: "invoked" });
    const { page } = await open(pathToFileURL(await writePage("invoked")).href);
    await page.click('[data-id="model-0-0"] .label');
    expect(await page.locator('.detail details[data-section="request"]').count()).toBe(0);
    expect(await page.locator(".detail").textContent()).toContain("a run recorded with recordPrompts (on for stream()) keeps the exact request");
    expect(await page.locator('[data-fact="cost"]').count()).toBe(0); // no prices: no cost
    await page.close();
  });
});

describe.skipIf(skip)("images", () => {
  it("shows a thumbnail of a small inline image and a placeholder with the size of one the record left out, never base64", async () => {
    await recordImageRun(store, "images");
    const path = await writePage("images");
    expect(readFileSync(path, "utf8")).not.toContain(LARGE_IMAGE_BASE64.slice(0, 1000));
    const { page, errors } = await open(pathToFileURL(path).href);
    await page.click('[data-id="tool-0-0"] .label');
    const observation = page.locator('.detail [data-field="observation"]');
    // 600 K characters of base64 are 450 KB of image.
    expect(await observation.textContent()).toMatch(/^Sales by month, and the dashboard:\n\[image 1: image\/png, \d+ B\]\n\[image 2: image\/png, 450 KB, not in the record\]$/);
    const thumb = page.locator('.detail figure.thumb[data-image="1"] img');
    await expect.poll(() => thumb.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(120); // decoded: the page's CSP allows data: images
    expect(await page.locator('.detail figure.thumb[data-image="1"] figcaption').textContent()).toMatch(/^image 1 · image\/png · \d+ (B|KB)$/);
    const placeholder = page.locator('.detail figure.placeholder[data-image="2"]');
    expect(await placeholder.locator("figcaption").textContent()).toBe("image 2 · image/png · 450 KB");
    expect(await placeholder.locator(".placeholder-box").textContent()).toBe("not in the record: too large to keep");
    // A click enlarges the thumbnail.
    await thumb.click();
    expect(await page.locator('.detail figure.thumb[data-image="1"]').getAttribute("class")).toContain("large");

    // The run's inputs: the photo in a message, as a thumbnail.
    await page.click('[data-id="run"] .label');
    expect(await page.locator('.detail [data-field="inputs"]').textContent()).toContain("[image 1: image/png");
    expect(await page.locator(".detail figure.thumb img").count()).toBe(1);
    // No base64 shown as text anywhere.
    expect(await page.evaluate(() => document.body.innerText)).not.toMatch(/iVBORw0KGgo|AAAAAAAAAAAAAAAA/);
    expect(errors).toEqual([]);
    await page.close();
  });
});
