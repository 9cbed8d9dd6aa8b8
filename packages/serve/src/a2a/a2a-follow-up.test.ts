import type { Message, Task } from "@a2a-js/sdk";
import { type Client, ClientFactory } from "@a2a-js/sdk/client";
import { runInboxId } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { createA2AHandler } from "@agentrx/serve";
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { messageRequest } from "../test-helpers/a2a-messages";
import { gatedWorkTool, workExecutor } from "../test-helpers/work-executor";

// A new task in a context whose run is going on, when the executor's `followUp` is "interrupt":
// the task joins that run (docs/serving-a2a.md, "A new task in a busy context").

afterEach(closeLoopback);

const card = { name: "Worker", description: "Works." };
const immediately = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true };

/** `runId` of a metadata's `agentrx`, if any. */
const runIdIn = (metadata: Record<string, unknown> | undefined) => (metadata?.["agentrx"] as { runId?: string } | undefined)?.runId;

/** A task A working in its run (its `work` call waits until `release()`), served with followUp "interrupt". */
async function busyContext() {
  const store = new MemoryRunStore();
  const { work, running, release } = gatedWorkTool();
  const executor = workExecutor(work, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, (messages) => `Answered after ${messages.at(-1)?.text}`], { store, followUp: "interrupt" });
  const client: Client = await new ClientFactory().createFromUrl(await startLoopback(createA2AHandler(executor, { agentCard: card })));
  const first = (await client.sendMessage({ ...messageRequest("Work, please."), configuration: immediately })) as Task;
  await running;
  /** A message in A's context (a new task). */
  const followUp = (text: string): Message => ({ ...messageRequest(text).message!, contextId: first.contextId });
  return { store, client, first, release, followUp };
}

describe('createA2AHandler, a new task in a context whose run is going on (followUp: "interrupt")', () => {
  it("joins the running run: its metadata names that run everywhere, its answer is that run's, and no run is recorded under its id", async () => {
    const { store, client, first, release, followUp } = await busyContext();
    const events = client.sendMessageStream({ ...messageRequest(""), message: followUp("Also check Rome.") });
    const opening = (await events.next()).value?.payload;
    expect(opening?.$case).toBe("task");
    const second = opening?.$case === "task" ? opening.value : undefined;
    expect(second?.id).not.toBe(first.id);
    // The opening task names no run of its own: it has none.
    expect(runIdIn(second?.metadata)).not.toBe(second?.id);
    await expect.poll(async () => (await store.readThreadMessages(runInboxId(first.id))).length).toBe(1);
    release();
    const runIds: (string | undefined)[] = [];
    let joined: unknown;
    let answer: string | undefined;
    for await (const { payload } of events) {
      if (payload?.$case === "task") runIds.push(runIdIn(payload.value.metadata));
      if (payload?.$case !== "statusUpdate") continue;
      const agentrx = payload.value.metadata?.["agentrx"] as { runId?: string; joined?: boolean } | undefined;
      if (agentrx?.runId !== undefined) runIds.push(agentrx.runId);
      if (agentrx?.joined === true) joined = agentrx;
      if (payload.value.status?.state === 3) answer = payload.value.status.message?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
    }
    expect(joined).toEqual({ runId: first.id, joined: true });
    expect(new Set(runIds)).toEqual(new Set([first.id]));
    expect(answer).toBe("Answered after Also check Rome.");
    const read = await client.getTask({ tenant: "", id: second!.id });
    expect(read.status?.state).toBe(3);
    expect(runIdIn(read.metadata)).toBe(first.id);
    const firstRead = await client.getTask({ tenant: "", id: first.id });
    expect(firstRead.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "Answered after Also check Rome." });
    expect(await store.getRun(second!.id)).toBeUndefined();
  });

  it("cancelling the joined task stops following the run, which goes on and still takes the message", async () => {
    const { client, first, release, followUp, store } = await busyContext();
    const second = (await client.sendMessage({ ...messageRequest(""), message: followUp("Also check Rome."), configuration: immediately })) as Task;
    await expect.poll(async () => (await store.readThreadMessages(runInboxId(first.id))).length).toBe(1);
    const cancelled = await client.cancelTask({ tenant: "", id: second.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(5);
    release();
    await expect.poll(async () => (await client.getTask({ tenant: "", id: first.id })).status?.state).toBe(3);
    const done = await client.getTask({ tenant: "", id: first.id });
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "Answered after Also check Rome." });
    expect((await client.getTask({ tenant: "", id: second.id })).status?.state).toBe(5);
  });
});
