import { type Message, type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory } from "@a2a-js/sdk/client";
import { JsonRpcTransportError, RequestMalformedError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { DefaultRequestHandler, InMemoryTaskStore, UnauthenticatedUser, defaultServerCallContextBuilder } from "@a2a-js/sdk/server";
import { type AgentExecutor, type RunStore, runDisplaySource, runInboxId, sendRunMessage } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { createA2AHandler } from "@agentrx/serve";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { artifactText, messageRequest as request, userMessage } from "../test-helpers/a2a-messages";
import { gatedWorkTool, workExecutor, workTool } from "../test-helpers/work-executor";

afterEach(closeLoopback);

const card = { name: "Worker", description: "Works." };

const send = (client: Client, text: string, taskId?: string) => client.sendMessage(request(text, taskId)) as Promise<Task>;
/** A send's `configuration` for a reply at once (the task as it starts), not at its end. */
const immediately = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true };

async function serve(executor: AgentExecutor, taskStore?: InMemoryTaskStore): Promise<Client> {
  const origin = await startLoopback(createA2AHandler(executor, { agentCard: card, ...(taskStore ? { taskStore } : {}) }));
  return new ClientFactory().createFromUrl(origin);
}

/** An executor whose one `work` call needs approval, then answers "All done." */
const approvalExecutor = (store?: RunStore) => workExecutor(workTool(), [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, "All done."], { needsApproval: () => true, ...(store ? { store } : {}) });

/** The status the executor's store (its own, or the in-process one of approvals) records for run `runId`. */
const recordedStatus = async (executor: AgentExecutor, runId: string) => (await runDisplaySource(executor.resume(runId))?.store?.getRun(runId))?.status;

/** An executor that calls `work`, then answers with the last message it was given. */
const steerableExecutor = (work: StructuredToolInterface, store?: RunStore) =>
  workExecutor(work, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, (messages) => `Answered: ${messages.at(-1)?.text}`], store ? { store } : {});

/**
 * A working task, served over `store` (none: the run's queue in this process), whose run calls a
 * gated `work` and waits in it until `release()`, then answers "Got it.": `seen()` is the content
 * of the last message its model was then given.
 */
async function workingTask(store?: RunStore) {
  const { work, running, release } = gatedWorkTool();
  let seen: unknown;
  const executor = workExecutor(work, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, (messages) => ((seen = messages.at(-1)?.content), "Got it.")], store ? { store } : {});
  const client = await serve(executor);
  const taskId = ((await client.sendMessage({ ...request("Work, please."), configuration: immediately })) as Task).id;
  await running;
  return { client, taskId, release, seen: () => seen };
}

