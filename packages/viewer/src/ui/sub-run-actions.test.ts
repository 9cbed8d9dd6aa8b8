// Another agent's run (one a `handoff` or an `asTool` call started, `handoff:...`, `as-tool:...`)
// on `agentrx ui`: the server's executor is its calling run's agent, not the one that ran it, so
// the page neither forks nor resumes it (a 409 naming its calling run), nor a fork made of it.
import { lastValueFrom } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { runApiPath, runPagePath } from "../trace-page/run-route";
import type { TraceActions } from "../trace-page/trace-data";
import { nestedPauseExecutors } from "./nested-pause-fixtures";
import { startUiServer, type UiServer } from "./start-ui-server";

let server: UiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `agentrx ui` over one store that holds run `runId` (paused on billing's call) and billing's run. */
async function sharedStoreRuns(runId: string) {
  const fixture = nestedPauseExecutors({ sharedStore: true });
  await lastValueFrom(fixture.executor.stream({ input: "Refund me" }, { runId }));
  const subRunId = `handoff:${runId}:0:call_0_0`;
  expect((await fixture.store.getRun(subRunId))?.status).toBe("interrupted");
  server = await startUiServer({ store: fixture.store, source: "memory", port: 0, executor: fixture.executor });
  const url = server.url;
  const actionsOf = async (id: string) => {
    const html = await (await fetch(`${url}${runPagePath(id)}`)).text();
    return (JSON.parse(/<script type="application\/json" id="agentrx-data">(.*?)<\/script>/s.exec(html)?.[1] ?? "{}") as { actions?: TraceActions }).actions;
  };
  const token = (await actionsOf(runId))?.token ?? "";
  const act = async (id: string, body: unknown) => {
    const response = await fetch(`${url}${runApiPath(id)}/actions`, { method: "POST", headers: { "content-type": "application/json", "x-agentrx-token": token }, body: JSON.stringify(body) });
    return { status: response.status, ...((await response.json()) as { error?: string }) };
  };
  const runIds = async () => (await fixture.store.listRuns({})).map((run) => run.runId).sort();
  return { ...fixture, subRunId, actionsOf, act, runIds };
}

describe("agentrx ui: another agent's run", () => {
  it("is not forked with the server's executor (its calling run's agent): no Fork on its page, a fork posted is a 409 naming its calling run", async () => {
    const { subRunId, actionsOf, act, runIds, store } = await sharedStoreRuns("sub-fork");
    const before = await runIds();
    expect(await actionsOf(subRunId)).toMatchObject({ fork: false, resume: false });
    expect(await act(subRunId, { action: "fork" })).toEqual({
      status: 409,
      error: `run ${subRunId} is another agent's run, started by a handoff or asTool call of run sub-fork: this server's executor is not that agent, so it cannot fork it; fork run sub-fork instead (its fork calls that agent anew)`,
    });
    expect(await act(subRunId, { action: "fork", at: 0 })).toMatchObject({ status: 409 });
    expect(await runIds()).toEqual(before);
    expect((await store.getRun(subRunId))?.status).toBe("interrupted");
    // Its calling run forks as before.
    expect(await actionsOf("sub-fork")).toMatchObject({ fork: true });
  });

  it("is not resumed with the server's executor once cancelled with its calling run: a 409 naming that run", async () => {
    const { subRunId, actionsOf, act, store, refunded } = await sharedStoreRuns("sub-resume");
    expect(await act("sub-resume", { action: "cancel" })).toEqual({ status: 200, runId: "sub-resume" });
    expect(await store.getRun(subRunId)).toMatchObject({ status: "cancelled", error: 'Its calling run "sub-resume" was cancelled: The run was cancelled from agentrx ui.' });
    expect(await actionsOf(subRunId)).toMatchObject({ resume: false, fork: false, cancel: false });
    expect(await act(subRunId, { action: "resume" })).toEqual({
      status: 409,
      error: `run ${subRunId} is another agent's run, started by a handoff or asTool call of run sub-resume: this server's executor is not that agent, so it cannot resume it; resume run sub-resume instead (resuming it resumes this one, with its own agent)`,
    });
    expect((await store.getRun(subRunId))?.status).toBe("cancelled");
    expect(refunded).toEqual([]);
    // The calling run is still offered its resume.
    expect(await actionsOf("sub-resume")).toMatchObject({ resume: true });
  });

  it("nor is a fork of it made in code with its own executor (the fork's source is another agent's run)", async () => {
    const { subRunId, billing, store, actionsOf, act } = await sharedStoreRuns("sub-of-fork");
    await lastValueFrom(billing.fork(subRunId, { runId: "billing-fork", at: 0 }));
    expect((await store.getRun("billing-fork"))?.forkOf).toEqual({ runId: subRunId, iteration: 0 });
    expect(await actionsOf("billing-fork")).toMatchObject({ fork: false, resume: false });
    expect(await act("billing-fork", { action: "fork" })).toEqual({
      status: 409,
      error: `run billing-fork is a fork of another agent's run (${subRunId}), started by a handoff or asTool call of run sub-of-fork: this server's executor is not that agent, so it cannot fork it; fork run sub-of-fork instead (its fork calls that agent anew)`,
    });
  });
});
