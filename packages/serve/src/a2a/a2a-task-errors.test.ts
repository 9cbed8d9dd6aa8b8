import type { Task } from "@a2a-js/sdk";
import { type Client, ClientFactory } from "@a2a-js/sdk/client";
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { createA2AHandler } from "@agentrx/serve";
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { messageRequest, quickExecutor } from "../test-helpers/a2a-messages";

afterEach(closeLoopback);

async function serve(): Promise<{ origin: string; client: Client }> {
  const origin = await startLoopback(createA2AHandler(quickExecutor, { agentCard: { name: "Talker", description: "Talks." } }));
  return { origin, client: await new ClientFactory().createFromUrl(origin) };
}

/** Drains a stream of the SDK's client; rejects with its error. */
async function drain(events: AsyncGenerator<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of events) count++;
  return count;
}

const send = (client: Client, text: string, taskId?: string) => client.sendMessage(messageRequest(text, taskId));
const sendStream = (client: Client, text: string, taskId?: string) => drain(client.sendMessageStream(messageRequest(text, taskId)));

describe("createA2AHandler, requests about a task it cannot serve, through @a2a-js/sdk's client", () => {
  it("answers each request about an unknown task with TaskNotFoundError (-32001), streaming ones included", async () => {
    const { client } = await serve();
    const requests: [string, () => Promise<unknown>][] = [
      ["GetTask", () => client.getTask({ tenant: "", id: "no-such-task" })],
      ["CancelTask", () => client.cancelTask({ tenant: "", id: "no-such-task", metadata: undefined })],
      ["SendMessage", () => send(client, "hi", "no-such-task")],
      ["SendStreamingMessage", () => sendStream(client, "hi", "no-such-task")],
      ["SubscribeToTask", () => drain(client.resubscribeTask({ tenant: "", id: "no-such-task" }))],
    ];
    for (const [method, request] of requests) {
      const error = await request().then(() => undefined, (failure: unknown) => failure);
      expect([method, error instanceof TaskNotFoundError]).toEqual([method, true]);
      expect(error).toMatchObject({ envelopeCode: -32001, message: "Task not found: no-such-task" });
    }
  });

  it("refuses a completed task: CancelTask with TaskNotCancelableError (-32002); a message, sent or streamed, and a resubscription with UnsupportedOperationError (-32004)", async () => {
    const { client } = await serve();
    const done = (await send(client, "hi")) as Task;
    expect(done.status?.state).toBe(3); // TASK_STATE_COMPLETED
    const cancel = await client.cancelTask({ tenant: "", id: done.id, metadata: undefined }).then(() => undefined, (failure: unknown) => failure);
    expect(cancel instanceof TaskNotCancelableError).toBe(true);
    expect(cancel).toMatchObject({ envelopeCode: -32002, message: `Task not cancelable: ${done.id}` });
    const requests: [string, () => Promise<unknown>][] = [
      ["SendMessage", () => send(client, "again", done.id)],
      ["SendStreamingMessage", () => sendStream(client, "again", done.id)],
      ["SubscribeToTask", () => drain(client.resubscribeTask({ tenant: "", id: done.id }))],
    ];
    for (const [method, request] of requests) {
      const error = await request().then(() => undefined, (failure: unknown) => failure);
      expect([method, error instanceof UnsupportedOperationError]).toEqual([method, true]);
      expect(error).toMatchObject({ envelopeCode: -32004, message: expect.stringContaining(`Task ${done.id} is in a terminal state`) });
    }
    // The task is as it was.
    expect((await client.getTask({ tenant: "", id: done.id })).status?.state).toBe(3);
  });

  it("answers a streaming request refused before its stream with a plain JSON-RPC error (v1.0 and v0.3), and a v0.3 tasks/resubscribe as a stream, as the SDK's own server does", async () => {
    const { origin } = await serve();
    const post = (body: unknown, headers: Record<string, string> = {}) => fetch(origin, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    const v1 = await post({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: { message: { messageId: "m1", role: "ROLE_USER", taskId: "no-such-task", parts: [{ text: "hi" }] } } }, { "A2A-Version": "1.0" });
    expect([v1.status, v1.headers.get("content-type")]).toEqual([200, "application/json"]);
    expect(await v1.json()).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "Task not found: no-such-task" } });
    const v03 = await post({ jsonrpc: "2.0", id: 2, method: "message/stream", params: { message: { kind: "message", messageId: "m2", role: "user", taskId: "no-such-task", parts: [{ kind: "text", text: "hi" }] } } });
    expect([v03.status, v03.headers.get("content-type")]).toEqual([200, "application/json"]);
    expect(await v03.json()).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32001, message: "Task not found: no-such-task" } });
    const resubscribe = await post({ jsonrpc: "2.0", id: 3, method: "tasks/resubscribe", params: { id: "no-such-task" } });
    expect(resubscribe.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await resubscribe.text()).toBe(`event: error\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 3, error: { code: -32001, message: "Task not found: no-such-task" } })}\n\n`);
    // A stream that starts is a stream: the task, then its updates.
    const streamed = await post({ jsonrpc: "2.0", id: 4, method: "message/stream", params: { message: { kind: "message", messageId: "m4", role: "user", parts: [{ kind: "text", text: "hi" }] } } });
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = (await streamed.text()).split("\n\n").filter((frame) => frame.startsWith("data: "));
    expect(JSON.parse(frames[0]!.slice("data: ".length))).toMatchObject({ id: 4, result: { kind: "task" } });
    expect(JSON.parse(frames.at(-1)!.slice("data: ".length))).toMatchObject({ id: 4, result: { kind: "status-update", status: { state: "completed" } } });
  });
});
