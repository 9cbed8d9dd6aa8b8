// A pause inside a handoff or an asTool call (the other agent's call waits for approval, and the
// calling run pauses with it: `Interrupt.subRun`, docs/agent-types.md) on `agentrx ui`: the run page
// lists the other agent's call as a pending call, and a decision posted for it resumes the calling run.
import { lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { runApiPath, runPagePath } from "../trace-page/run-route";
import type { TraceActions } from "../trace-page/trace-data";
import { type NestedPauseOptions, nestedPauseExecutors } from "./nested-pause-fixtures";
import { startUiServer, type UiServer } from "./start-ui-server";

const NESTED_ID = "call-0-0/call-0-0";

let server: UiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `agentrx ui` over the caller's store, with a run paused on billing's call. */
async function pausedRun(runId: string, options: NestedPauseOptions = {}) {
  const fixture = nestedPauseExecutors(options);
  await lastValueFrom(fixture.executor.stream({ input: "Refund me" }, { runId }));
  server = await startUiServer({ store: fixture.store, source: "memory", port: 0, executor: fixture.executor });
  const url = server.url;
  const page = async () => await (await fetch(`${url}${runPagePath(runId)}`)).text();
  const token = /"actions":\{"token":"([^"]+)"/.exec(await page())?.[1] as string;
  const pending = async () => JSON.parse(/"pending":(\[.*?\])/.exec(await page())?.[1] ?? "[]") as unknown[];
  const actionsOf = async (id: string) => {
    const html = await (await fetch(`${url}${runPagePath(id)}`)).text();
    return (JSON.parse(/<script type="application\/json" id="agentrx-data">(.*?)<\/script>/s.exec(html)?.[1] ?? "{}") as { actions?: TraceActions }).actions;
  };
  const decide = async (body: unknown, id = runId) => {
    const response = await fetch(`${url}${runApiPath(id)}/actions`, { method: "POST", headers: { "content-type": "application/json", "x-agentrx-token": token }, body: JSON.stringify(body) });
    return { status: response.status, ...((await response.json()) as { error?: string }) };
  };
  const ended = async () => {
    await expect.poll(async () => (await fixture.store.getRun(runId))?.status).not.toBe("running");
    await expect.poll(async () => (await fixture.store.getRun(runId))?.status).not.toBe("queued");
    // Resumed once finished, the run gives its recorded answer (nothing runs again).
    const events = await lastValueFrom(fixture.executor.resume(runId).pipe(toArray()));
    const output = events.find((event) => event.type === "output" && event.subRun === undefined);
    return { status: (await fixture.store.getRun(runId))?.status, output: output?.type === "output" ? output.output : undefined };
  };
  return { ...fixture, pending, actionsOf, decide, ended };
}

