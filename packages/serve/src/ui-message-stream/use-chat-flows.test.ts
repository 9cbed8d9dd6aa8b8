// The chat flows of the AI SDK's own client (`AbstractChat` of the `ai` package, what useChat wraps,
// with its DefaultChatTransport) against the route handlers of docs/serving.md: approvals and
// reconnection, read the way a browser's useChat reads them, without a browser.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore, recordDecisions } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { DefaultChatTransport, type UIMessage, lastAssistantMessageIsCompleteWithApprovalResponses, validateUIMessages } from "ai";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ArrayChatState, Chat } from "../test-helpers/array-chat";
import { chatRoute } from "../test-helpers/chat-route";
import { readUIMessage } from "../test-helpers/read-ui-message";
import { uiApprovalDecisions, type UIMessageLike } from "./ui-approval-decisions";

/**
 * A store whose `createRun` and `claimRun` wait while `held` is set: a run posted then is not yet
 * recorded (a slow database), so a reconnection comes before it is.
 */
class SlowStore extends MemoryRunStore {
  held: Promise<void> | undefined;
  /** How many `createRun` calls came. */
  creating = 0;
  override async createRun(...args: Parameters<MemoryRunStore["createRun"]>) {
    this.creating++;
    await this.held;
    return super.createRun(...args);
  }
  override async claimRun(...args: Parameters<MemoryRunStore["claimRun"]>) {
    await this.held;
    return super.claimRun(...args);
  }
}

