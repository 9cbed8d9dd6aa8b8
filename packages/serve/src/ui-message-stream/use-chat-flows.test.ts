// The chat flows of the AI SDK's own client (`AbstractChat` of the `ai` package, what useChat wraps,
// with its DefaultChatTransport) against the route handlers of docs/serving.md: approvals and
// reconnection, read the way a browser's useChat reads them, without a browser.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, type RunStore, recordDecisions } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  type UIMessage,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  validateUIMessages,
} from "ai";
import { ReplaySubject } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { followRecordedRun } from "../runs/follow-recorded-run";
import { readUIMessage } from "../test-helpers/read-ui-message";
import { toUIMessageStreamResponse } from "./to-ui-message-stream-response";
import { type UIApprovalDecisions, uiApprovalDecisions, type UIMessageLike } from "./ui-approval-decisions";

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
 * A store whose `createRun` and `claimRun` wait while `held` is set: a run posted then is not yet
 * recorded (a slow database), so a reconnection comes before it is.
 */
class SlowStore extends MemoryRunStore {
  held: Promise<void> | undefined;
  override async createRun(...args: Parameters<MemoryRunStore["createRun"]>) {
    await this.held;
    return super.createRun(...args);
  }
  override async claimRun(...args: Parameters<MemoryRunStore["claimRun"]>) {
    await this.held;
    return super.claimRun(...args);
  }
}

/**
 * A chat server as docs/serving.md has it: POST records the run `queued` (a new one, or the one
 * the approvals answer, with them), then runs it; GET `<chatId>/stream` follows the chat's queued
 * or running run from its record, once it is recorded. `a` and `b` need approval; `a` waits for
 * `gate` (when given) once approved.
 */
function chatServer(responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"], gate?: { started: () => void; release: Promise<void> }, store: RunStore = new MemoryRunStore()) {
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
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, store });
  const latestRun = new Map<string, { runId: string; recorded: Promise<unknown> }>();
  const requests: string[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (init?.method === "GET") {
      const chatId = decodeURIComponent(String(url).split("/").at(-2) ?? "");
      requests.push("GET");
      const latest = latestRun.get(chatId);
      await latest?.recorded;
      const status = latest === undefined ? undefined : (await store.getRun(latest.runId))?.status;
      if (latest === undefined || (status !== "queued" && status !== "running")) return new Response(null, { status: 204 });
      return toUIMessageStreamResponse(followRecordedRun(store, latest.runId, { pollMs: 10 }));
    }
    let body: { id: string; messages: UIMessageLike[] };
    let approvals: UIApprovalDecisions | undefined;
    try {
      body = JSON.parse(String(init?.body)) as typeof body;
      approvals = uiApprovalDecisions(body.messages);
    } catch (error) {
      return new Response(`Bad request: ${(error as Error).message}`, { status: 400 });
    }
    const { id, messages } = body;
    requests.push(approvals ? `POST resume ${JSON.stringify(approvals.decisions)}` : "POST");
    if (approvals && approvals.runId !== latestRun.get(id)?.runId) return new Response("That run is not this chat's.", { status: 409 });
    const runId = approvals?.runId ?? crypto.randomUUID();
    const input = messages.at(-1)?.parts.map((part) => part.text ?? "").join("") ?? "";
    const recorded = approvals ? recordDecisions(store, runId, approvals.decisions, { tools }) : store.createRun({ runId, threadId: id, inputs: { input }, status: "queued", at: Date.now() });
    latestRun.set(id, { runId, recorded: recorded.catch(() => undefined) });
    try {
      await recorded;
    } catch (error) {
      return new Response(`Conflict: ${(error as Error).message}`, { status: 409 });
    }
    const earlierUsage = approvals ? (await store.getRun(runId))?.usage : undefined;
    const events = new ReplaySubject<AgentStreamEvent>(); // the run goes on if the page goes away
    executor.resume(runId).subscribe(events);
    return toUIMessageStreamResponse(events, { earlierUsage });
  };
  return { transport: () => new DefaultChatTransport({ fetch: fetch as typeof globalThis.fetch }), fetch, requests, latestRun, executor, store };
}

/** A response's message, read as useChat reads it (the `ai` package's parser, schema and reader), validated. */
async function messageOf(response: Response): Promise<UIMessage> {
  expect(response.status).toBe(200);
  return readUIMessage(response);
}