describe("agentrx ui: a pause inside a handoff", () => {
  it("lists the other agent's call among the pending calls; approved there, the calling run resumes and the call runs once", async () => {
    const { pending, decide, ended, refunded } = await pausedRun("nested-approve");
    expect(await pending()).toEqual([{ id: NESTED_ID, tool: "refund", toolInput: { amount: 10 }, reason: "approval", subRun: { tool: "transfer_to_billing", runId: expect.stringMatching(/^handoff:nested-approve:0:/), interruptId: "call-0-0", inStore: false } }]);
    expect(await decide({ action: "approve", interruptId: NESTED_ID })).toEqual({ status: 202, runId: "nested-approve" });
    expect(await ended()).toEqual({ status: "finished", output: "Billing: refunded 10" });
    expect(refunded).toEqual([10]);
  });

  it("says whether the ui's store holds the other agent's run (its page can be linked to), for a handoff and an asTool call", async () => {
    const shared = await pausedRun("nested-shared", { sharedStore: true });
    const [call] = (await shared.pending()) as { subRun: { runId: string } }[];
    expect(call).toMatchObject({ id: NESTED_ID, tool: "refund", subRun: { tool: "transfer_to_billing", interruptId: "call-0-0", inStore: true } });
    expect((await shared.store.getRun(call?.subRun.runId ?? ""))?.status).toBe("interrupted");
    await server?.close();

    const asTool = await pausedRun("nested-as-tool", { via: "asTool", sharedStore: true });
    expect(await asTool.pending()).toEqual([{ id: NESTED_ID, tool: "refund", toolInput: { amount: 10 }, reason: "approval", subRun: { tool: "billing", runId: expect.stringMatching(/^as-tool:nested-as-tool:0:/), interruptId: "call-0-0", inStore: true } }]);
    expect(await asTool.decide({ action: "approve", interruptId: NESTED_ID })).toMatchObject({ status: 202 });
    expect(await asTool.ended()).toEqual({ status: "finished", output: "Caller: Billing: refunded 10" });
    expect(asTool.refunded).toEqual([10]);
  });

  it("the other agent's run in the ui's store is answered on its calling run (whose id has ':' in it): its page says which, a decision posted on it is a 409", async () => {
    const { pending, actionsOf, decide, ended, refunded, store } = await pausedRun("case:7/a b", { sharedStore: true });
    const [call] = (await pending()) as { subRun: { runId: string } }[];
    const subRunId = call?.subRun.runId ?? "";
    expect(subRunId).toMatch(/^handoff:case:7\/a b:0:/);
    expect(await actionsOf(subRunId)).toMatchObject({ pending: [], pausedIn: "case:7/a b" });
    expect(await decide({ action: "approve", interruptId: "call-0-0" }, subRunId)).toEqual({
      status: 409,
      error: `run ${subRunId} is another agent's run, paused inside a call of run case:7/a b, which waits on it: answer its calls on run case:7/a b (resuming that run resumes this one, with its own agent)`,
    });
    expect((await store.getRun(subRunId))?.status).toBe("interrupted");
    expect(refunded).toEqual([]);
    // Answered on the calling run, it runs with billing's agent; its page then offers nothing to decide.
    expect(await decide({ action: "approve", interruptId: NESTED_ID })).toMatchObject({ status: 202 });
    expect(await ended()).toEqual({ status: "finished", output: "Billing: refunded 10" });
    expect(refunded).toEqual([10]);
    expect(await actionsOf(subRunId)).toMatchObject({ pending: [] });
    expect((await actionsOf(subRunId))?.pausedIn).toBeUndefined();
  });

  it("takes a rejection and an edit of the other agent's call (its tool is not the caller's)", async () => {
    const rejecting = await pausedRun("nested-reject");
    expect(await rejecting.decide({ action: "reject", interruptId: NESTED_ID, message: "Not over the phone." })).toMatchObject({ status: 202 });
    expect(await rejecting.ended()).toEqual({ status: "finished", output: "Billing: Not over the phone." });
    expect(rejecting.refunded).toEqual([]);
    await server?.close();

    const editing = await pausedRun("nested-edit");
    expect(await editing.decide({ action: "edit", interruptId: NESTED_ID, toolInput: { amount: 5 } })).toMatchObject({ status: 202 });
    expect(await editing.ended()).toEqual({ status: "finished", output: "Billing: refunded 5" });
    expect(editing.refunded).toEqual([5]);
  });

  it("a decision for an earlier pause of the other agent's call is a 409 naming the call it waits on now", async () => {
    const { pending, decide, refunded } = await pausedRun("nested-again", { askAgain: true });
    expect(await decide({ action: "approve", interruptId: NESTED_ID })).toMatchObject({ status: 202 });
    await expect.poll(async () => (await pending()).map((call) => (call as { id: string }).id)).toEqual(["call-0-0/call-1-0"]);
    const stale = await decide({ action: "approve", interruptId: NESTED_ID });
    expect(stale).toEqual({ status: 409, error: `run nested-again paused again: "${NESTED_ID}" answers an earlier pause, which is over; it waits on call-0-0/call-1-0 (refund) now: answer that pause` });
    expect(refunded).toEqual([10]);
  });
});
