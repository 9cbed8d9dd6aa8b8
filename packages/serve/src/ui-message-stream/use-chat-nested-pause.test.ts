// A pause inside a handoff (the other agent's call waits for approval, and the calling run pauses
// with it: `Interrupt.subRun`) through the UI message stream and the documented useChat route:
// the other agent's call is a part of its own with an approval request, answered like any other.
import { recordDecisions } from "@agentrx/executors";
import { replayRun } from "@agentrx/runs";
import { DefaultChatTransport, type UIMessage, lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";
import { describe, expect, it } from "vitest";
import { followRecordedRun } from "../runs/follow-recorded-run";
import { ArrayChatState, Chat } from "../test-helpers/array-chat";
import { chatRoute } from "../test-helpers/chat-route";
import { NESTED_ID, handoffExecutors } from "../test-helpers/handoff-executor";
import { readUIMessage } from "../test-helpers/read-ui-message";
import { toUIMessageStreamResponse } from "./to-ui-message-stream-response";

/** The handoff executors behind the chat route of docs/serving.md, and a chat on useChat's client that sends answers once all are given. */
function chatOnRoute(id: string) {
  const fixture = handoffExecutors();
  const route = chatRoute(fixture.executor, { store: fixture.store, tools: fixture.tools });
  const posted: string[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    posted.push(String(init?.body));
    return route.POST(new Request(new URL(String(url), "http://localhost"), { method: "POST", body: init?.body ?? null }));
  };
  const errors: Error[] = [];
  const transport = new DefaultChatTransport({ fetch: fetch as typeof globalThis.fetch });
  const chat = new Chat({ id, state: new ArrayChatState(), transport, sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses, onError: (error) => errors.push(error) });
  return { ...fixture, chat, posted, errors };
}

const toolParts = (message: UIMessage | undefined) => (message?.parts ?? []).flatMap((part) => (part.type === "dynamic-tool" ? [part] : []));
/** `message` with its approval requests answered yes, as useChat's `addToolApprovalResponse` leaves it. */
const approved = (message: UIMessage): UIMessage => ({
  ...message,
  parts: message.parts.map((part) => (part.type === "dynamic-tool" && part.state === "approval-requested" ? { ...part, state: "approval-responded", approval: { ...part.approval, approved: true } } : part)),
});
const textOf = (message: UIMessage | undefined) => (message?.parts ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");

describe("a pause inside a handoff, on useChat", () => {
  it("shows the other agent's call as a part asking for approval; approved, the chat sends the answer, the call runs once and the answer streams", async () => {
    const { chat, posted, errors, refunded, store } = chatOnRoute("nested-approve");
    await chat.sendMessage({ text: "Refund me" });
    const paused = chat.messages.at(-1);
    expect(toolParts(paused).map((part) => [part.toolName, part.toolCallId, part.state, part.input, "approval" in part ? part.approval : undefined])).toEqual([
      ["transfer_to_billing", "call_0_0", "input-available", {}, undefined],
      ["refund", NESTED_ID, "approval-requested", { amount: 10 }, { id: NESTED_ID }],
    ]);
    // The waiting handoff's part is in the step before: useChat's check of the last step sends once the approval is answered.
    expect(paused?.parts.map((part) => part.type)).toEqual(["step-start", "text", "dynamic-tool", "step-start", "dynamic-tool"]);
    await chat.addToolApprovalResponse({ id: NESTED_ID, approved: true });
    await expect.poll(() => chat.status === "ready" && chat.messages.at(-1)?.metadata).toMatchObject({ stopReason: "return_direct" });
    expect(errors).toEqual([]);
    expect(posted).toHaveLength(2);
    expect(refunded).toEqual([10]);
    const done = chat.messages.at(-1);
    expect(chat.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(toolParts(done).map((part) => [part.toolName, part.state, part.output])).toEqual([
      ["transfer_to_billing", "output-available", "Billing: refunded 10"],
      ["refund", "output-available", "refunded 10"],
    ]);
    expect(textOf(done)).toBe("Handing over. Billing: refunded 10");
    expect((await store.getRun((done?.metadata as { runId: string }).runId))?.status).toBe("finished");
  });

  it("rejected, the part shows the call denied and the other agent's tool never runs", async () => {
    const { chat, errors, refunded } = chatOnRoute("nested-reject");
    await chat.sendMessage({ text: "Refund me" });
    await chat.addToolApprovalResponse({ id: NESTED_ID, approved: false, reason: "No refunds over the phone." });
    await expect.poll(() => chat.status === "ready" && chat.messages.at(-1)?.metadata).toMatchObject({ stopReason: "return_direct" });
    expect(errors).toEqual([]);
    expect(refunded).toEqual([]);
    expect(toolParts(chat.messages.at(-1)).map((part) => [part.toolName, part.state])).toEqual([
      ["transfer_to_billing", "output-available"],
      ["refund", "output-denied"],
    ]);
    expect(textOf(chat.messages.at(-1))).toBe("Handing over. Billing: No refunds over the phone.");
  });

  it("an edit recorded with the caller's tools (as the route records answers) is not refused for naming the other agent's tool, and runs with the edited input", async () => {
    const { executor, store, tools, refunded } = handoffExecutors();
    const paused = await readUIMessage(toUIMessageStreamResponse(executor.stream({ input: "Refund me" }, { runId: "nested-edit" })));
    await recordDecisions(store, "nested-edit", { [NESTED_ID]: { type: "edit", toolInput: { amount: 5 } } }, { tools });
    const resumed = await readUIMessage(toUIMessageStreamResponse(executor.resume("nested-edit")), approved(paused));
    expect(refunded).toEqual([5]);
    expect(toolParts(resumed).find((part) => part.toolName === "refund")).toMatchObject({ state: "output-available", output: "refunded 5" });
    expect(textOf(resumed)).toBe("Handing over. Billing: refunded 5");
  });

  it("a replayed record (paused, then approved) is one valid message: the other agent's call answered, not asked again", async () => {
    const { executor, store } = handoffExecutors();
    const paused = await readUIMessage(toUIMessageStreamResponse(executor.stream({ input: "Refund me" }, { runId: "nested-replay" })));
    expect(await readUIMessage(toUIMessageStreamResponse(followRecordedRun(store, "nested-replay")))).toEqual(paused);
    await readUIMessage(toUIMessageStreamResponse(executor.resume("nested-replay", { decisions: { [NESTED_ID]: "approve" } })), approved(paused));
    for (const replayed of [await readUIMessage(toUIMessageStreamResponse(followRecordedRun(store, "nested-replay"))), await readUIMessage(toUIMessageStreamResponse(replayRun(store, "nested-replay")))]) {
      expect(toolParts(replayed).map((part) => [part.toolName, part.state, part.output, "approval" in part ? part.approval : undefined])).toEqual([
        ["transfer_to_billing", "output-available", "Billing: refunded 10", undefined],
        ["refund", "output-available", "refunded 10", undefined],
      ]);
      expect(textOf(replayed)).toBe("Handing over. Billing: refunded 10");
    }
  });
});

describe("a pause inside a handoff that pauses again, on the documented route", () => {
  it("answers the first call's part when the other agent asks again, and 409 to a late answer of the earlier pause", async () => {
    const fixture = handoffExecutors({ askAgain: true });
    const route = chatRoute(fixture.executor, { store: fixture.store, tools: fixture.tools });
    const post = (messages: UIMessage[]) => route.POST(new Request("http://localhost/api/chat", { method: "POST", body: JSON.stringify({ id: "again", messages }) }));
    const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Refund me" }] };
    const paused = await readUIMessage(await post([user]));
    const answer = approved(paused);
    const again = await readUIMessage(await post([user, answer]), structuredClone(answer));
    expect(toolParts(again).map((part) => [part.toolName, part.toolCallId, part.state, "output" in part ? part.output : undefined])).toEqual([
      ["transfer_to_billing", "call_0_0", "input-available", undefined],
      ["refund", NESTED_ID, "output-available", "refunded 10"],
      ["refund", "call-0-0/call-1-0", "approval-requested", undefined],
    ]);
    expect(fixture.refunded).toEqual([10]);
    const runId = (paused.metadata as { runId: string }).runId;
    const late = await post([user, answer]);
    expect([late.status, await late.text()]).toEqual([409, `Conflict: Run "${runId}" paused again: "${NESTED_ID}" answers an earlier pause, which is over. It waits on call-0-0/call-1-0 (refund) now: answer that pause.`]);
    const done = await readUIMessage(await post([user, approved(again)]), structuredClone(approved(again)));
    expect(toolParts(done).map((part) => [part.toolName, part.state])).toEqual([
      ["transfer_to_billing", "output-available"],
      ["refund", "output-available"],
      ["refund", "output-available"],
    ]);
    expect(textOf(done)).toBe("Handing over. Billing: refunded 10; refunded 20");
    expect(fixture.refunded).toEqual([10, 20]);
  });
});
