// A pause inside a handoff (the other agent's call waits for approval, and the calling run pauses
// with it: `Interrupt.subRun`, docs/agent-types.md) on `agentrx ui`: the run page lists the other
// agent's call as a pending call, and a decision posted for it resumes the calling run.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, handoff } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startUiServer, type UiServer } from "./start-ui-server";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const NESTED_ID = "call-0-0/call-0-0";

/** A caller that hands off to billing at once; billing refunds 10 (with approval), then 20 (with approval) when `askAgain`, then answers. */
function handoffExecutors({ askAgain = false } = {}) {
  const refunded: number[] = [];
  const refund = withApproval(
    tool(
      async ({ amount }: { amount: number }) => {
        refunded.push(amount);
        return `refunded ${amount}`;
      },
      { name: "refund", description: "Refunds an amount.", schema: z.object({ amount: z.number() }) },
    ),
  );
  const billingModel = new ScriptedChatModel({
    responses: [
      { toolCalls: [{ name: "refund", args: { amount: 10 } }] },
      ...(askAgain ? [{ toolCalls: [{ name: "refund", args: { amount: 20 } }] }] : []),
      (messages) => `Billing: ${messages.filter((message) => message.getType() === "tool").map((message) => message.text).join("; ")}`,
    ],
  });
  const billing = new AgentExecutor({ agent: createToolCallingAgent({ llm: billingModel, tools: [refund], prompt }), tools: [refund], store: new MemoryRunStore() });
  const tools = [handoff(billing, { name: "transfer_to_billing", description: "Refunds." })];
  const store = new MemoryRunStore();
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "transfer_to_billing", args: {} }] }] }), tools, prompt }), tools, store });
  return { executor, store, refunded };
}

let server: UiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `agentrx ui` over the caller's store, with a run paused on billing's call. */
async function pausedRun(runId: string, options: { askAgain?: boolean } = {}) {
  const fixture = handoffExecutors(options);
  await lastValueFrom(fixture.executor.stream({ input: "Refund me" }, { runId }));
  server = await startUiServer({ store: fixture.store, source: "memory", port: 0, executor: fixture.executor });
  const url = server.url;
  const page = async () => await (await fetch(`${url}/runs/${runId}`)).text();
  const token = /"actions":\{"token":"([^"]+)"/.exec(await page())?.[1] as string;
  const pending = async () => JSON.parse(/"pending":(\[.*?\])/.exec(await page())?.[1] ?? "[]") as unknown[];
  const decide = async (body: unknown) => {
    const response = await fetch(`${url}/api/runs/${runId}/actions`, { method: "POST", headers: { "content-type": "application/json", "x-agentrx-token": token }, body: JSON.stringify(body) });
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
  return { ...fixture, pending, decide, ended };
}

describe("agentrx ui: a pause inside a handoff", () => {
  it("lists the other agent's call among the pending calls; approved there, the calling run resumes and the call runs once", async () => {
    const { pending, decide, ended, refunded } = await pausedRun("nested-approve");
    expect(await pending()).toEqual([{ id: NESTED_ID, tool: "refund", toolInput: { amount: 10 }, reason: "approval", subRun: { tool: "transfer_to_billing", runId: expect.stringMatching(/^handoff:nested-approve:0:/) } }]);
    expect(await decide({ action: "approve", interruptId: NESTED_ID })).toEqual({ status: 202, runId: "nested-approve" });
    expect(await ended()).toEqual({ status: "finished", output: "Billing: refunded 10" });
    expect(refunded).toEqual([10]);
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
