// Cancels that meet other features: a run that pauses as the cancel comes, a worker that is
// starting the run, an approval queued before the run was cancelled through the store, and a
// resume job queued before the run was stopped.
import type { RunStore } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { RunStoppedError } from "../errors/run-stopped-error";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { testServers, until } from "../test-helpers/test-servers";
import { RunClient } from "./run-client";

const servers = await testServers("RunClient cancel races");

describe.skipIf(servers.skip)("RunClient.cancel where it meets pauses, starts and queued resumes (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "cancel-races");

  /** A client whose first read of `runId` returns what the store said, after `meanwhile` ran (a read that raced with the run). */
  const racingClient = (meanwhile: () => Promise<void>) => {
    let armed = true;
    const store = new Proxy(fixture.store, {
      get(target, name, receiver) {
        if (name === "getRun") {
          return async (runId: string) => {
            const info = await target.getRun(runId);
            if (armed) {
              armed = false;
              await meanwhile();
            }
            return info;
          };
        }
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as RunStore;
    const client = new RunClient({ connection: fixture.connection, store, queueName: fixture.queueName, prefix: servers.prefix, pollIntervalMs: 500 });
    return client;
  };

  it("a cancel of a running run that pauses before the cancel reaches its worker records the run as cancelled, not paused", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    fixture.worker({ approve: () => doublingExecutor({ approval: true, gate }) });
    const submitter = fixture.client();
    const runId = await submitter.submit("approve", { input: "double 2" });
    await until(async () => (await fixture.store.getRun(runId))?.status === "running", "the run to start");
    // The client reads the run as running; by the time its cancel is sent, the run has paused and
    // its worker has moved on (it has no run to abort).
    const client = racingClient(async () => {
      open();
      await until(async () => (await fixture.store.getRun(runId))?.status === "interrupted", "the pause");
      await until(async () => (await fixture.queue().getJob(`run-${runId}`))?.finishedOn !== undefined, "the worker to be done with the job");
    });
    await client.cancel(runId);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: expect.stringMatching(/paused for approval/) });
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
    await client.close();
  });

  it("a worker that pauses a run after a cancel was sent for it records the cancel (the client read it as running)", async () => {
    const client = fixture.client();
    // The worker's write of the pause is held while the client cancels the run (still running in
    // the store): the cancel's message reaches the worker while the run is ending, too late to stop it.
    const cancelDuringPause = new Proxy(fixture.store, {
      get(target, name, receiver) {
        if (name === "write") {
          return async (id: string, write: Parameters<RunStore["write"]>[1]) => {
            if (write.update?.status === "interrupted") {
              expect((await target.getRun(id))?.status).toBe("running");
              await client.cancel(id);
            }
            return target.write(id, write);
          };
        }
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as RunStore;
    fixture.worker({ approve: () => doublingExecutor({ approval: true }) }, { store: cancelDuringPause });
    const runId = await client.submit("approve", { input: "double 3" });
    await until(async () => (await fixture.queue().getJob(`run-${runId}`))?.finishedOn !== undefined, "the worker to be done with the job");
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: expect.stringMatching(/paused for approval/) });
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
  });

  it("a cancel that lands while a worker is starting the run leaves it cancelled and the worker free, not running under a lease nobody renews", async () => {
    const client = fixture.client();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let building = false;
    let ran = false;
    // The executor is still being built when the cancel comes: the worker has the job, the run is queued.
    const worker = fixture.worker({
      double: async () => {
        building = true;
        await held;
        return doublingExecutor({ onTool: () => (ran = true) });
      },
    } as never);
    const runId = await client.submit("double", { input: "double 5" });
    await until(() => building, "the worker to take the job");
    await client.cancel(runId);
    release();
    await until(() => worker.activeRuns === 0, "the worker to let the run go");
    await until(async () => (await fixture.queue().getJob(`run-${runId}`))?.finishedOn !== undefined, "the job to end");
    const info = await fixture.store.getRun(runId);
    expect(info).toMatchObject({ status: "cancelled" });
    expect(info?.owner).toBeUndefined();
    expect(ran).toBe(false);
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
  });

  it("an approval queued before the paused run was cancelled through the store does not run the approved tool", async () => {
    const client = fixture.client();
    const effects: string[] = [];
    const executor = () => doublingExecutor({ approval: true, onTool: (what, n) => effects.push(`${what} ${n}`) });
    const first = fixture.worker({ approve: executor });
    const runId = await client.submit("approve", { input: "double 2" });
    const paused = await client.result(runId);
    await first.close({ gracePeriodMs: 0 });
    // Approved (the resume job waits for a worker), then cancelled from another process (agentrx ui).
    await client.resume(runId, { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } });
    expect(await fixture.otherStore().cancelRun!(runId, { reason: "The run was cancelled from agentrx ui.", at: Date.now() })).toBe(true);
    fixture.worker({ approve: executor });
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
    expect(effects).toEqual([]);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: "The run was cancelled from agentrx ui." });
  });

  it("a resume job queued before the run was cancelled (reconcile after Redis lost its job) does not bring the run back", async () => {
    const client = fixture.client();
    const runId = `requeued-${Math.random().toString(36).slice(2, 8)}`;
    // A queued run whose job Redis lost: reconcile queues a resume job for it...
    await fixture.store.createRun({ runId, inputs: { input: "double 4" }, status: "queued", metadata: { executor: "double", queue: fixture.queueName }, at: Date.now() - 5000 });
    expect(await client.reconcile()).toEqual({ requeued: [runId], failed: [], cancelled: [] });
    // ...then it is cancelled through the store before a worker takes that job.
    expect(await fixture.store.cancelRun!(runId, { reason: "Not needed any more.", at: Date.now() })).toBe(true);
    let ran = false;
    fixture.worker({ double: () => doublingExecutor({ onTool: () => (ran = true) }) });
    await until(async () => (await fixture.queue().getCompletedCount()) === 1, "the resume job to be done");
    expect(ran).toBe(false);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: "Not needed any more.", eventCount: 0 });
    // An explicit resume of the cancelled run still continues it.
    await client.resume(runId);
    expect((await client.result(runId)).output).toBe("4 doubled is 8.");
  });
});
