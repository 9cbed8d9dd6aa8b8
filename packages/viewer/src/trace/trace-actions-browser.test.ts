// The `ui`'s actions in Chromium: approve, reject and edit a paused call, resume a cancelled run,
// cancel the run the server runs, fork from an iteration; and the server's guards (token, Origin,
// POST only, no executor).
import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import type { AgentAction, AgentFinish, AgentInput } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import type { Page } from "playwright-core";
import { filter, firstValueFrom, lastValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startUiServer, type UiServer } from "../ui/start-ui-server";
import { launchChromium, skipWithoutChromium } from "./browser-test-helpers";

const skip = skipWithoutChromium("trace page actions (browser)");

let browser: Awaited<ReturnType<typeof launchChromium>>;
let server: UiServer;
const store = new MemoryRunStore();
/** While closed, `lookup` waits (until its run is cancelled). */
let gateOpen = false;

const remove = withApproval(tool(async ({ path }: { path: string }) => `removed ${path}`, { name: "delete_file", description: "Deletes a file.", schema: z.object({ path: z.string() }) }));
const lookup = tool(
  async ({ q }: { q: string }, config) => {
    while (!gateOpen) {
      if (config?.signal?.aborted) throw new Error("aborted");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return `found ${q}`;
  },
  { name: "lookup", description: "Looks a thing up.", schema: z.object({ q: z.string() }) },
);

/** An agent that calls the tool its input names (`delete <path>`, `look <q>`), then answers with the last observation. */
const agent = RunnableLambda.from(async (input: AgentInput): Promise<AgentAction[] | AgentFinish> => {
  const [verb, arg] = String(input["input"]).split(" ");
  if (input.steps.length === 0 || (verb === "look" && input.steps.length < 2)) {
    const call = verb === "delete" ? { tool: "delete_file", toolInput: { path: arg } } : { tool: "lookup", toolInput: { q: `${arg}${input.steps.length}` } };
    return [{ ...call, log: "", toolCallId: `call_${input.steps.length}`, messageLog: [] } as unknown as AgentAction];
  }
  const last = input.steps[input.steps.length - 1]!;
  return { returnValues: { output: `Done: ${String(last.observation)}` }, log: "" };
});
const executor = new AgentExecutor({ agent, tools: [remove, lookup], store });

async function open(runId: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${server.url}/runs/${runId}`);
  await page.waitForSelector('[role="treeitem"]');
  return { page, errors };
}

async function paused(input: string, runId: string): Promise<void> {
  await lastValueFrom(executor.stream({ input }, { runId }));
  expect((await store.getRun(runId))?.status).toBe("interrupted");
}

const answerOf = (page: Page) => page.locator('[data-id="answer"] .note').textContent();

beforeAll(async () => {
  if (skip) return;
  browser = await launchChromium();
  server = await startUiServer({ store, source: "memory", port: 0, executor });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await browser?.closeAll();
});

describe.skipIf(skip)("acting on runs from the trace page in Chromium", () => {
  it("approves a paused call: the run goes on and finishes", async () => {
    await paused("delete /tmp/a", "approve-me");
    const { page, errors } = await open("approve-me");
    expect(await page.locator("[data-interrupt] code").textContent()).toBe('delete_file({"path":"/tmp/a"})');
    await page.click('[data-interrupt] [data-action="approve"]');
    await page.waitForSelector('[data-status="finished"]', { timeout: 15_000 });
    expect(await answerOf(page)).toContain("Done: removed /tmp/a");
    expect(await page.locator("[data-interrupt]").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("rejects a paused call with a reason, and edits another's arguments", async () => {
    await paused("delete /tmp/b", "reject-me");
    const rejected = await open("reject-me");
    await rejected.page.fill('[data-field="reject-reason"]', "keep it");
    await rejected.page.click('[data-action="reject"]');
    await rejected.page.waitForSelector('[data-status="finished"]', { timeout: 15_000 });
    expect(await answerOf(rejected.page)).toContain("keep it");
    expect(await answerOf(rejected.page)).not.toContain("removed");
    await rejected.page.close();

    await paused("delete /tmp/c", "edit-me");
    const edited = await open("edit-me");
    await edited.page.click('[data-action="edit"]');
    await edited.page.fill('[data-field="edit-args"]', '{ "path": "/tmp/edited" }');
    await edited.page.click('[data-action="edit"]');
    await edited.page.waitForSelector('[data-status="finished"]', { timeout: 15_000 });
    expect(await answerOf(edited.page)).toContain("Done: removed /tmp/edited");
    expect(edited.errors).toEqual([]);
    await edited.page.close();
  });

  it("resumes a cancelled run, cancels it while this server runs it, and resumes it to its end", async () => {
    gateOpen = false;
    const run = executor.stream({ input: "look x" }, { runId: "cancel-me" });
    await firstValueFrom(run.pipe(filter((event: AgentStreamEvent) => event.type === "action"))); // unsubscribing cancels
    await expect.poll(async () => (await store.getRun("cancel-me"))?.status).toBe("cancelled");

    const { page, errors } = await open("cancel-me");
    expect(await page.locator('[data-action="cancel"]').count()).toBe(0); // not this server's run
    await page.click('[data-action="resume"]');
    await page.waitForSelector('[data-action="cancel"]', { timeout: 15_000 }); // running here now
    expect(await page.locator("[data-status]").textContent()).toBe("running");
    await page.click('[data-action="cancel"]');
    await page.waitForSelector('[data-status="cancelled"]', { timeout: 15_000 });
    expect((await store.getRun("cancel-me"))?.status).toBe("cancelled");

    gateOpen = true;
    await page.click('[data-action="resume"]');
    await page.waitForSelector('[data-status="finished"]', { timeout: 15_000 });
    expect(await answerOf(page)).toContain("Done: found x1");
    expect(await page.locator('[data-fact="stop-reason"] dd').textContent()).toBe("finish");
    expect(await page.locator(".detail .error-text").count()).toBe(0); // no stale cancel box
    expect(errors).toEqual([]);
    await page.close();
  });

  it("keeps the iteration chosen to fork from while a running run's page redraws with the clock", async () => {
    gateOpen = false;
    const run = executor.stream({ input: "look z" }, { runId: "choose-while-running" }).subscribe({ error: () => undefined });
    await expect.poll(async () => (await store.getRun("choose-while-running"))?.eventCount ?? 0).toBeGreaterThan(1);
    const page = await browser.newPage();
    await page.clock.install();
    await page.goto(`${server.url}/runs/choose-while-running`);
    const at = page.locator('[data-field="fork-at"]');
    await at.waitFor();
    expect(await at.inputValue()).toBe("1");
    await page.selectOption('[data-field="fork-at"]', "0");
    await page.clock.runFor(3000); // the running run's bars, header and detail are redrawn every second
    expect(await page.locator("[data-status]").textContent()).toBe("running");
    expect(await at.inputValue()).toBe("0");
    await page.close();
    run.unsubscribe(); // cancels the run
  });

  it("forks a finished run after its first iteration and opens the fork", async () => {
    gateOpen = true;
    await lastValueFrom(executor.stream({ input: "look y" }, { runId: "fork-me" }));
    const { page, errors } = await open("fork-me");
    await page.selectOption('[data-field="fork-at"]', "1");
    await page.click('[data-action="fork"]');
    await page.waitForURL((url) => url.pathname.startsWith("/runs/") && !url.pathname.endsWith("/fork-me"), { timeout: 15_000 });
    const forkId = decodeURIComponent(new URL(page.url()).pathname.slice("/runs/".length));
    await page.waitForSelector('[data-status="finished"]', { timeout: 15_000 });
    const fork = await store.getRun(forkId);
    expect(fork?.forkOf).toEqual({ runId: "fork-me", iteration: 1 });
    expect(await answerOf(page)).toContain("Done: found y1");
    // The fork's own part says it was forked, not resumed after a pause; its detail links to the source.
    const forked = page.locator("#row-seg-1");
    expect(await forked.textContent()).toMatch(/forked\s*from fork-me after iteration 1/);
    expect(await forked.textContent()).not.toContain("pause");
    await forked.click();
    expect(await page.locator(".detail a[data-fork-source]").getAttribute("href")).toBe("/runs/fork-me");
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skip)("the ui server's guards on actions", () => {
  const post = (runId: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/runs/${runId}/actions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

  it("refuses a POST without the page's token or from another origin, a GET, and a bad body", async () => {
    await paused("delete /tmp/guarded", "guarded");
    const html = await (await fetch(`${server.url}/runs/guarded`)).text();
    const token = /"actions":\{"token":"([^"]+)"/.exec(html)?.[1] as string;
    expect(token).toMatch(/^[\w-]{32}$/);
    expect((await post("guarded", { action: "resume" })).status).toBe(403);
    expect((await post("guarded", { action: "resume" }, { "x-agentrx-token": `${token}x` })).status).toBe(403);
    expect((await post("guarded", { action: "resume" }, { "x-agentrx-token": token, origin: "http://evil.example" })).status).toBe(403);
    expect((await fetch(`${server.url}/api/runs/guarded/actions`)).status).toBe(405);
    const bad = await post("guarded", { action: "approve" }, { "x-agentrx-token": token });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain("interruptId");
    const wrong = await post("guarded", { action: "resume" }, { "x-agentrx-token": token });
    expect(wrong.status).toBe(409); // paused, not cancelled: decide its calls instead
    // A decision for an interrupt the run never had names the calls it waits on (decision-statuses.test.ts: the others).
    const unknown = await post("guarded", { action: "approve", interruptId: "call-9-0" }, { "x-agentrx-token": token });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/^run guarded never paused on interrupt id "call-9-0"; it waits on call-0-0 \(\w+\)$/);
    expect((await store.getRun("guarded"))?.status).toBe("interrupted");
  });

  it("resumes a failed run and a stalled one (its process stopped), not one whose lease still holds", async () => {
    const html = await (await fetch(`${server.url}/runs/guarded`)).text();
    const token = /"actions":\{"token":"([^"]+)"/.exec(html)?.[1] as string;
    const at = Date.now();
    gateOpen = true;
    await store.createRun({ runId: "failed-run", inputs: { input: "look f" }, status: "running", owner: "gone", leaseMs: 60_000, at });
    await store.write("failed-run", { owner: "gone", leaseMs: 60_000, events: [], update: { status: "failed", error: "model down", release: true }, at });
    await store.createRun({ runId: "stalled-run", inputs: { input: "look s" }, status: "running", owner: "gone", leaseMs: 10, at: at - 60_000 });
    await store.createRun({ runId: "held-run", inputs: { input: "look h" }, status: "running", owner: "alive", leaseMs: 600_000, at });
    for (const runId of ["failed-run", "stalled-run"]) {
      const response = await post(runId, { action: "resume" }, { "x-agentrx-token": token });
      expect(response.status, runId).toBe(202);
      await expect.poll(async () => (await store.getRun(runId))?.status, { timeout: 10_000 }).toBe("finished");
    }
    const held = await post("held-run", { action: "resume" }, { "x-agentrx-token": token });
    expect(held.status).toBe(409);
    expect(((await held.json()) as { error: string }).error).toMatch(/only a cancelled or failed run, or a stalled one/);
    expect((await store.getRun("held-run"))?.owner).toBe("alive");
  });

  it("a server without an executor shows runs only", async () => {
    const readOnly = await startUiServer({ store, source: "memory", port: 0 });
    try {
      const html = await (await fetch(`${readOnly.url}/runs/guarded`)).text();
      const data = JSON.parse(/<script type="application\/json" id="agentrx-data">(.*?)<\/script>/s.exec(html)?.[1] ?? "{}") as { run?: unknown; actions?: unknown };
      expect(data.run).toBeDefined();
      expect(data.actions).toBeUndefined();
      const response = await fetch(`${readOnly.url}/api/runs/guarded/actions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: string }).error).toContain("executor");
    } finally {
      await readOnly.close();
    }
  });
});
