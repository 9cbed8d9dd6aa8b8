// One job as a worker processes it, without Redis: the job's data against the run's record, and
// what the job publishes on the run's channel (a fake publisher keeps it).
import { MemoryRunStore } from "@agentrx/runs";
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { queueNames } from "../internal/queue-names";
import type { RunJobData } from "../internal/run-job-data";
import { type WireItem, decodeWire } from "../internal/wire";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { type WorkerContext, processRunJob } from "./process-run-job";
import { WirePublisher } from "./wire-publisher";

const names = queueNames("unit", "agentrx-unit");

/** A worker's context on `store`, whose publisher keeps what it publishes, by channel. */
function workerContext(store: MemoryRunStore) {
  const published = new Map<string, WireItem[]>();
  const keep = (channel: string, message: string) => void published.set(channel, [...(published.get(channel) ?? []), ...decodeWire(message)]);
  const redis = {
    exists: async () => 0, // no cancel waits
    publish: async (channel: string, message: string) => (keep(channel, message), 1),
    pipeline: () => {
      const pipeline = { publish: (channel: string, message: string) => (keep(channel, message), pipeline), exec: async () => [] };
      return pipeline;
    },
  } as unknown as Redis;
  const errors: unknown[] = [];
  const context: WorkerContext = {
    store,
    executors: { double: () => doublingExecutor() },
    names,
    redis,
    publisher: new WirePublisher(redis, (error) => errors.push(error)),
    maxAttempts: 3,
    owner: "worker:unit",
    active: new Map(),
    onError: (error) => errors.push(error),
    toldNewerRelease: new Set(),
  };
  return { context, published, errors };
}

function job(data: Partial<RunJobData>): Job {
  const moveToDelayed = () => Promise.reject(new Error("the job was not expected to be delayed"));
  return { id: `run-${data.runId}`, data: { schemaVersion: 1, kind: "start", executor: "double", ...data }, stalledCounter: 0, moveToDelayed } as unknown as Job;
}

/** Creates a queued run as `RunClient.submit` records it (with `submissionId` when given). */
async function queuedRun(store: MemoryRunStore, runId: string, createdAt: number, submissionId?: string): Promise<void> {
  const metadata = { executor: "double", queue: names.queueName, ...(submissionId === undefined ? {} : { submissionId }) };
  await store.createRun({ runId, inputs: { input: "double 4" }, status: "queued", metadata, at: createdAt });
}

describe("processRunJob and the run a job was queued for", () => {
  it("a job queued for an earlier run of the id leaves the run alone and publishes nothing on its channel", async () => {
    const store = new MemoryRunStore();
    const createdAt = Date.now();
    await queuedRun(store, "r1", createdAt, "submission-2");
    const { context, published } = workerContext(store);
    const result = await processRunJob(context, job({ runId: "r1", createdAt: createdAt - 60_000, submissionId: "submission-1" }), "token");
    await new Promise((resolve) => setImmediate(resolve)); // what was sent in this turn is out
    expect(published.get(names.runChannel("r1"))).toBeUndefined(); // no `end`: its followers follow the newer run
    expect(result).toEqual({ runId: "r1", status: "queued", ofEarlierRun: true });
    expect(await store.getRun("r1")).toMatchObject({ status: "queued", eventCount: 0 });
  });

  it("tells a run's job from an earlier run's of the same id created in the same millisecond (by the record's submissionId)", async () => {
    const store = new MemoryRunStore();
    const createdAt = Date.now();
    await queuedRun(store, "r2", createdAt, "submission-2");
    const { context } = workerContext(store);
    const earlier = await processRunJob(context, job({ runId: "r2", createdAt, submissionId: "submission-1" }), "token");
    expect(earlier.ofEarlierRun).toBe(true);
    expect(await store.getRun("r2")).toMatchObject({ status: "queued", eventCount: 0 });
    const own = await processRunJob(context, job({ runId: "r2", createdAt, submissionId: "submission-2" }), "token");
    expect(own).toEqual({ runId: "r2", status: "finished" });
  });

  it("runs the run of a job queued by an earlier version (no createdAt, no submissionId) as the run's own, and says it ended", async () => {
    const store = new MemoryRunStore();
    await queuedRun(store, "r3", Date.now() - 60_000, "submission-1");
    const { context, published } = workerContext(store);
    const result = await processRunJob(context, job({ runId: "r3" }), "token");
    await new Promise((resolve) => setImmediate(resolve));
    expect(result).toEqual({ runId: "r3", status: "finished" });
    expect(await store.getRun("r3")).toMatchObject({ status: "finished" });
    expect(published.get(names.runChannel("r3"))?.at(-1)).toEqual({ end: { status: "finished" } });
  });

  it("runs the run of a job that names its createdAt only (queued by an earlier version) when that is the record's", async () => {
    const store = new MemoryRunStore();
    const createdAt = Date.now() - 60_000;
    await queuedRun(store, "r4", createdAt, "submission-1");
    const { context } = workerContext(store);
    expect(await processRunJob(context, job({ runId: "r4", createdAt: createdAt - 1 }), "token")).toMatchObject({ ofEarlierRun: true });
    expect(await processRunJob(context, job({ runId: "r4", createdAt }), "token")).toEqual({ runId: "r4", status: "finished" });
  });
});
