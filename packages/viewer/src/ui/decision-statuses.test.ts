// `agentrx ui`'s decisions are refused with the statuses of every route that takes decisions
// (docs/serving.md, "Answering a pause"): 404 for no such run, 409 for a pause that is over or an
// earlier pause of a run that paused again, 400 for an interrupt the run never had or an edit the
// tool's schema refuses; and a fork at an iteration the run cannot be forked at is a 400
// (docs/trace-viewer.md).
import type { AgentAction, AgentFinish, AgentInput } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startUiServer, type UiServer } from "./start-ui-server";

const store = new MemoryRunStore();
const remove = withApproval(tool(async ({ path }: { path: string }) => `removed ${path}`, { name: "delete_file", description: "Deletes a file.", schema: z.object({ path: z.string() }) }));
/** Deletes `/tmp/0`, then `/tmp/1` (each call paused for approval), then answers. */
const agent = RunnableLambda.from(async (input: AgentInput): Promise<AgentAction[] | AgentFinish> => {
  const n = input.steps.length;
  if (n < 2) return [{ tool: "delete_file", toolInput: { path: `/tmp/${n}` }, log: "", toolCallId: `call_${n}`, messageLog: [] } as unknown as AgentAction];
  return { returnValues: { output: "Deleted." }, log: "" };
});
const executor = new AgentExecutor({ agent, tools: [remove], store });
let server: UiServer;
let token: string;

beforeAll(async () => {
  server = await startUiServer({ store, source: "memory", port: 0, executor });
  await lastValueFrom(executor.stream({ input: "delete" }, { runId: "first-pause" }));
  const html = await (await fetch(`${server.url}/runs/first-pause`)).text();
  token = /"actions":\{"token":"([^"]+)"/.exec(html)?.[1] as string;
});

afterAll(async () => {
  await server?.close();
});

async function decide(runId: string, body: unknown): Promise<{ status: number; error?: string }> {
  const response = await fetch(`${server.url}/api/runs/${runId}/actions`, { method: "POST", headers: { "content-type": "application/json", "x-agentrx-token": token }, body: JSON.stringify(body) });
  return { status: response.status, ...((await response.json()) as { error?: string }) };
}

/** The interrupt id of the call run `runId` waits on now. */
async function waitingOn(runId: string): Promise<string> {
  const html = await (await fetch(`${server.url}/runs/${runId}`)).text();
  return /"pending":\[\{"id":"([^"]+)"/.exec(html)?.[1] as string;
}

describe("a decision agentrx ui refuses", () => {
  it("for a run the store does not have is a 404", async () => {
    expect(await decide("no-such-run", { action: "approve", interruptId: "call-0-0" })).toMatchObject({ status: 404 });
  });

  it("for an interrupt id the run never had is a 400 naming the call it waits on", async () => {
    const refused = await decide("first-pause", { action: "approve", interruptId: "call-9-0" });
    expect(refused.status).toBe(400);
    expect(refused.error).toMatch(/^run first-pause never paused on interrupt id "call-9-0"; it waits on [\w-]+ \(delete_file\)$/);
    expect((await store.getRun("first-pause"))?.status).toBe("interrupted");
  });

  it("for an edit the tool's schema refuses is a 400 saying why; the run stays paused", async () => {
    const refused = await decide("first-pause", { action: "edit", interruptId: await waitingOn("first-pause"), toolInput: { path: 42 } });
    expect(refused.status).toBe(400);
    expect(refused.error).toMatch(/does not fit the tool's schema: path: /);
    expect((await store.getRun("first-pause"))?.status).toBe("interrupted");
  });

  it("for an earlier pause of a run that paused again is a 409 naming the pause it waits on now", async () => {
    const first = await waitingOn("first-pause");
    expect(await decide("first-pause", { action: "approve", interruptId: first })).toMatchObject({ status: 202 });
    await expect.poll(async () => (await waitingOn("first-pause")) !== first && (await store.getRun("first-pause"))?.status).toBe("interrupted");
    const second = await waitingOn("first-pause");
    const stale = await decide("first-pause", { action: "approve", interruptId: first });
    expect(stale.status).toBe(409);
    expect(stale.error).toBe(`run first-pause paused again: ${JSON.stringify(first)} answers an earlier pause, which is over; it waits on ${second} (delete_file) now: answer that pause`);

    expect(await decide("first-pause", { action: "approve", interruptId: second })).toMatchObject({ status: 202 });
    await expect.poll(async () => (await store.getRun("first-pause"))?.status).toBe("finished");
    // A pause answered already: the run is not paused any more.
    const over = await decide("first-pause", { action: "reject", interruptId: second });
    expect(over.status).toBe(409);
    expect(over.error).toBe("run first-pause is finished, not paused: there is nothing to decide (a pause is answered once)");
  });

  it("a fork at an iteration the run has no turn boundary at is a 400", async () => {
    const refused = await decide("first-pause", { action: "fork", at: 99 });
    expect(refused.status).toBe(400);
    expect(refused.error).toMatch(/has no complete turn boundary at iteration 99/);
  });

  it("with a body that is not a decision is a 400", async () => {
    expect(await decide("first-pause", { action: "edit", interruptId: "call-0-0" })).toMatchObject({ status: 400, error: "`edit` needs `toolInput`, the call's new arguments" });
  });

  it("with a body larger than any decision can be is a 413 saying so, answered (not a reset connection); the run stays paused", async () => {
    await lastValueFrom(executor.stream({ input: "delete" }, { runId: "too-large" }));
    const refused = await decide("too-large", { action: "reject", interruptId: await waitingOn("too-large"), message: "m".repeat(7_000_000) });
    expect(refused).toEqual({ status: 413, error: "the body is over 6356992 bytes: a decision carries at most 1,000,000 characters" });
    expect((await store.getRun("too-large"))?.status).toBe("interrupted");
  });
});

describe("a decision agentrx ui takes", () => {
  it("carries up to the 1,000,000 characters a decision may have: a rejection with a 500,000-character reason", async () => {
    await lastValueFrom(executor.stream({ input: "delete" }, { runId: "long-reason" }));
    const reason = "Not that one. ".repeat(36_000).slice(0, 500_000);
    expect(await decide("long-reason", { action: "reject", interruptId: await waitingOn("long-reason"), message: reason })).toEqual({ status: 202, runId: "long-reason" });
    await expect.poll(async () => (await store.readEvents("long-reason")).some((event) => event.type === "step" && JSON.stringify(event.data).includes(reason)), { timeout: 5_000 }).toBe(true);
  });
});
