// A pause inside a handoff (the other agent's call waits for approval, and the calling run pauses
// with it: `Interrupt.subRun`) through createAGUIHandler, driven by @ag-ui/client's HttpAgent.
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { recordingAgent } from "../test-helpers/ag-ui-recording-agent";
import { NESTED_ID, handoffExecutors } from "../test-helpers/handoff-executor";
import { createAGUIHandler } from "./create-ag-ui-handler";

afterEach(closeLoopback);

/** The handler on a loopback server, and an AG-UI client whose every event is validated by @ag-ui/core's schemas. */
async function nestedAgent(threadId: string, options: { askAgain?: boolean } = {}) {
  const fixture = handoffExecutors({ billingCallId: "call_billing", ...options });
  const url = `${await startLoopback(createAGUIHandler(fixture.executor))}/agent`;
  const { agent, events, subscriber } = recordingAgent(url, threadId);
  agent.messages = [{ id: "u1", role: "user", content: "Refund me" }];
  return { ...fixture, url, agent, events, subscriber };
}

type Finished = { type: string; outcome?: { type: string; interrupts: { id: string; toolCallId?: string; metadata?: Record<string, unknown> }[] } };

describe("createAGUIHandler: a pause inside a handoff", () => {
  it("lists the other agent's call in the paused state and the interrupt outcome, tied to the handoff's tool call; a resume entry for it finishes the run", async () => {
    const { agent, events, subscriber, refunded, store } = await nestedAgent("thread-nested");
    await agent.runAgent({ runId: "nested-1" }, subscriber);
    const subRun = { tool: "transfer_to_billing", runId: expect.stringMatching(/^handoff:nested-1:0:/), interruptId: "call-0-0" };
    expect(agent.state).toEqual({ agentrx: { runId: "nested-1", status: "interrupted", interrupts: [{ id: NESTED_ID, tool: "refund", toolInput: { amount: 10 }, toolCallId: "call_0_0", subRun }] } });
    // The only tool call the client has is the handoff's, waiting: the interrupt names it.
    expect(events.filter((event) => event.type === "TOOL_CALL_START")).toMatchObject([{ toolCallId: "call_0_0", toolCallName: "transfer_to_billing" }]);
    expect((events.at(-1) as Finished).outcome).toEqual({
      type: "interrupt",
      interrupts: [{ id: NESTED_ID, reason: "approval", message: 'Approve the call of refund with {"amount":10}?', toolCallId: "call_0_0", metadata: { tool: "refund", toolInput: { amount: 10 }, subRun } }],
    });
    expect(refunded).toEqual([]);

    events.length = 0;
    const resumed = await agent.runAgent({ runId: "nested-1b", resume: [{ interruptId: NESTED_ID, status: "resolved", payload: { approved: true } }] }, subscriber);
    expect(resumed.result).toBe("Billing: refunded 10");
    expect(refunded).toEqual([10]);
    expect(events.filter((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject([{ toolCallId: "call_0_0", content: "Billing: refunded 10" }]);
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", runId: "nested-1b", outcome: { type: "success" } });
    expect((await store.getRun("nested-1"))?.status).toBe("finished");
  });

  it("takes a reject and an edit of the other agent's call (its tool is not the caller's)", async () => {
    for (const [payload, expected, amounts] of [
      [{ approved: false, reason: "No refunds over the phone." }, "Billing: No refunds over the phone.", []],
      [{ type: "edit", toolInput: { amount: 5 } }, "Billing: refunded 5", [5]],
    ] as const) {
      const { agent, subscriber, refunded } = await nestedAgent("thread-nested-2");
      await agent.runAgent({ runId: "nested-2" }, subscriber);
      const resumed = await agent.runAgent({ runId: "nested-2b", resume: [{ interruptId: NESTED_ID, status: "resolved", payload }] }, subscriber);
      expect(resumed.result).toBe(expected);
      expect(refunded).toEqual(amounts);
      await closeLoopback();
    }
  });

  it("answers 409 naming the pause the run waits on now to a resume entry for an earlier pause of the other agent's call", async () => {
    const { url, agent, subscriber, refunded } = await nestedAgent("thread-nested-3", { askAgain: true });
    await agent.runAgent({ runId: "nested-3" }, subscriber);
    await agent.runAgent({ runId: "nested-3b", resume: [{ interruptId: NESTED_ID, status: "resolved", payload: { approved: true } }] }, subscriber);
    expect(agent.state).toMatchObject({ agentrx: { runId: "nested-3", interrupts: [{ id: "call-0-0/call-1-0", tool: "refund", toolInput: { amount: 20 } }] } });
    const body = { threadId: "thread-nested-3", runId: "nested-3c", messages: [], state: { agentrx: { runId: "nested-3" } }, resume: [{ interruptId: NESTED_ID, status: "resolved", payload: { approved: true } }] };
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect([response.status, await response.text()]).toEqual([409, `Run "nested-3" paused again: "${NESTED_ID}" answers an earlier pause, which is over. It waits on call-0-0/call-1-0 (refund) now: answer that pause.\n`]);
    expect(refunded).toEqual([10]);
  });
});
