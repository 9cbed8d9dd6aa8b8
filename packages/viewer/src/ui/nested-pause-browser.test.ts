// A run paused on another agent's call (a handoff's or an asTool's, docs/approval.md "A pause
// inside a handoff") in Chromium: the paused call says whose it is and links to that agent's run,
// whose page links back to the run that answers it; decisions on the call resume the calling run.
import { lastValueFrom } from "rxjs";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { chromiumSuite } from "../trace/chromium-suite";
import { runPagePath } from "../trace-page/run-route";
import { type NestedPauseOptions, nestedPauseExecutors } from "./nested-pause-fixtures";
import { startUiServer, type UiServer } from "./start-ui-server";

const { skip, browser } = chromiumSuite("nested pauses (browser)", "agentrx-nested-pause-");
const NESTED_ID = "call-0-0/call-0-0";

let server: UiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `agentrx ui` over the caller's store, with run `runId` paused on billing's call, and a page on it. */
async function pausedRunPage(runId: string, options: NestedPauseOptions) {
  const fixture = nestedPauseExecutors(options);
  await lastValueFrom(fixture.executor.stream({ input: "Refund me" }, { runId }));
  server = await startUiServer({ store: fixture.store, source: "memory", port: 0, executor: fixture.executor });
  const page = await browser().newPage();
  page.setDefaultTimeout(10_000); // a missing element fails its step, within the test's time
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${server.url}${runPagePath(runId)}`);
  await page.waitForSelector('[role="treeitem"]');
  return { ...fixture, page, errors };
}

const shownRunId = (page: Page) => page.locator("h1.title code").textContent();
const answerOf = (page: Page) => page.locator('[data-id="answer"] .note').textContent();

describe.skipIf(skip)("a pause inside another agent's call, on agentrx ui", () => {
  it("names the handoff that asked, links to its run (an id with ':', '/', '?', '%', '#' and a space), which links back; approved, the calling run finishes", async () => {
    const runId = "case #1/a?b%c:d";
    const { page, errors, store, refunded } = await pausedRunPage(runId, { sharedStore: true });
    const subRunId = (await store.listRuns({})).map((run) => run.runId).find((id) => id.startsWith("handoff:")) ?? "";
    expect(subRunId).toBe(`handoff:${runId}:0:call_0_0`);

    const row = page.getByRole("group", { name: "Waiting for approval: refund, asked by transfer_to_billing" });
    expect(await row.getAttribute("data-interrupt")).toBe(NESTED_ID);
    expect(await row.locator("code").first().textContent()).toBe('refund({"amount":10})');
    expect(await row.locator('[data-field="asked-by"]').textContent()).toBe(`asked by transfer_to_billing (run ${subRunId})`);
    const link = row.getByRole("link", { name: subRunId });
    expect(await link.getAttribute("href")).toBe(`/runs/${encodeURIComponent(subRunId)}`);

    // Followed, the link opens billing's run: paused on its own call, answered on the calling run.
    await link.click();
    await page.waitForURL((url) => url.pathname === runPagePath(subRunId));
    await page.waitForSelector('[role="treeitem"]');
    expect(await shownRunId(page)).toBe(subRunId);
    expect(await page.locator("[data-status]").textContent()).toBe("interrupted");
    expect(await page.locator('[data-field="paused-in"]').textContent()).toBe(
      `Another agent's run, paused inside a call of run ${runId}: approve, reject or edit its calls there (resuming that run resumes this one, with its own agent).`,
    );
    expect(await page.locator("[data-interrupt]").count()).toBe(0);
    await page.getByRole("link", { name: runId, exact: true }).click();
    await page.waitForURL((url) => url.pathname === runPagePath(runId));
    await page.waitForSelector('[role="treeitem"]');
    expect(await shownRunId(page)).toBe(runId);

    await page.click(`[data-interrupt="${NESTED_ID}"] [data-action="approve"]`);
    await page.waitForSelector('[data-status="finished"]', { timeout: 15_000 });
    expect(await answerOf(page)).toContain("Billing: refunded 10");
    expect(await page.locator("[data-interrupt]").count()).toBe(0);
    expect(refunded).toEqual([10]);
    expect((await store.getRun(subRunId))?.status).toBe("finished");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("names the asTool call that asked and its run, not a link when the other agent records its runs elsewhere; an edit there runs", async () => {
    const runId = "ask-billing";
    const { page, errors, billingStore, refunded } = await pausedRunPage(runId, { via: "asTool" });
    const subRunId = (await billingStore.listRuns({}))[0]?.runId ?? "";
    expect(subRunId).toBe(`as-tool:${runId}:0:call_0_0`);
    const row = page.locator(`[data-interrupt="${NESTED_ID}"]`);
    expect(await row.getAttribute("aria-label")).toBe("Waiting for approval: refund, asked by billing");
    expect(await row.locator('[data-field="asked-by"]').textContent()).toBe(`asked by billing (run ${subRunId}, recorded in that agent's store, not this one)`);
    expect(await row.locator("a").count()).toBe(0);

    await row.locator('[data-action="edit"]').click();
    await row.locator('[data-field="edit-args"]').fill('{ "amount": 5 }');
    await row.locator('[data-action="edit"]').click();
    await page.waitForSelector('[data-status="finished"]', { timeout: 15_000 });
    expect(await answerOf(page)).toContain("Caller: Billing: refunded 5");
    expect(refunded).toEqual([5]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