/**
 * The chat route of docs/serving.md (`chatRoute`): POST records the run `queued` (a new one, or
 * the one the approvals answer, with them), then runs it; GET `<chatId>/stream` follows the chat's
 * queued or running run from its record, once it is recorded. `a` and `b` need approval; `a` waits
 * for `gate` (when given) once approved. `requests` logs what the chat was sent.
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
  const route = chatRoute(executor, { store, tools });
  const requests: string[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (init?.method === "GET") {
      requests.push("GET");
      return route.GET(new Request(new URL(String(url), "http://localhost")), { params: { id: decodeURIComponent(String(url).split("/").at(-2) ?? "") } });
    }
    const approvals = (() => {
      try {
        return uiApprovalDecisions((JSON.parse(String(init?.body)) as { messages: UIMessageLike[] }).messages);
      } catch {
        return undefined; // the route answers 400
      }
    })();
    requests.push(approvals ? `POST resume ${JSON.stringify(approvals.decisions)}` : "POST");
    return route.POST(new Request(new URL(String(url), "http://localhost"), { method: "POST", body: init?.body ?? null }));
  };
  return { transport: () => new DefaultChatTransport({ fetch: fetch as typeof globalThis.fetch }), fetch, requests, executor, store };
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
    expect(reloaded.messages[1]?.metadata).toMatchObject({ runId: (saved[1]?.metadata as { runId: string }).runId, stopReason: "finish" });
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
    await expect.poll(() => store.creating).toBe(1); // the route has read the request and is recording its run
    const reloaded = reconnect(server, "early"); // the database has not recorded the run yet
    release();
    const [live, replayed] = await Promise.all([posted.then(messageOf), reloaded.then(messageOf)]);
    expect(replayed.parts).toEqual(live.parts);
    expect(toolParts(replayed).map((part) => [part.toolName, part.state])).toEqual([["b", "approval-requested"]]);
  });

  it("a reload while the run is queued (its answers recorded, not yet taken up) follows it until it ends", async () => {
    const server = chatServer([{ toolCalls: [{ name: "b", args: { x: "2" } }] }, "Done."]);
    const paused = await messageOf(await post(server, { id: "queued", messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "go" }] }] }));
    const runId = (paused.metadata as { runId: string }).runId;
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
    expect(await server.store.listRuns()).toEqual([]); // nothing was recorded
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
    const whole = (await server.store.getRun((chat.messages.at(-1)?.metadata as { runId: string }).runId))?.usage?.total_tokens;
    // The usage the page shows never drops below the paused run's while the answer streams.
    expect(shown.length).toBeGreaterThan(1);
    expect(Math.min(...shown)).toBeGreaterThanOrEqual(pausedUsage);
    expect(shown.at(-1)).toBe(whole);
  });
});

describe("the documented route's answers to requests it cannot take", () => {
  /** A chat paused for `b`'s approval: the posted question, the paused message, and the answer useChat posts for it. */
  async function pausedChat(server: ReturnType<typeof chatServer>, chatId: string) {
    const user = { id: "u1", role: "user", parts: [{ type: "text", text: "go" }] };
    const paused = await messageOf(await post(server, { id: chatId, messages: [user] }));
    const answer = (approvalId: string) => ({ ...paused, parts: paused.parts.map((part) => (part.type === "dynamic-tool" ? { ...part, state: "approval-responded", approval: { id: approvalId, approved: true } } : part)) });
    return { user, paused, answer, approvalId: approvalIds(paused)[0] as string };
  }

  it("answers 409 to an answer of a pause answered already, and to two answers of one pause at the same moment but the first", async () => {
    const server = chatServer([{ toolCalls: [{ name: "b", args: { x: "2" } }] }, "Done."]);
    const { user, answer, approvalId } = await pausedChat(server, "twice");
    const [one, two] = await Promise.all([post(server, { id: "twice", messages: [user, answer(approvalId)] }), post(server, { id: "twice", messages: [user, answer(approvalId)] })]);
    expect([one.status, two.status].sort()).toEqual([200, 409]);
    expect(await (one.status === 409 ? one : two).text()).toMatch(/^Conflict: .*not paused for approval/);
    await (one.status === 200 ? one : two).text(); // the run ends
    const again = await post(server, { id: "twice", messages: [user, answer(approvalId)] });
    expect(again.status).toBe(409);
    expect(await again.text()).toMatch(/^Conflict: recordDecisions: run ".*" is (queued|running|finished), not paused for approval/);
  });

  it("answers 400, not 409, to an answer the pause does not wait for (an approval id it never asked), and the run stays paused", async () => {
    const server = chatServer([{ toolCalls: [{ name: "b", args: { x: "2" } }] }, "Done."]);
    const { user, answer, paused } = await pausedChat(server, "unknown");
    const refused = await post(server, { id: "unknown", messages: [user, answer("call-9-9")] });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/^Bad request: recordDecisions: run ".*" has no interrupt "call-9-9" waiting for a decision/);
    expect((await server.store.getRun((paused.metadata as { runId: string }).runId))?.status).toBe("interrupted");
  });

  it("answers 409 naming the pause the run waits on now to an answer of an earlier pause, after the run paused again", async () => {
    const server = chatServer([{ toolCalls: [{ name: "b", args: { x: "1" } }] }, { toolCalls: [{ name: "b", args: { x: "2" } }] }, "Done."]);
    const { user, answer, approvalId, paused } = await pausedChat(server, "again");
    const runId = (paused.metadata as { runId: string }).runId;
    const resumed = await post(server, { id: "again", messages: [user, answer(approvalId)] });
    expect(resumed.status).toBe(200);
    // The resumed stream asks for the second approval (it continues the paused message).
    const newer = [...(await resumed.text()).matchAll(/"type":"tool-approval-request"[^}]*"approvalId":"([^"]+)"/g)].map((match) => match[1]);
    expect(newer).toHaveLength(1);
    expect(newer[0]).not.toBe(approvalId);
    const stale = await post(server, { id: "again", messages: [user, answer(approvalId)] });
    expect([stale.status, await stale.text()]).toEqual([409, `Conflict: Run "${runId}" paused again: "${approvalId}" answers an earlier pause, which is over. It waits on ${newer[0]} (b) now: answer that pause.`]);
    expect((await server.store.getRun(runId))?.status).toBe("interrupted");
  });

  it("answers 500, not 409, when the store fails to record the answer: the server's error, not the request's", async () => {
    const store = new SlowStore();
    const server = chatServer([{ toolCalls: [{ name: "b", args: { x: "2" } }] }, "Done."], undefined, store);
    const { user, answer, approvalId } = await pausedChat(server, "down");
    store.claimRun = () => Promise.reject(new Error("connection refused"));
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const failed = await post(server, { id: "down", messages: [user, answer(approvalId)] });
      expect(failed.status).toBe(500);
      expect(await failed.text()).toBe("The request could not be recorded; try again.");
      expect(errors).toHaveBeenCalledOnce();
    } finally {
      errors.mockRestore();
    }
  });

  it("answers 400 to a body that is not JSON or has no chat id, and 409 to answers for a run that is not the chat's", async () => {
    const server = chatServer([{ toolCalls: [{ name: "b", args: { x: "2" } }] }, "Done."]);
    const notJson = await server.fetch("http://localhost/api/chat", { method: "POST", body: "{" });
    expect(notJson.status).toBe(400);
    const noId = await post(server, { messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "go" }] }] });
    expect([noId.status, await noId.text()]).toEqual([400, "Bad request: `id` must be the chat's id, a non-empty string."]);
    const { user, answer, approvalId } = await pausedChat(server, "mine");
    const other = await post(server, { id: "other", messages: [user, answer(approvalId)] });
    expect(other.status).toBe(409);
    expect(await server.store.listRuns()).toHaveLength(1);
  });
});
