// A run id submitted again (its earlier run's record deleted) while a worker that stalled or died
// still holds that run's start job: BullMQ would drop a second job of the same id as a duplicate.
import { Worker } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { fallbackStartJobId, startJobId } from "../internal/queue-names";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { testServers, until } from "../test-helpers/test-servers";

const servers = await testServers("RunClient resubmit");

describe.skipIf(servers.skip)("a run id submitted again while a worker holds its earlier run's job (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "resubmit-test");
  let holders: Worker[] = [];
  afterEach(async () => {
    await Promise.all(holders.map((holder) => holder.close(true)));
    holders = [];
  });

  /** Submits a run, has a worker take its start job and stop there (its lock holds for a minute), and deletes the run's record. */
  async function heldEarlierRun(runId: string): Promise<void> {
    await fixture.client().submit("double", { input: "double 2" }, { runId });
    const holder = new Worker(fixture.queueName, null, { connection: fixture.connection, prefix: servers.prefix, lockDuration: 60_000, autorun: false });
    holders.push(holder);
    const held = await holder.getNextJob("a-worker-that-stopped");
    expect(held?.id).toBe(startJobId(runId));
    expect(await fixture.store.deleteRun(runId)).toBe(true);
  }

  const newRunId = () => `again-${Math.random().toString(36).slice(2, 8)}`;

  it("queues the new run's job beside the held one: reconcile finds it waiting, and a worker runs the run", async () => {
    const runId = newRunId();
    await heldEarlierRun(runId);
    const client = fixture.client();
    await client.submit("double", { input: "double 5" }, { runId });
    const { createdAt, metadata } = (await fixture.store.getRun(runId))!;
    const waiting = await fixture.queue().getJobs(["waiting"]);
    expect(waiting.map((job) => job.id)).toEqual([fallbackStartJobId(runId, createdAt)]);
    // The job names the record it was queued for: its createdAt, and the submissionId submit recorded.
    expect(metadata?.["submissionId"]).toEqual(expect.any(String));
    expect(waiting[0]?.data).toMatchObject({ kind: "start", runId, createdAt, submissionId: metadata?.["submissionId"], inputs: { input: "double 5" } });
    // Past the grace a fresh submit gets: reconciling finds the run's own job, not the held one, and queues nothing.
    await until(async () => (await fixture.store.getRun(runId))!.updatedAt + 1000 < Date.now(), "the run to be over a second old");
    expect(await client.reconcile()).toEqual({ requeued: [], failed: [], cancelled: [] });
    fixture.worker({ double: () => doublingExecutor() });
    expect((await client.result(runId)).output).toBe("5 doubled is 10.");
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "finished", inputs: { input: "double 5" } });
  });

  it("a cancel of the new run removes its job, not the held one", async () => {
    const runId = newRunId();
    await heldEarlierRun(runId);
    const client = fixture.client();
    await client.submit("double", { input: "double 5" }, { runId });
    const { createdAt } = (await fixture.store.getRun(runId))!;
    expect(await fixture.queue().getJob(fallbackStartJobId(runId, createdAt))).toBeDefined();
    await client.cancel(runId);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled" });
    expect(await fixture.queue().getJob(fallbackStartJobId(runId, createdAt))).toBeUndefined();
    expect(await (await fixture.queue().getJob(startJobId(runId)))?.getState()).toBe("active");
  });

  it("a worker that takes a job queued for an earlier run of the id leaves the run alone", async () => {
    const runId = newRunId();
    const client = fixture.client();
    await client.submit("double", { input: "double 3" }, { runId });
    const { createdAt } = (await fixture.store.getRun(runId))!;
    // Only the earlier run's job is left: the one the worker takes names that run's record.
    await fixture.queue().remove(startJobId(runId));
    const earlier = { schemaVersion: 1, kind: "start", runId, executor: "double", createdAt: createdAt - 60_000 };
    await fixture.queue().add("start", earlier, { jobId: startJobId(runId) });
    let ran = false;
    fixture.worker({ double: () => doublingExecutor({ onTool: () => (ran = true) }) });
    await until(async () => (await (await fixture.queue().getJob(startJobId(runId)))?.getState()) === "completed", "the earlier run's job to complete");
    expect(ran).toBe(false);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "queued", eventCount: 0 });
  });
});
