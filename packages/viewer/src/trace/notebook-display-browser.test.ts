// The notebook display's HTML as a notebook front end shows it: the live table, and the trace page
// inside its sandboxed frame, rendered by Chromium (the page's script must run in the frame).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { AgentExecutor, type MimeBundle, RUN_MIME_TYPE } from "@agentrx/executors";
import { displayRun } from "@agentrx/viewer";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { launchChromium, skipWithoutChromium } from "./browser-test-helpers";

const skip = skipWithoutChromium("notebook display (browser)");
const dir = mkdtempSync(join(tmpdir(), "agentrx-notebook-display-"));
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  if (!skip) browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)("a run's notebook display in Chromium", () => {
  it("draws the live table, and the trace page runs inside its sandboxed frame", async () => {
    let turn = 0;
    const agent = RunnableLambda.from(() =>
      turn++ === 0
        ? [{ tool: "weather", toolInput: { city: "Oslo" }, log: "", toolCallId: "c1", messageLog: [] }]
        : { returnValues: { output: "Sunny in Oslo." }, log: "" },
    );
    const weather = tool(async () => "<b>sunny</b>", { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
    const executor = new AgentExecutor({ agent, tools: [weather] });
    const live: MimeBundle[] = [];
    const bundle = await displayRun(executor.invoke({ input: "Weather in Oslo?" }), { live: { show: (b) => void live.push(b), update: (b) => void live.push(b) } });
    const runId = bundle[RUN_MIME_TYPE].runId as string;

    // A notebook page: the live display's last state, then the cell's result.
    const path = join(dir, "notebook.html");
    writeFileSync(path, `<!doctype html><html><body><div id="live">${live.at(-1)?.["text/html"]}</div><div id="result">${bundle["text/html"]}</div></body></html>`);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(path).href);

    expect(await page.locator("#live .agentrx-run").getAttribute("data-status")).toBe("finished");
    expect(await page.locator("#live .agentrx-run td pre").nth(1).textContent()).toBe("<b>sunny</b>"); // text, not markup
    const frame = page.frameLocator("#result iframe.agentrx-trace");
    await frame.locator('[role="treeitem"]').first().waitFor();
    expect(await frame.locator("body").textContent()).toContain(runId);
    expect(await frame.locator('[role="treeitem"]').count()).toBeGreaterThan(2);
    expect(errors).toEqual([]);
    await page.close();
  });
});
