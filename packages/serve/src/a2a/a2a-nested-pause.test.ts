// A pause inside a handoff (the other agent's call waits for approval, and the calling run pauses
// with it: `Interrupt.subRun`) through createA2AHandler, driven by the A2A SDK's client.
import { createServer } from "node:http";
import { type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { createA2AHandler } from "@agentrx/serve";
import { afterEach, describe, expect, it } from "vitest";
import { artifactText, dataMessage, messageRequest } from "../test-helpers/a2a-messages";
import { NESTED_ID, handoffExecutors } from "../test-helpers/handoff-executor";
import { closeServers, listenOnLoopback } from "../test-helpers/http-servers";

afterEach(closeServers);

async function serveNested(options: { askAgain?: boolean } = {}) {
  const fixture = handoffExecutors(options);
  const origin = await listenOnLoopback(createServer(createA2AHandler(fixture.executor, { agentCard: { name: "Triage", description: "Hands refunds to billing." } })));
  const client = await new ClientFactory().createFromUrl(origin);
  const send = (text: string, taskId?: string) => client.sendMessage(messageRequest(text, taskId)) as Promise<Task>;
  const decide = (value: unknown, taskId: string) => client.sendMessage({ tenant: "", message: dataMessage(value, taskId), configuration: undefined, metadata: undefined }) as Promise<Task>;
  return { ...fixture, send, decide };
}

const partsOf = (task: Task) => task.status?.message?.parts.map((part) => part.content) ?? [];

describe("createA2AHandler: a pause inside a handoff", () => {
  it("asks for input with the other agent's call; a data part deciding it resumes the task, and the call runs once", async () => {
    const { send, decide, refunded, store } = await serveNested();
    const paused = await send("Refund me");
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partsOf(paused)).toEqual([
      { $case: "text", value: expect.stringContaining('Approval needed for refund({"amount":10})') },
      { $case: "data", value: { interrupts: [expect.objectContaining({ id: NESTED_ID, tool: "refund", toolInput: { amount: 10 }, subRun: expect.objectContaining({ tool: "transfer_to_billing", interruptId: "call-0-0" }) })] } },
    ]);
    const done = await decide({ decisions: { [NESTED_ID]: "approve" } }, paused.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(done)).toBe("Billing: refunded 10");
    expect(refunded).toEqual([10]);
    expect((await store.getRun(paused.id))?.status).toBe("finished");
  });

  it("takes a text rejection and a data edit of the other agent's call (its tool is not the caller's)", async () => {
    const rejecting = await serveNested();
    const rejected = await rejecting.send("reject: not over the phone", (await rejecting.send("Refund me")).id);
    expect([rejected.status?.state, artifactText(rejected), rejecting.refunded]).toEqual([TaskState.TASK_STATE_COMPLETED, "Billing: not over the phone", []]);

    const editing = await serveNested();
    const edited = await editing.decide({ decisions: { [NESTED_ID]: { type: "edit", toolInput: { amount: 5 } } } }, (await editing.send("Refund me")).id);
    expect([edited.status?.state, artifactText(edited), editing.refunded]).toEqual([TaskState.TASK_STATE_COMPLETED, "Billing: refunded 5", [5]]);
  });

  it("a decision for an earlier pause leaves the task waiting on the newer one, saying so", async () => {
    const { send, decide, refunded } = await serveNested({ askAgain: true });
    const paused = await send("Refund me");
    const again = await decide({ decisions: { [NESTED_ID]: "approve" } }, paused.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partsOf(again)[1]).toEqual({ $case: "data", value: { interrupts: [expect.objectContaining({ id: "call-0-0/call-1-0", toolInput: { amount: 20 } })] } });
    const late = await decide({ decisions: { [NESTED_ID]: "approve" } }, paused.id);
    expect(late.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partsOf(late)[0]).toEqual({ $case: "text", value: expect.stringContaining(`no interrupt "${NESTED_ID}" waiting`) });
    expect(refunded).toEqual([10]);
    const done = await send("approve", paused.id);
    expect([done.status?.state, artifactText(done), refunded]).toEqual([TaskState.TASK_STATE_COMPLETED, "Billing: refunded 10; refunded 20", [10, 20]]);
  });
});
