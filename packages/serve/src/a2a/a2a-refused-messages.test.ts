import { ClientFactory } from "@a2a-js/sdk/client";
import { createA2AHandler } from "@agentrx/serve";
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { messageRequest, quickExecutor } from "../test-helpers/a2a-messages";

// A message whose task is refused before any run starts (the handler's `toInputs` refuses it), and
// a request the SDK would misread (a `taskId` that is not a string, a text part whose text is not).

afterEach(() => {
  vi.restoreAllMocks();
  return closeLoopback();
});

const card = { name: "Talker", description: "Talks." };

/** A v0.3 `message/send` (or `message/stream`) of `message` (its fields as given). */
const v03 = (message: Record<string, unknown>, method = "message/send") =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", ...message } } });

const post = async (url: string, body: string) => (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })).json() as Promise<{ result?: { status: { state: string; message?: { parts: { text?: string }[] } } }; error?: { code: number; message: string } }>;

/** The `contexts` the handler's executor keeps (task id to context id, for tasks not over). */
const contextsOf = (handler: ReturnType<typeof createA2AHandler>) => (handler.agentExecutor as unknown as { contexts: Map<string, string> }).contexts;

describe("createA2AHandler, a message its toInputs refuses", () => {
  it.each([
    ["the default toInputs, a whitespace-only message", undefined, "InvalidArgumentError: The message has no text for the run to answer."],
    ["a toInputs that throws", () => {
      throw new TypeError("no profile for this user");
    }, "TypeError: no profile for this user"],
    ["a toInputs that returns no object", () => 42, "InvalidArgumentError: createA2AHandler: `toInputs` must return the run's inputs"],
  ])("with %s: the task fails as a failed run's does (`Name: message`), nothing is logged, and nothing of the task is kept", async (_name, toInputs, says) => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const handler = createA2AHandler(quickExecutor, { agentCard: card, ...(toInputs ? { toInputs: toInputs as never } : {}) });
    const url = await startLoopback(handler);
    for (let index = 0; index < 5; index++) {
      const answer = await post(url, v03({ parts: [{ kind: "text", text: "   " }] }));
      expect(answer.result?.status.state).toBe("failed");
      expect(answer.result?.status.message?.parts.map((part) => part.text).join("")).toMatch(new RegExp(`^${says.replace(/[.*+?^${}()|[\]\\`]/g, "\\$&")}`));
    }
    // Streamed, through the SDK's client: the task, then its failed status.
    const client = await new ClientFactory().createFromUrl(url);
    const states: number[] = [];
    let text = "";
    for await (const { payload } of client.sendMessageStream(messageRequest("   "))) {
      if (payload?.$case === "task") states.push(payload.value.status?.state ?? 0);
      if (payload?.$case === "statusUpdate") {
        states.push(payload.value.status?.state ?? 0);
        text = payload.value.status?.message?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("") ?? "";
      }
    }
    expect(states).toEqual([1, 4]); // submitted, failed
    expect(text.startsWith(says)).toBe(true);
    expect(logged).not.toHaveBeenCalled();
    expect(contextsOf(handler).size).toBe(0);
  });

  it("keeps nothing of 200 refused messages", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const handler = createA2AHandler(quickExecutor, { agentCard: card });
    const url = await startLoopback(handler);
    for (let index = 0; index < 200; index++) await post(url, v03({ parts: [{ kind: "text", text: " " }] }));
    expect(contextsOf(handler).size).toBe(0);
    // A message it takes is still served, and leaves nothing behind once its task completed.
    expect((await post(url, v03({ parts: [{ kind: "text", text: "hi" }] }))).result?.status.state).toBe("completed");
    expect(contextsOf(handler).size).toBe(0);
  });
});

describe("createA2AHandler, a message the SDK would misread", () => {
  it.each([
    ["a taskId that is a number", { taskId: 5, parts: [{ kind: "text", text: "hi" }] }, "message.taskId must be a string (a task's id), got 5."],
    ["a contextId that is an object", { contextId: { id: "c" }, parts: [{ kind: "text", text: "hi" }] }, 'message.contextId must be a string (a context\'s id), got {"id":"c"}.'],
    ["a text part whose text is a number", { parts: [{ kind: "text", text: "hi" }, { kind: "text", text: 5 }] }, "message.parts[1].text must be a string, got 5."],
  ])("answers %s with -32602 (invalid params) naming the field, sent or streamed, and starts no task", async (_name, message, says) => {
    const started: unknown[] = [];
    const recording = { ...quickExecutor, stream: (inputs: unknown, config: { runId: string }) => (started.push(inputs), quickExecutor.stream(inputs as never, config)) } as unknown as typeof quickExecutor;
    const url = await startLoopback(createA2AHandler(recording, { agentCard: card }));
    for (const method of ["message/send", "message/stream"]) {
      const answer = await post(url, v03(message, method));
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toContain(says);
    }
    expect(started).toEqual([]);
  });
});
