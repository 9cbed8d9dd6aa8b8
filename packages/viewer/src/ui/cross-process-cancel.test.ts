// Cancelling from the page a run that runs in another process: the ui asks the store
// (`cancelRun`), and the other process, refused its next write, stops its run and aborts its tool.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentExecutor } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import { RunnableLambda } from "@langchain/core/runnables";
import { afterAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "../trace/browser-test-helpers";
import { startUiServer, type UiServer } from "./start-ui-server";
import { childScript } from "../../../../test/support/child-script";

const skip = skipWithoutChromium("cross-process cancel (browser)");
const MAIN = await childScript(fileURLToPath(new URL("./other-process-run-main.ts", import.meta.url)));
// The repository root, whose tsconfig.json maps @agentrx/* to their sources.
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentrx-cancel-"));
const db = join(dir, "runs.db");

let child: ChildProcess | undefined;
let server: UiServer | undefined;
let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
let store: SqliteRunStore | undefined;
afterAll(async () => {
  child?.kill();
  await server?.close();
  await browser?.closeAll();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the other process; resolves once its tool runs, with a promise of its last line. */
function startOtherProcess(runId: string): Promise<{ ended: Promise<string> }> {
  return new Promise((resolve, reject) => {
    child = spawn(process.execPath, [MAIN, db, runId], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let done: (line: string) => void = () => undefined;
    const ended = new Promise<string>((resolveEnd) => (done = resolveEnd));
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.startsWith("started\n")) resolve({ ended });
    });
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => {
      const lines = stdout.trim().split("\n");
      if (!stdout.startsWith("started\n")) reject(new Error(`the other process exited (${code}) before its tool ran:\n${stdout}\n${stderr}`));
      done(lines[lines.length - 1] ?? "");
    });
  });
}

describe.skipIf(skip)("cancelling a run of another process from the page", () => {
  it("cancels it through the store: the other process stops at its next write and aborts its tool", async () => {
    const { ended } = await startOtherProcess("elsewhere");
    store = new SqliteRunStore({ path: db });
    expect((await store.getRun("elsewhere"))?.status).toBe("running");
    // The ui's executor runs other agents: the run is not this server's.
    const executor = new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "-" }, log: "" })), tools: [], store });
    server = await startUiServer({ store, source: "SQLite runs.db", port: 0, executor });
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${server.url}/runs/elsewhere`);
    await page.click('[data-action="cancel"]');
    // Cancelled, or the page says why not (the server's answer), whichever comes first.
    const settled = await Promise.race([
      page.waitForSelector('[data-status="cancelled"]', { timeout: 20_000 }).then(() => "cancelled"),
      page.waitForSelector('[data-field="action-status"].error-text', { timeout: 20_000 }).then(async (status) => `not cancelled: ${await status?.textContent()}`),
    ]);
    expect(settled).toBe("cancelled");

    const outcome = JSON.parse(await ended) as { error?: string; completed?: boolean; aborted: boolean };
    expect(outcome.completed).toBeUndefined();
    expect(outcome.error).toMatch(/^RunLeaseLostError: .*run "elsewhere" was cancelled from another process \(cancelRun\)/);
    expect(outcome.aborted).toBe(true); // the tool in flight saw its signal fire
    const run = await store.getRun("elsewhere");
    expect(run).toMatchObject({ status: "cancelled", error: "The run was cancelled from agentrx ui." });
    expect(run?.owner).toBeUndefined();
    // Cancelled: the page offers to resume it, not to cancel it again.
    await page.reload();
    await page.waitForSelector('[data-action="resume"]');
    expect(await page.locator('[data-action="cancel"]').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);
});
