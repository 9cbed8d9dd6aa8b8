// Cancelling a run whose worker died holding it: recorded as cancelled without waiting for a
// worker to take the run over, once nobody can still write to it (its lease expired), or at once
// when Redis shows its worker gone and the store can fence the lease holder out (cancelRun).
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RunStoppedError } from "../errors/run-stopped-error";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { type QueueFixture, queueFixture } from "../test-helpers/queue-fixture";
import { testServers, until } from "../test-helpers/test-servers";
import { type WorkerProcess, startWorkerProcess, stopWorkerProcess, workerArgs } from "../test-helpers/worker-processes";

const servers = await testServers("RunClient cancel of a dead worker's run");

describe.skipIf(servers.skip)("RunClient.cancel of a run whose worker died (Redis, PostgreSQL)", () => {
  let fixture: QueueFixture;
  const children: WorkerProcess[] = [];
  const effects = join(tmpdir(), `agentrx-bullmq-cancel-dead-${process.pid}-${Date.now()}.log`);
  beforeAll(() => {
    servers.assertReachable();
    fixture = queueFixture(servers, "cancel-dead");
    writeFileSync(effects, "");
  });
  beforeEach(() => {
    fixture.next();
  });
  afterAll(async () => {
    await Promise.all(children.map((child) => stopWorkerProcess(child)));
    await fixture?.close();
    await servers.cleanup();
    rmSync(effects, { force: true });
  });

  const fresh = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`;

  it("records the run as cancelled at once when its lease has expired, with no worker running", async () => {
    const client = fixture.client();
    const runId = fresh("lapsed");
    await fixture.store.createRun({ runId, inputs: { input: "double 1" }, status: "running", owner: "dead", leaseMs: 1000, metadata: { executor: "double", queue: fixture.queueName }, at: Date.now() - 5000 });
    await client.cancel(runId);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: expect.stringMatching(/after the worker running it stopped \(its lease had expired\)/) });
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
  });

  it("records a cancel sent under a live lease once that lease expires, by reconciling, without a worker to take the run", async () => {
    const client = fixture.client();
    const runId = fresh("later");
    await fixture.store.createRun({ runId, inputs: { input: "double 2" }, status: "running", owner: "dead", leaseMs: 300, metadata: { executor: "double", queue: fixture.queueName }, at: Date.now() });
    await client.cancel(runId); // nobody listens: the cancel waits in Redis
    expect((await fixture.store.getRun(runId))?.status).toBe("running");
    await until(async () => ((await fixture.store.getRun(runId))?.leaseExpiresAt ?? Infinity) < Date.now(), "the lease to expire");
    // Not queued again for a worker to find the cancel: recorded now.
    expect(await client.reconcile()).toEqual({ requeued: [], failed: [], cancelled: [runId] });
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: expect.stringMatching(/its lease had expired/) });
    expect(await fixture.queue().getJobCounts()).toMatchObject({ waiting: 0, delayed: 0, active: 0 });
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
  });

  it("records the run as cancelled at once when its worker was killed, under a lease that has a minute to go", async () => {
    const queueName = fixture.queueName;
    const client = fixture.client();
    // A worker process whose runs hold a lease for a minute, and whose jobs stay locked as long.
    const victim = await startWorkerProcess(workerArgs(servers, queueName, { concurrency: 1, latencyMs: 0, toolMs: 120_000, leaseMs: 60_000, lockDuration: 60_000, stalledInterval: 60_000, maxAttempts: 3, effects }));
    children.push(victim);
    const runId = await client.submit("double", { input: "double 7" });
    await until(async () => (await fixture.store.getRun(runId))?.owner?.startsWith(`pid:${victim.pid}:`) === true, "the victim to take the run");
    const survivor = fixture.worker({ double: () => doublingExecutor() });
    await survivor.ready();
    victim.child.kill("SIGKILL");
    expect(await victim.exited).toBe("SIGKILL");
    // Redis sees the dead process's connections close (its system closed them).
    await until(async () => !(await fixture.queue().getWorkers()).some((worker) => String(worker["rawname"]).includes(`:w:worker:${victim.pid}:`)), "Redis to drop the victim's connections");
    const before = await fixture.store.getRun(runId);
    expect(before).toMatchObject({ status: "running" });
    expect(before?.leaseExpiresAt).toBeGreaterThan(Date.now() + 30_000);
    await client.cancel(runId);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: expect.stringMatching(/after the worker running it stopped \(it left Redis before its lease expired\)/) });
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
  });

  it("leaves a run whose worker is alive to that worker, which stops it", async () => {
    const client = fixture.client();
    let started = false;
    let aborted = false;
    const hang = () => doublingExecutor({ toolMs: 60_000, onTool: (what) => void (what === "start" && (started = true)), onAbort: () => (aborted = true) });
    // Two workers, both listed by Redis: whichever takes the run is alive.
    await Promise.all([fixture.worker({ double: hang }).ready(), fixture.worker({ double: hang }).ready()]);
    const runId = await client.submit("double", { input: "double 3" });
    await until(() => started, "the tool to start");
    await client.cancel(runId);
    await until(() => aborted, "the run's signal to abort");
    await until(async () => (await fixture.store.getRun(runId))?.status === "cancelled", "the cancelled status");
    // Recorded by its worker (the signal's reason), not by the client as a dead worker's run.
    expect((await fixture.store.getRun(runId))?.error).not.toMatch(/after the worker running it stopped/);
  });
});
