// A run whose record cannot be read fails at once (retrying its job reads the same record), while a
// store that fails for a while (a timeout) has the job retried, and a record a newer release wrote
// has the job wait for a worker of that release (delayed, not counted as an attempt).
import { type RunStore, RunStoreError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { RunStoppedError } from "../errors/run-stopped-error";
import { startJobId } from "../internal/queue-names";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { testServers, until } from "../test-helpers/test-servers";

const servers = await testServers("unreadable records");

/** The store with `getRun` replaced (what a worker of another process would see). */
function withGetRun(store: RunStore, getRun: RunStore["getRun"]): RunStore {
  return withMethod(store, "getRun", getRun);
}

/** The store with one method replaced. */
function withMethod<K extends keyof RunStore>(store: RunStore, name: K, method: RunStore[K]): RunStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === name) return method;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe.skipIf(servers.skip)("createRunWorker and a record it cannot read (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "unreadable-test");

  /** Records a checkpoint of `schemaVersion` for the queued run, as another process would have. */
  async function recordCheckpoint(runId: string, schemaVersion: number): Promise<void> {
    const owner = `version-${schemaVersion}`;
    const { epoch } = await fixture.store.claimRun(runId, { owner, leaseMs: 10_000, at: Date.now() });
    const checkpoint = { schemaVersion, iteration: 0, elapsedMs: 0, phase: "agent" };
    await fixture.store.write(runId, { owner, leaseMs: 10_000, epoch, events: [], update: { status: "queued", checkpoint, release: true }, at: Date.now() });
  }

  it("fails a run whose checkpoint has a schemaVersion no release wrote at once, naming it, without retrying the job", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 2" });
    await recordCheckpoint(runId, 0);
    fixture.worker({ double: () => doublingExecutor() });
    const stopped = await client.result(runId).then(() => undefined, (error: unknown) => error);
    expect(RunStoppedError.isInstance(stopped) && stopped.status).toBe("failed");
    expect((stopped as Error).message).toMatch(/record cannot be read.*schemaVersion 0/);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "failed", error: expect.stringMatching(/^The run's record cannot be read, so no worker can run it.*schemaVersion 0/) });
    const job = await fixture.settledJob(startJobId(runId));
    expect(await job.getState()).toBe("failed");
    expect(job.attemptsMade).toBe(1);
  });

  it("leaves a run recorded by a newer release to a worker of that release: the job waits, not counted as an attempt, and the run is not failed", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 3" });
    // A worker of a later release checkpointed the run and handed it back (a rolling deploy).
    await recordCheckpoint(runId, 999);
    const errors: unknown[] = [];
    fixture.worker({ double: () => doublingExecutor() }, { onError: (error: unknown) => errors.push(error) });
    const queue = fixture.queue();
    const job = async () => (await queue.getJob(startJobId(runId)))!;
    await expect.poll(async () => (await job()).getState(), { timeout: 10_000 }).toBe("delayed");
    // Looked at again (promoted at once here, rather than after its delay): still left alone, and said once.
    await (await job()).promote();
    await expect.poll(async () => (await job()).getState(), { timeout: 10_000 }).toBe("delayed");
    expect((await job()).attemptsMade).toBe(0);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "queued" });
    expect((await fixture.store.getRun(runId))?.error).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toMatch(new RegExp(`^Run "${runId}" was recorded by a newer release of AgentRx than this worker's.*not counted as an attempt.*Upgrade this worker`));
    // Once that release has gone on with it (here: its checkpoint is one this release reads), the job runs it.
    await recordCheckpoint(runId, 1);
    await (await job()).promote();
    expect((await client.result(runId)).output).toBe("3 doubled is 6.");
    expect(errors).toHaveLength(1);
  });

  it("fails the job of a run whose row cannot be read at once; the run's followers get the reason", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 2" });
    const corrupt = new RunStoreError({ operation: "getRun", runId, reason: "corrupt", message: `the record of run "${runId}" is corrupt: its metadata is not valid JSON` });
    fixture.worker({ double: () => doublingExecutor() }, { store: withGetRun(fixture.store, () => Promise.reject(corrupt)) });
    const stopped = await client.result(runId).then(() => undefined, (error: unknown) => error);
    expect(RunStoppedError.isInstance(stopped) && stopped.status).toBe("failed");
    expect((stopped as Error).message).toMatch(/Its job failed before the run could go on: The run's record cannot be read.*its metadata is not valid JSON/);
    const job = await fixture.settledJob(startJobId(runId));
    expect(await job.getState()).toBe("failed");
    expect(job.attemptsMade).toBe(1);
  });

  it("fails a run its stopped worker left running whose events cannot be read, with the reason, instead of recording it cancelled", async () => {
    const runId = `left-${Math.random().toString(36).slice(2, 8)}`;
    // What a worker that died leaves: a running run under a lease that has expired, and its job.
    await fixture.store.createRun({ runId, inputs: { input: "double 2" }, status: "running", owner: "dead", leaseMs: 100, metadata: { executor: "double" }, at: Date.now() - 5000 });
    await fixture.queue().add("start", { schemaVersion: 1, kind: "start", runId, executor: "double" }, { jobId: startJobId(runId), attempts: 3 });
    const corrupt = new RunStoreError({ operation: "readEvents", runId, reason: "corrupt", message: `readEvents: event 1 of run "${runId}" is corrupt: its data is not a JSON object.` });
    fixture.worker({ double: () => doublingExecutor() }, { store: withMethod(fixture.store, "readEvents", () => Promise.reject(corrupt)) });
    const job = async () => fixture.queue().getJob(startJobId(runId));
    await until(async () => (await (await job())?.getState()) === "failed", "the job to fail");
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "failed", error: expect.stringMatching(/^The run's record cannot be read, so no worker can run it.*event 1 of run "left-\w+" is corrupt/) });
    expect((await job())?.attemptsMade).toBe(1);
  });

  it("gives a run its stopped worker left running back as queued when its events could not be read for a while, and the retried job runs it", async () => {
    const client = fixture.client();
    const runId = `left-${Math.random().toString(36).slice(2, 8)}`;
    await fixture.store.createRun({ runId, inputs: { input: "double 5" }, status: "running", owner: "dead", leaseMs: 100, metadata: { executor: "double" }, at: Date.now() - 5000 });
    await fixture.queue().add("start", { schemaVersion: 1, kind: "start", runId, executor: "double" }, { jobId: startJobId(runId), attempts: 3, backoff: 10 });
    let timeouts = 0;
    // What the worker's store saw, said when the job's attempts are not what they should be (this
    // test once saw one attempt under a loaded machine: it says why, should it happen again).
    const seen: string[] = [];
    const readEvents: RunStore["readEvents"] = (id, options) => {
      seen.push(`readEvents ${timeouts > 0 ? "answered" : "timed out"} at ${Date.now()}`);
      if (timeouts++ > 0) return fixture.store.readEvents(id, options);
      return Promise.reject(new RunStoreError({ operation: "readEvents", runId: id, reason: "timeout", message: "the store did not answer in time" }));
    };
    const claimRun: RunStore["claimRun"] = (id, claim) =>
      fixture.store.claimRun(id, claim).then(
        (info) => (seen.push(`claimRun at ${claim.at}: epoch ${info.epoch}`), info),
        (error: unknown) => (seen.push(`claimRun at ${claim.at} refused: ${(error as Error).message}`), Promise.reject(error)),
      );
    fixture.worker({ double: () => doublingExecutor() }, { store: withMethod(withMethod(fixture.store, "readEvents", readEvents), "claimRun", claimRun) });
    expect((await client.result(runId)).output).toBe("5 doubled is 10.");
    const job = await fixture.settledJob(startJobId(runId));
    expect(job.attemptsMade, `${seen.join("\n")}\nthe job: ${JSON.stringify(job.toJSON())}`).toBe(2);
  });

  it("retries the job of a run whose store timed out, and runs the run", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 4" });
    let timeouts = 0;
    const getRun: RunStore["getRun"] = (id) => {
      if (timeouts++ > 0) return fixture.store.getRun(id);
      return Promise.reject(new RunStoreError({ operation: "getRun", runId: id, reason: "timeout", message: "the store did not answer in time" }));
    };
    fixture.worker({ double: () => doublingExecutor() }, { store: withGetRun(fixture.store, getRun) });
    expect((await client.result(runId)).output).toBe("4 doubled is 8.");
    expect((await fixture.settledJob(startJobId(runId))).attemptsMade).toBe(2);
  });
});