const post = (server: ReturnType<typeof chatServer>, body: unknown) => server.fetch("http://localhost/api/chat", { method: "POST", body: JSON.stringify(body) });
const reconnect = (server: ReturnType<typeof chatServer>, chatId: string) => server.fetch(`http://localhost/api/chat/${chatId}/stream`, { method: "GET" });

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
    expect(reloaded.messages[1]?.metadata).toMatchObject({ runId: server.latestRun.get("reload")?.runId, stopReason: "finish" });
    expect(toolParts(reloaded.messages[1]).map((part) => [part.toolName, part.state, part.output])).toEqual([["a", "output-available", "a:1"]]);
    // What the page keeps (and posts with its next question) is what the AI SDK's validateUIMessages accepts.
    await expect(validateUIMessages({ messages: reloaded.messages })).resolves.toHaveLength(2);
  });

  it("a reload while a rejected run still works replays a message validateUIMessages accepts: the call ends as an error with the rejection", async () => {
    const store = new SlowStore();
    const server = chatServer([{ toolCalls: [{ name: "b", args: { x: "2" } }] }, "Fine."], undefined, store);
    const chat = new Chat({ id: "rejected", state: new ArrayChatState(), transport: server.transport() });
    await chat.sendMessage({ text: "go" });
    await chat.addToolApprovalResponse({ id: approvalIds(chat.messages.at(-1))[0] as string, approved: false, reason: "not b" });
    let release!: () => void;
    store.held = new Promise((resolve) => (release = resolve));
    const saved = structuredClone(chat.messages);
    void chat.sendMessage(); // the answer is posted, and the page goes away before the run is recorded as going on
    await expect.poll(() => server.requests.at(-1)).toMatch(/^POST resume/);
    const reloaded = new Chat({ id: "rejected", state: new ArrayChatState(saved), transport: server.transport() });
    const reconnecting = reloaded.resumeStream();
    await expect.poll(() => server.requests.at(-1)).toBe("GET");
    release();
    await reconnecting;
    expect(reloaded.messages[1]?.metadata).toMatchObject({ stopReason: "finish" });
    expect(toolParts(reloaded.messages[1]).map((part) => [part.toolName, part.state, part.errorText])).toEqual([["b", "output-error", "not b"]]);
    await expect(validateUIMessages({ messages: reloaded.messages })).resolves.toHaveLength(2);
  });

  it("a reload right after the question was posted, before the run is recorded, follows it from the record", async () => {
    const store = new SlowStore();
    const server = chatServer([{ content: "Checking. ", toolCalls: [{ name: "b", args: { x: "2" } }] }, "Done."], undefined, store);
    let release!: () => void;
    store.held = new Promise((resolve) => (release = resolve));
    const posted = post(server, { id: "early", messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "go" }] }] });
    const reloaded = reconnect(server, "early"); // the database has not recorded the run yet
    release();
    const [live, replayed] = await Promise.all([posted.then(messageOf), reloaded.then(messageOf)]);
    expect(replayed.parts).toEqual(live.parts);
    expect(toolParts(replayed).map((part) => [part.toolName, part.state])).toEqual([["b", "approval-requested"]]);
  });

  it("a reload while the run is queued (its answers recorded, not yet taken up) follows it until it ends", async () => {
    const server = chatServer([{ toolCalls: [{ name: "b", args: { x: "2" } }] }, "Done."]);
    const paused = await messageOf(await post(server, { id: "queued", messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "go" }] }] }));
    const runId = server.latestRun.get("queued")?.runId as string;
    // Another process (an API in front of workers) recorded the answer; the run waits for a worker.
    await recordDecisions(server.store, runId, { [approvalIds(paused)[0] as string]: "approve" });
    const reloaded = await reconnect(server, "queued");
    expect(reloaded.status).toBe(200);
    server.executor.resume(runId).subscribe(); // the worker takes it up
    const message = await messageOf(reloaded);
    expect(toolParts(message).map((part) => [part.toolName, part.state, part.output])).toEqual([["b", "output-available", "b:2"]]);
    expect(message.metadata).toMatchObject({ runId, stopReason: "finish" });
  });

  it("answers 400 to a last message whose parts are not a list", async () => {
    const server = chatServer(["Done."]);
    const refused = await post(server, { id: "bad", messages: [{ id: "u1", role: "user", parts: "go" }] });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toBe("Bad request: uiApprovalDecisions: the last message's `parts` must be an array, got string.");
    expect(server.latestRun.get("bad")).toBeUndefined();
  });

  it("shows the whole run's usage while the approved run streams: it never drops below the paused run's", async () => {
    const server = chatServer([{ toolCalls: [{ name: "b", args: { x: "2" } }] }, "Done."]);
    const chat = new Chat({ id: "usage", state: new ArrayChatState(), transport: server.transport() });
    await chat.sendMessage({ text: "go" });
    const pausedUsage = (chat.messages.at(-1)?.metadata as { usage: { total_tokens: number } }).usage.total_tokens;
    const shown: number[] = [];
    const state = new ArrayChatState(chat.messages);
    state.replaceMessage = (index, message) => {
      shown.push((message.metadata as { usage: { total_tokens: number } }).usage.total_tokens);
      state.messages[index] = message;
    };
    const resumed = new Chat({ id: "usage", state, transport: server.transport() });
    await resumed.addToolApprovalResponse({ id: approvalIds(chat.messages.at(-1))[0] as string, approved: true });
    await resumed.sendMessage();
    const whole = (await server.store.getRun(server.latestRun.get("usage")?.runId as string))?.usage?.total_tokens;
    // The usage the page shows never drops below the paused run's while the answer streams.
    expect(shown.length).toBeGreaterThan(1);
    expect(Math.min(...shown)).toBeGreaterThanOrEqual(pausedUsage);
    expect(shown.at(-1)).toBe(whole);
  });
});
