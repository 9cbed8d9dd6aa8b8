// The chat flows of the AI SDK's own client (`AbstractChat` of the `ai` package, what useChat wraps,
// with its DefaultChatTransport) against the route handlers of docs/serving.md: approvals and
// reconnection, read the way a browser's useChat reads them, without a browser.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { AbstractChat, type ChatState, type ChatStatus, DefaultChatTransport, type UIMessage, lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";
import { ReplaySubject } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { followRecordedRun } from "../runs/follow-recorded-run";
import { toUIMessageStreamResponse } from "./to-ui-message-stream-response";
import { uiApprovalDecisions, type UIMessageLike } from "./ui-approval-decisions";

/** useChat's state, kept in a plain array (React keeps it in a hook). */
class ArrayChatState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined;
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (message: UIMessage) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage) => void (this.messages[index] = message);
  snapshot = <T>(value: T): T => structuredClone(value);
}

class Chat extends AbstractChat<UIMessage> {
  get messages(): UIMessage[] {
    return this.state.messages;
  }
}

/**
 * A chat server as docs/serving.md has it: POST starts a run (or resumes the one the approvals
 * answer), GET `<chatId>/stream` follows the chat's running run from its record. `a` and `b` need
 * approval; `a` waits for `gate` (when given) once approved.
 */
function chatServer(responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"], gate?: { started: () => void; release: Promise<void> }) {
  const a = tool(
    async ({ x }) => {
      gate?.started();
      await gate?.release;
      return `a:${x}`;
    },
    { name: "a", description: "a", schema: z.object({ x: z.string() }) },
  );
  const b = tool(async ({ x }) => `b:${x}`, { name: "b", description: "b", schema: z.object({ x: z.string() }) });
  const tools = [withApproval(a), withApproval(b)];
  const llm = new ScriptedChatModel({ streaming: true, responses });
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const store = new MemoryRunStore();
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, store });
  const latestRun = new Map<string, string>();
  const requests: string[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (init?.method === "GET") {
      const chatId = decodeURIComponent(String(url).split("/").at(-2) ?? "");
      const runId = latestRun.get(chatId);
      requests.push("GET");
      if (runId === undefined || (await store.getRun(runId))?.status !== "running") return new Response(null, { status: 204 });
      return toUIMessageStreamResponse(followRecordedRun(store, runId));
    }
    const { id, messages } = JSON.parse(String(init?.body)) as { id: string; messages: UIMessageLike[] };
    const approvals = uiApprovalDecisions(messages);
    requests.push(approvals ? `POST resume ${JSON.stringify(approvals.decisions)}` : "POST");
    if (approvals && approvals.runId !== latestRun.get(id)) return new Response("That run is not this chat's.", { status: 409 });
    const runId = approvals?.runId ?? crypto.randomUUID();
    latestRun.set(id, runId);
    const input = messages.at(-1)?.parts.map((part) => part.text ?? "").join("") ?? "";
    const run$ = approvals ? executor.resume(runId, { decisions: approvals.decisions }) : executor.stream({ input }, { runId, threadId: id });
    const events = new ReplaySubject<AgentStreamEvent>(); // the run goes on if the page goes away
    run$.subscribe(events);
    return toUIMessageStreamResponse(events);
  };
  return { transport: () => new DefaultChatTransport({ fetch: fetch as typeof globalThis.fetch }), requests, latestRun };
}

const toolParts = (message: UIMessage | undefined) => (message?.parts ?? []).flatMap((part) => (part.type === "dynamic-tool" ? [part] : []));
const approvalIds = (message: UIMessage | undefined) => toolParts(message).flatMap((part) => (part.state === "approval-requested" ? [part.approval.id] : []));

describe("useChat's client against the documented route handlers", () => {
  it("two approvals asked in one turn: one approved, one rejected, then the chat sends once and the run ends", async () => {
    const server = chatServer([{ content: "Checking. ", toolCalls: [{ name: "a", args: { x: "1" } }, { name: "b", args: { x: "2" } }] }, "Done."]);
    const errors: Error[] = [];
    const chat = new Chat({ id: "two", state: new ArrayChatState(), transport: server.transport(), sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses, onError: (error) => errors.push(error) });
    await chat.sendMessage({ text: "go" });
    const [first, second] = approvalIds(chat.messages.at(-1));
    await chat.addToolApprovalResponse({ id: first as string, approved: true });
    await chat.addToolApprovalResponse({ id: second as string, approved: false, reason: "not b" });
    await expect.poll(() => chat.status === "ready" && chat.messages.at(-1)?.metadata).toMatchObject({ stopReason: "finish" });
    expect(errors).toEqual([]);
    expect(server.requests).toEqual(["POST", `POST resume ${JSON.stringify({ [first as string]: "approve", [second as string]: { type: "reject", message: "not b" } })}`]);
    expect(chat.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(toolParts(chat.messages.at(-1)).map((part) => [part.toolName, part.state, part.output])).toEqual([
      ["a", "output-available", "a:1"],
      ["b", "output-denied", undefined],
    ]);
  });

  it("a page reloaded while the approved run still works reconnects to the same assistant message, not a second one", async () => {
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const server = chatServer([{ toolCalls: [{ name: "a", args: { x: "1" } }] }, "Done."], { started, release: new Promise((resolve) => (release = resolve)) });
    const chat = new Chat({ id: "reload", state: new ArrayChatState(), transport: server.transport() });
    await chat.sendMessage({ text: "go" });
    await chat.addToolApprovalResponse({ id: approvalIds(chat.messages.at(-1))[0] as string, approved: true });
    const saved = structuredClone(chat.messages); // what the app persisted of the chat when the approval was sent
    const sending = chat.sendMessage();
    await toolStarted;
    await chat.stop(); // the page goes away while the approved call runs
    await sending;

    const reloaded = new Chat({ id: "reload", state: new ArrayChatState(saved), transport: server.transport() });
    const reconnecting = reloaded.resumeStream();
    release();
    await reconnecting;
    expect(server.requests.at(-1)).toBe("GET");
    expect(reloaded.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(reloaded.messages[1]?.id).toBe(saved[1]?.id);
    expect(reloaded.messages[1]?.metadata).toMatchObject({ runId: server.latestRun.get("reload"), stopReason: "finish" });
    expect(toolParts(reloaded.messages[1]).map((part) => [part.toolName, part.state, part.output])).toEqual([["a", "output-available", "a:1"]]);
  });
});