describe("createA2AHandler, cancelling a paused task, through @a2a-js/sdk's client", () => {
  it.each([
    ["a MemoryRunStore (its cancelRun)", () => new MemoryRunStore()],
    ["no store (the executor's in-process store of approvals)", () => undefined],
  ])("with %s, CancelTask of an input-required task cancels its run: recorded cancelled, it cannot be resumed, and a later message gets UnsupportedOperationError", async (_name, makeStore) => {
    const executor = approvalExecutor(makeStore());
    const client = await serve(executor);
    const paused = await send(client, "Work, please.");
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(await recordedStatus(executor, paused.id)).toBe("interrupted");

    const cancelled = await client.cancelTask({ tenant: "", id: paused.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await recordedStatus(executor, paused.id)).toBe("cancelled");
    // Nobody can answer the pause any more: not the executor itself...
    const interruptId = (paused.status?.message?.parts[1]?.content?.$case === "data" ? (paused.status.message.parts[1].content.value as { interrupts: { id: string }[] }).interrupts[0]?.id : undefined) ?? "";
    const resumed = await executor.resume(paused.id, { decisions: { [interruptId]: "approve" } }).then(
      () => "resumed",
      (error: unknown) => (error as Error).message,
    );
    expect(resumed).toBe(`AgentExecutor.resume: run "${paused.id}" is cancelled, not paused for approval: there is nothing to decide (a pause is decided once).`);
    // ...nor a message on the task: the protocol's error for a task in a terminal state.
    const again = await send(client, "approve", paused.id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(UnsupportedOperationError);
    expect(again).toMatchObject({ envelopeCode: -32004, message: expect.stringContaining(`Task ${paused.id} is in a terminal state`) });
    expect(await recordedStatus(executor, paused.id)).toBe("cancelled");
  });

  it("cancels the run of a task paused under another handler (a restarted server: the SDK has no event bus for the task), sharing the task store and the run store", async () => {
    const tasks = new InMemoryTaskStore();
    const runs = new MemoryRunStore();
    const before = await serve(approvalExecutor(runs), tasks);
    const paused = await send(before, "Work, please.");
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await closeLoopback();

    const after = await serve(approvalExecutor(runs), tasks);
    const cancelled = await after.cancelTask({ tenant: "", id: paused.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await runs.getRun(paused.id)).toMatchObject({ status: "cancelled", error: `Its A2A task ${paused.id} was cancelled.` });
  });

  it("leaves the task as it was, and says why, when its run cannot be cancelled", async () => {
    class FailingCancels extends MemoryRunStore {
      override async cancelRun(): Promise<boolean> {
        throw new Error("The run store is read-only.");
      }
    }
    const client = await serve(approvalExecutor(new FailingCancels()));
    const paused = await send(client, "Work, please.");
    const refused = await client.cancelTask({ tenant: "", id: paused.id, metadata: undefined }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ envelopeCode: -32603, message: `Task ${paused.id} was not cancelled: its run could not be cancelled (The run store is read-only.).` });
    expect((await client.getTask({ tenant: "", id: paused.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });

  it("ends a working task canceled, not failed, when another process cancels its run (store.cancelRun, agentrx ui's Cancel)", async () => {
    const store = new MemoryRunStore();
    const client = await serve(workExecutor(workTool({ slowMs: 5_000 }), [{ toolCalls: [{ name: "work", args: { name: "a" } }] }], { store, leaseMs: 300 }));
    const states: (number | undefined)[] = [];
    let taskId = "";
    for await (const event of client.sendMessageStream(request("Work, please."))) {
      if (event.payload?.$case === "task") {
        taskId = event.payload.value.id;
        setTimeout(() => void store.cancelRun(taskId, { reason: "Cancelled by an operator.", at: Date.now() }), 100);
      }
      if (event.payload?.$case === "statusUpdate") states.push(event.payload.value.status?.state);
    }
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    expect(states).not.toContain(TaskState.TASK_STATE_FAILED);
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await store.getRun(taskId)).toMatchObject({ status: "cancelled", error: "Cancelled by an operator." });
  });
});

describe("createA2AHandler, a message on a task whose run is going on, through @a2a-js/sdk's client", () => {
  it.each([
    ["a MemoryRunStore (the run's inbox)", () => new MemoryRunStore()],
    ["no store (the run's queue in this process)", () => undefined],
  ])("with %s, SendMessage sends it to the run (steering), answers with the working task, and the run's own stream goes on to the answer that took it", async (_name, makeStore) => {
    const { work, running, release } = gatedWorkTool();
    const store = makeStore();
    const client = await serve(steerableExecutor(work, store));
    const stream = client.sendMessageStream(request("Work, please."));
    const first = await stream.next();
    const taskId = first.value?.payload?.$case === "task" ? first.value.payload.value.id : "";
    const rest = (async () => {
      const updates: { state?: number; event?: unknown }[] = [];
      for await (const event of stream) {
        if (event.payload?.$case === "statusUpdate") updates.push({ state: event.payload.value.status?.state, event: (event.payload.value.metadata as { agentrx?: { event?: unknown } } | undefined)?.agentrx?.event });
      }
      return updates;
    })();
    await running;

    const reply = await send(client, "Also check Rome.", taskId);
    expect([reply.id, reply.status?.state]).toEqual([taskId, TaskState.TASK_STATE_WORKING]);
    release();
    const updates = await rest;
    expect(updates.filter((update) => update.event === "message")).toEqual([{ state: TaskState.TASK_STATE_WORKING, event: "message" }]);
    expect(updates.at(-1)?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const done = await client.getTask({ tenant: "", id: taskId });
    expect(artifactText(done)).toBe("Answered: Also check Rome.");
    if (store) expect((await store.readEvents(taskId)).filter((event) => event.type === "message")).toHaveLength(1);
  });

  it("SendStreamingMessage on a working task sends the message to the run and streams the task from then on, to its end", async () => {
    const { work, running, release } = gatedWorkTool();
    const client = await serve(steerableExecutor(work, new MemoryRunStore()));
    const first = client.sendMessage({ ...request("Work, please."), configuration: immediately }) as Promise<Task>;
    const taskId = (await first).id;
    await running;
    const kinds: string[] = [];
    const streamed = client.sendMessageStream(request("Also check Rome.", taskId));
    const head = await streamed.next();
    expect(head.value?.payload).toMatchObject({ $case: "task", value: { id: taskId, status: { state: TaskState.TASK_STATE_WORKING } } });
    release();
    for await (const event of streamed) kinds.push(event.payload?.$case === "statusUpdate" ? `status:${event.payload.value.status?.state}` : String(event.payload?.$case));
    expect(kinds.at(-1)).toBe(`status:${TaskState.TASK_STATE_COMPLETED}`);
    expect(artifactText(await client.getTask({ tenant: "", id: taskId }))).toBe("Answered: Also check Rome.");
  });

  it.each([
    ["a MemoryRunStore (the run's inbox)", () => new MemoryRunStore()],
    ["no store (the run's queue in this process)", () => undefined],
  ])("with %s, a message with files sends them to the run with its text, as content blocks the model sees", async (_name, makeStore) => {
    const { client, taskId, release, seen } = await workingTask(makeStore());
    const withFiles = userMessage("Look at these too.", taskId);
    const png = Buffer.from([137, 80, 78, 71]);
    const pdf = Buffer.from("%PDF-1.4");
    withFiles.parts.push(
      { content: { $case: "raw", value: png }, metadata: undefined, filename: "chart.png", mediaType: "image/png" },
      { content: { $case: "raw", value: pdf }, metadata: undefined, filename: "report.pdf", mediaType: "application/pdf" },
      { content: { $case: "url", value: "https://example.com/a.txt" }, metadata: undefined, filename: "a.txt", mediaType: "text/plain" },
    );
    const reply = (await client.sendMessage({ tenant: "", message: withFiles, configuration: undefined, metadata: undefined })) as Task;
    expect(reply.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    release();
    await expect.poll(async () => (await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(seen()).toEqual([
      { type: "text", text: "Look at these too.\nhttps://example.com/a.txt" },
      { type: "image", mimeType: "image/png", data: "iVBORw==", metadata: { filename: "chart.png" } },
      { type: "file", mimeType: "application/pdf", data: "JVBERi0xLjQ=", metadata: { filename: "report.pdf" } },
    ]);
  });

  it("sends a message with only a file to the run (it has no text, but has content)", async () => {
    const { client, taskId, release, seen } = await workingTask(new MemoryRunStore());
    const fileOnly = userMessage("", taskId);
    fileOnly.parts = [{ content: { $case: "raw", value: Buffer.from([1, 2, 3]) }, metadata: undefined, filename: "", mediaType: "" }];
    const streamed = client.sendMessageStream({ tenant: "", message: fileOnly, configuration: undefined, metadata: undefined });
    expect((await streamed.next()).value?.payload).toMatchObject({ $case: "task", value: { id: taskId, status: { state: TaskState.TASK_STATE_WORKING } } });
    release();
    for await (const _event of streamed) {
      // to the task's end
    }
    expect(seen()).toEqual([{ type: "file", mimeType: "application/octet-stream", data: "AQID" }]);
  });

  it("answers a message to a run whose inbox is full as 'retry later' (HTTP 429, Retry-After, JSON-RPC -32029), and one too long as malformed", async () => {
    const store = new MemoryRunStore();
    const { work, running, release } = gatedWorkTool();
    const origin = await startLoopback(createA2AHandler(steerableExecutor(work, store), { agentCard: card }));
    const client = await new ClientFactory().createFromUrl(origin);
    const taskId = ((await client.sendMessage({ ...request("Work, please."), configuration: immediately })) as Task).id;
    await running;
    // The run takes nothing while its tool waits: 100 messages (the default limit) fill its inbox.
    for (let i = 0; i < 100; i++) await sendRunMessage(taskId, `note ${i}`, { store, operation: "test" });
    const full = await send(client, "Also check Rome.", taskId).catch((error: unknown) => error);
    expect(full).toBeInstanceOf(JsonRpcTransportError);
    expect(full).toMatchObject({
      envelopeCode: -32029,
      message: `Task ${taskId} is working: 100 messages sent to its run wait to join it, the most it holds (maxPendingMessages 100). Nothing was sent: send the message again once the run has taken them (at its next turn).`,
    });
    // The HTTP answer says so to any client: 429 with Retry-After, for a plain and a streaming request.
    for (const method of ["message/send", "message/stream"]) {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", taskId, parts: [{ kind: "text", text: "Also check Rome." }] } } });
      const answer = await fetch(origin, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect([answer.status, answer.headers.get("retry-after")]).toEqual([429, "1"]);
      expect(await answer.json()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32029 } });
    }
    // A message over maxMessageChars is the message's fault, whatever the inbox holds.
    const long = await send(client, "x".repeat(100_001), taskId).catch((error: unknown) => error);
    expect(long).toBeInstanceOf(RequestMalformedError);
    expect(long).toMatchObject({ message: `Task ${taskId} is working: the message has 100001 characters of text; at most 100000 are accepted (\`maxMessageChars\`).` });
    release();
    await expect.poll(async () => (await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await store.readEvents(taskId)).filter((event) => event.type === "message")).toHaveLength(100);
  });

  it("answers a message the run cannot take with a JSON-RPC error naming why, and leaves the task as it was", async () => {
    const store = new MemoryRunStore();
    const executor = steerableExecutor(workTool(), store);
    // A run that finished while its task still reads working (its last update not saved yet).
    await executor.invoke({ input: "Work, please." }, { runId: "finished-run" });
    const tasks = new InMemoryTaskStore();
    const working = (id: string): Task => ({ id, contextId: "ctx", status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [], metadata: undefined });
    await tasks.save(working("finished-run"), defaultServerCallContextBuilder({ extensions: undefined, user: new UnauthenticatedUser(), headers: {} }));
    await tasks.save(working("unknown-run"), defaultServerCallContextBuilder({ extensions: undefined, user: new UnauthenticatedUser(), headers: {} }));
    const client = await serve(executor, tasks);

    const finished = await send(client, "Also check Rome.", "finished-run").catch((error: unknown) => error);
    expect(finished).toBeInstanceOf(UnsupportedOperationError);
    expect(finished).toMatchObject({ envelopeCode: -32004, message: "Task finished-run is ending: its run finished before the message could join it. Send the message without a taskId (a new task, in the same context)." });
    const unknown = await send(client, "Also check Rome.", "unknown-run").catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(UnsupportedOperationError);
    expect(unknown).toMatchObject({ envelopeCode: -32004, message: expect.stringMatching(/^Task unknown-run is working, but its run cannot be reached from this process to take the message: /) });
    const blank = await client.sendMessageStream(request("   ", "unknown-run")).next().catch((error: unknown) => error);
    expect(blank).toBeInstanceOf(RequestMalformedError);
    expect(blank).toMatchObject({ message: "Task unknown-run is working: a message to it is sent to its run (steering), and this one has no text and no file." });
    // A decision that comes after another answer resumed the run is refused, not read to the model as the user's words.
    const late = userMessage("", "unknown-run");
    late.parts = [{ content: { $case: "data", value: { decision: "approve" } }, metadata: undefined, filename: "", mediaType: "application/json" }] as Message["parts"];
    const decision = await client.sendMessage({ tenant: "", message: late, configuration: undefined, metadata: undefined }).catch((error: unknown) => error);
    expect(decision).toBeInstanceOf(UnsupportedOperationError);
    expect(decision).toMatchObject({ message: expect.stringMatching(/^Task unknown-run is working: it is not waiting for a decision \(another answer may have resumed its run\)/) });
    for (const id of ["finished-run", "unknown-run"]) expect((await client.getTask({ tenant: "", id })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
  });
});

describe("the handler's agentExecutor on a DefaultRequestHandler of the user's own", () => {
  const context = () => defaultServerCallContextBuilder({ extensions: undefined, user: new UnauthenticatedUser(), headers: {} });
  const ownHandler = (executor: AgentExecutor) => {
    const served = createA2AHandler(executor, { agentCard: card });
    return new DefaultRequestHandler(served.agentCard as never, new InMemoryTaskStore(), served.agentExecutor as never);
  };

  it("cancelling a paused task cancels its run", async () => {
    const store = new MemoryRunStore();
    const handler = ownHandler(approvalExecutor(store));
    const task = (await handler.sendMessage(request("Work, please."), context())) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect((await handler.cancelTask({ tenant: "", id: task.id, metadata: undefined }, context())).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await store.getRun(task.id))?.status).toBe("cancelled");
  });

  it("a message on a working task is sent to its run, and a blocking one gets the task at its end", async () => {
    const { work, running, release } = gatedWorkTool();
    const store = new MemoryRunStore();
    const handler = ownHandler(steerableExecutor(work, store));
    const taskId = ((await handler.sendMessage({ ...request("Work, please."), configuration: immediately }, context())) as Task).id;
    await running;
    const second = handler.sendMessage(request("Also check Rome.", taskId), context()) as Promise<Task>;
    // The message is in the run's inbox before the tool lets the run go on.
    await expect.poll(async () => (await store.readThreadMessages(runInboxId(taskId))).length).toBe(1);
    release();
    const answered = await second;
    expect([answered.id, answered.status?.state, artifactText(answered)]).toEqual([taskId, TaskState.TASK_STATE_COMPLETED, "Answered: Also check Rome."]);
  });
});
