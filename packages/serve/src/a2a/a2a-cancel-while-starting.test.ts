import { type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory } from "@a2a-js/sdk/client";
import { InMemoryTaskStore, type ServerCallContext } from "@a2a-js/sdk/server";
import { deferred } from "@agentrx/core/testing";
import type { CancelRun, ClaimRun, RunInfo, RunWrite } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { createA2AHandler } from "@agentrx/serve";
import { tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { messageRequest as request } from "../test-helpers/a2a-messages";
import { workExecutor } from "../test-helpers/work-executor";

// A CancelTask that comes while a task's run is starting, before it runs: the run must not go on,
// its record must end cancelled, and the task must stay canceled (docs/serving-a2a.md).

afterEach(closeLoopback);

const cancel = (client: Client, id: string) => client.cancelTask({ tenant: "", id, metadata: undefined });

/**
 * A run store whose claims (a resume's) wait, once `hold()` was called, until `release()` (or
 * fail with `fail(error)`); `claiming` settles when a held claim started, `released` when a write
 * gave a run's lease back (a run that ended, or a claim given back), `cancelled` after a `cancelRun`.
 */
class HeldClaims extends MemoryRunStore {
  private holding = false;
  private readonly gate = deferred();
  readonly claiming = deferred();
  readonly cancelled = deferred();
  released = deferred();

  hold(): void {
    this.holding = true;
    this.released = deferred();
  }

  release(): void {
    this.gate.resolve();
  }

  fail(error: Error): void {
    this.gate.reject(error);
  }

  override async cancelRun(runId: string, cancel: CancelRun): Promise<boolean> {
    const cancelled = await super.cancelRun(runId, cancel);
    this.cancelled.resolve();
    return cancelled;
  }

  override async claimRun(runId: string, claim: ClaimRun): Promise<RunInfo> {
    if (this.holding) {
      this.holding = false;
      this.claiming.resolve();
      await this.gate.promise;
    }
    return super.claimRun(runId, claim);
  }

  override async write(runId: string, write: RunWrite) {
    const written = await super.write(runId, write);
    if (write.update?.release) this.released.resolve();
    return written;
  }
}

/** An executor whose `work` call needs approval (and counts its calls), then answers "All done.". */
function approvalExecutor(store: MemoryRunStore) {
  const calls: string[] = [];
  const work = tool(
    async ({ name }: { name: string }) => {
      calls.push(name);
      return `${name} done`;
    },
    { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
  );
  const executor = workExecutor(work, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, "All done."], { store, needsApproval: () => true });
  return { executor, calls };
}

/**
 * A task paused for approval, its run recorded in `store`, whose "approve" (`sent`) came while
 * `store` held the claim of its run's record, and which was then cancelled (checked: the cancel
 * answers canceled). `onError` is the handler's.
 */
async function cancelledWhileClaiming(store: HeldClaims, onError: (error: unknown) => void) {
  const { executor, calls } = approvalExecutor(store);
  const handler = createA2AHandler(executor, { agentCard: { name: "Worker", description: "Works." }, onError: (error) => (onError(error), "") });
  const client = await new ClientFactory().createFromUrl(await startLoopback(handler));
  const paused = (await client.sendMessage(request("Work, please."))) as Task;
  store.hold();
  const sent = client.sendMessage(request("approve", paused.id)) as Promise<Task>;
  await store.claiming.promise;
  expect((await cancel(client, paused.id)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  return { client, paused, sent, calls };
}

describe("createA2AHandler, CancelTask while the task's run is starting, through @a2a-js/sdk's client", () => {
  it("cancels a new task's run whose record is still being created: its record ends cancelled, its tool never runs", async () => {
    const creating = deferred();
    const created = deferred();
    class HeldCreates extends HeldClaims {
      override async createRun(...args: Parameters<MemoryRunStore["createRun"]>) {
        creating.resolve();
        await created.promise;
        return super.createRun(...args);
      }
    }
    const store = new HeldCreates();
    const { executor, calls } = approvalExecutor(store);
    const client = await new ClientFactory().createFromUrl(await startLoopback(createA2AHandler(executor, { agentCard: { name: "Worker", description: "Works." } })));
    const stream = client.sendMessageStream(request("Work, please."));
    const first = await stream.next();
    const taskId = first.value?.payload?.$case === "task" ? first.value.payload.value.id : "";
    await creating.promise;
    expect((await cancel(client, taskId)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    created.resolve();
    await store.released.promise;
    expect(await store.getRun(taskId)).toMatchObject({ status: "cancelled" });
    expect(calls).toEqual([]);
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("stops a resumed run whose record is being claimed as soon as it starts: its tool never runs, its record ends cancelled, the task stays canceled", async () => {
    const store = new HeldClaims();
    const { executor, calls } = approvalExecutor(store);
    const client = await new ClientFactory().createFromUrl(await startLoopback(createA2AHandler(executor, { agentCard: { name: "Worker", description: "Works." } })));
    const paused = (await client.sendMessage(request("Work, please."))) as Task;
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    store.hold();
    const states: Array<number | undefined> = [];
    const following = (async () => {
      for await (const event of client.sendMessageStream(request("approve", paused.id))) {
        if (event.payload?.$case === "statusUpdate") states.push(event.payload.value.status?.state);
      }
    })();
    await store.claiming.promise;
    expect((await cancel(client, paused.id)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await following;
    store.release();
    await store.released.promise;

    expect(await store.getRun(paused.id)).toMatchObject({ status: "cancelled" });
    expect(calls).toEqual([]);
    expect(states).toEqual([TaskState.TASK_STATE_CANCELED]);
    expect((await client.getTask({ tenant: "", id: paused.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("cancels the record of a resumed run that fails before it starts, once cancelled", async () => {
    const store = new HeldClaims();
    const reported: unknown[] = [];
    const { client, paused, sent, calls } = await cancelledWhileClaiming(store, (error) => reported.push(error));
    expect((await sent).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    store.fail(new Error("The database went away."));

    await store.cancelled.promise;
    expect(await store.getRun(paused.id)).toMatchObject({ status: "cancelled", error: `Its A2A task ${paused.id} was cancelled.` });
    expect(calls).toEqual([]);
    expect(reported).toEqual([]);
    expect((await client.getTask({ tenant: "", id: paused.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("tells onError when the record of a cancelled resume that failed before it started cannot be cancelled", async () => {
    class ReadOnlyCancels extends HeldClaims {
      override async cancelRun(): Promise<boolean> {
        throw new Error("The run store is read-only.");
      }
    }
    const store = new ReadOnlyCancels();
    const reported = deferred<unknown>();
    const { paused, sent } = await cancelledWhileClaiming(store, (error) => reported.resolve(error));
    await sent;
    store.fail(new Error("The database went away."));

    expect(await reported.promise).toMatchObject({
      message: `Task ${paused.id} was cancelled while its run was being resumed, and the run's record could not then be cancelled (The run store is read-only.): the run is still paused.`,
    });
    expect(await store.getRun(paused.id)).toMatchObject({ status: "interrupted" });
  });

  it("keeps a task canceled when the cancel came before its resuming message reached the executor (the SDK was saving the task)", async () => {
    const saving = deferred();
    const saved = deferred();
    let holdNext = false;
    /** Holds the save of the task with the resuming message ("approve") in its history, once saved. */
    class HeldTasks extends InMemoryTaskStore {
      override async save(task: Task, context: ServerCallContext): Promise<void> {
        await super.save(task, context);
        if (holdNext && task.history.some((item) => item.parts.some((part) => part.content?.$case === "text" && part.content.value === "approve"))) {
          holdNext = false;
          saving.resolve();
          await saved.promise;
        }
      }
    }
    const store = new MemoryRunStore();
    const { executor, calls } = approvalExecutor(store);
    const client = await new ClientFactory().createFromUrl(await startLoopback(createA2AHandler(executor, { agentCard: { name: "Worker", description: "Works." }, taskStore: new HeldTasks() })));
    const paused = (await client.sendMessage(request("Work, please."))) as Task;

    holdNext = true;
    const sent = client.sendMessage(request("approve", paused.id)) as Promise<Task>;
    await saving.promise;
    expect((await cancel(client, paused.id)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    saved.resolve();

    // The run's record was cancelled, so the message could not resume it: the task stays canceled
    // (not input-required, asking again for a decision nobody can give).
    expect((await sent).status).toMatchObject({ state: TaskState.TASK_STATE_CANCELED, message: { parts: [{ content: { value: "The task was cancelled." } }] } });
    expect((await client.getTask({ tenant: "", id: paused.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await store.getRun(paused.id)).toMatchObject({ status: "cancelled" });
    expect(calls).toEqual([]);
  });
});
