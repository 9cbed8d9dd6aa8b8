// A Redis that lost its jobs (a restart without persistence, simulated by deleting this queue's
// keys only): runs recorded as queued are queued again, and runs that cannot progress end clearly.
import { UnrecoverableError, Worker } from "bullmq";
import { describe, expect, it } from "vitest";
import { RunStoppedError } from "../errors/run-stopped-error";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { deleteKeys, testServers, until } from "../test-helpers/test-servers";

const servers = await testServers("RunClient reconciliation");

describe.skipIf(servers.skip)("RunClient after Redis lost its jobs (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "reconcile-test");

  /** What a Redis restart without persistence does to this queue: every key of it is gone. */
  const loseQueue = () => deleteKeys(`${servers.prefix}:${fixture.queueName}:*`);

  it("queues a followed run again when its job is gone, and gives its result", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 6" });
    await loseQueue();
    expect(await fixture.queue().getJob(`run-${runId}`)).toBeUndefined();
    fixture.worker({ double: () => doublingExecutor() });
    const result = await client.result(runId);
    expect(result).toMatchObject({ output: "6 doubled is 12.", runId });
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "finished", metadata: { executor: "double", queue: fixture.queueName } });
  });

  it("reconcile() queues again every stranded run of its queue, leaves the others, and reports what it did", async () => {
    const client = fixture.client();
    const [first, second] = [await client.submit("double", { input: "double 2" }), await client.submit("double", { input: "double 3" })];
    // Another queue's run, and a run recorded without a RunClient: neither is this client's to queue.
    const elsewhere = `elsewhere-${Math.random().toString(36).slice(2, 8)}`;
    await fixture.store.createRun({ runId: elsewhere, inputs: {}, status: "queued", metadata: { executor: "double", queue: "another-queue" }, at: Date.now() - 5000 });
    const local = `local-${Math.random().toString(36).slice(2, 8)}`;
    await fixture.store.createRun({ runId: local, inputs: {}, status: "queued", at: Date.now() - 5000 });
    await loseQueue();
    // Runs queued less than a second ago are left alone: their submit may be queuing them.
    expect(await client.reconcile()).toEqual({ requeued: [], failed: [], cancelled: [] });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const report = await client.reconcile();
    expect(report.requeued.sort()).toEqual([first, second].sort());
    expect(report.failed).toEqual([]);
    // Queued once: a second pass finds their jobs waiting.
    expect(await client.reconcile()).toEqual({ requeued: [], failed: [], cancelled: [] });
    fixture.worker({ double: () => doublingExecutor() });
    expect((await client.result(first)).output).toBe("2 doubled is 4.");
    expect((await client.result(second)).output).toBe("3 doubled is 6.");
    expect((await fixture.store.getRun(elsewhere))?.status).toBe("queued");
    expect((await fixture.store.getRun(local))?.status).toBe("queued");
    await fixture.store.deleteRun(elsewhere);
    await fixture.store.deleteRun(local);
  });

  it("ends result() with RunStoppedError when the run's job is gone and its record names no executor", async () => {
    const client = fixture.client();
    const runId = `no-executor-${Math.random().toString(36).slice(2, 8)}`;
    await fixture.store.createRun({ runId, inputs: { input: "double 1" }, status: "queued", at: Date.now() - 5000 });
    const error = await client.result(runId).catch((caught: unknown) => caught);
    expect(RunStoppedError.isInstance(error) && error.status).toBe("failed");
    expect((error as RunStoppedError).reason).toMatch(/BullMQ job is gone .* cannot be queued again: its record names no executor/);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "failed", error: expect.stringMatching(/names no executor/) });
  });

  it("ends result() with RunStoppedError when the run's job failed before the run started", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 9" });
    // A worker that takes the job by hand and fails it for good (as after its last attempt).
    const manual = new Worker(fixture.queueName, null, { connection: fixture.connection, prefix: servers.prefix });
    try {
      const job = await manual.getNextJob("manual-token");
      expect(job?.id).toBe(`run-${runId}`);
      await job!.moveToFailed(new UnrecoverableError("the store was unreachable"), "manual-token", false);
      await until(async () => (await job!.getState()) === "failed", "the failed job");
    } finally {
      await manual.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const error = await client.result(runId).catch((caught: unknown) => caught);
    expect(RunStoppedError.isInstance(error) && error.status).toBe("failed");
    expect((error as RunStoppedError).reason).toMatch(/Its job failed before the run could go on: the store was unreachable/);
    expect((await fixture.store.getRun(runId))?.status).toBe("failed");
  });

  it("gives up a run whose job failed after a worker took it and whose end was not recorded, saying the run went on", async () => {
    const client = fixture.client();
    // The database goes away while the tool runs: the run fails on its worker, and neither its
    // failure nor the release of its lease reaches the record, which still says `running`.
    let down = false;
    const failing = new Proxy(fixture.store, {
      get(target, name, receiver) {
        if (name === "write") {
          return (...args: Parameters<typeof target.write>) => (down ? Promise.reject(new Error("the database went away")) : target.write(...args));
        }
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    fixture.worker({ double: () => doublingExecutor({ leaseMs: 300, onTool: (what) => void (what === "start" && (down = true)) }) }, { store: failing });
    const runId = await client.submit("double", { input: "double 5" });
    const job = (await fixture.queue().getJob(`run-${runId}`))!;
    await until(async () => (await job.getState()) === "failed", "the run's job to fail");
    await until(async () => ((await fixture.store.getRun(runId))?.leaseExpiresAt ?? Infinity) < Date.now(), "the worker's lease to expire");
    const stranded = await fixture.store.getRun(runId);
    expect(stranded).toMatchObject({ status: "running" });
    expect(stranded?.eventCount).toBeGreaterThan(0); // it had started
    expect(await client.reconcile()).toEqual({ requeued: [], failed: [runId], cancelled: [] });
    const info = await fixture.store.getRun(runId);
    expect(info?.status).toBe("failed");
    expect(info?.error).toMatch(/^Its job failed after a worker took the run, and the run's end was not recorded: .*the database went away/);
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && /after a worker took the run/.test(error.message));
  });

  it("queues again a running run whose worker and job are both gone, once its lease expired", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 7" });
    // A worker took it (claimed under a short lease), then died with Redis.
    await fixture.store.claimRun(runId, { owner: "dead-worker", leaseMs: 200, at: Date.now() });
    await loseQueue();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await client.reconcile()).toEqual({ requeued: [runId], failed: [], cancelled: [] });
    fixture.worker({ double: () => doublingExecutor() });
    expect((await client.result(runId)).output).toBe("7 doubled is 14.");
  });

  it("a paused run needs no job: after Redis lost everything, its result is still the pause, reconcile() leaves it, and resume with decisions finishes it", async () => {
    const client = fixture.client();
    const effects: number[] = [];
    const executor = () => doublingExecutor({ approval: true, onTool: (what, n) => void (what === "done" && effects.push(n)) });
    const first = fixture.worker({ approve: executor });
    const runId = await client.submit("approve", { input: "double 8" });
    const paused = await client.result(runId);
    await first.close({ gracePeriodMs: 0 });
    await loseQueue();
    expect(await fixture.queue().getJob(`run-${runId}`)).toBeUndefined();
    expect(await client.reconcile()).toEqual({ requeued: [], failed: [], cancelled: [] });
    expect(await client.result(runId)).toMatchObject({ output: "", interrupts: paused.interrupts });
    fixture.worker({ approve: executor });
    await client.resume(runId, { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } });
    expect((await client.result(runId)).output).toBe("8 doubled is 16.");
    expect(effects).toEqual([8]);
  });
});
