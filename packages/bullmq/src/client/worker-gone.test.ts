import { describe, expect, it } from "vitest";
import { type ListedWorker, workerGone } from "./worker-gone";

const named = (...names: string[]): ListedWorker[] => names.map((name) => ({ rawname: `bull:cXVldWU=:w:${name}` }));

describe("workerGone", () => {
  it("is true when the run's active job names a worker Redis no longer lists, while it lists others by name", async () => {
    expect(await workerGone([{ processedBy: "worker:1:dead" }], async () => named("worker:2:alive"))).toBe(true);
    // Two active jobs of the run (its start job and a resume job): gone only when neither worker is listed.
    expect(await workerGone([{ processedBy: "worker:1:dead" }, { processedBy: "worker:3:gone" }], async () => named("worker:2:alive"))).toBe(true);
  });

  it("is false when the worker is listed, or when nothing can be told", async () => {
    expect(await workerGone([{ processedBy: "worker:1:a" }], async () => named("worker:1:a", "worker:2:b"))).toBe(false);
    expect(await workerGone([{ processedBy: "worker:1:dead" }, { processedBy: "worker:2:b" }], async () => named("worker:2:b"))).toBe(false);
    // No active job: nobody runs it through the queue, which says nothing of its lease holder.
    expect(await workerGone([], async () => named("worker:2:b"))).toBe(false);
    // A job that names no worker (a worker of an older version).
    expect(await workerGone([{}], async () => named("worker:2:b"))).toBe(false);
    // No worker listed by name: a Redis that hides names (or the only worker died): unknown.
    expect(await workerGone([{ processedBy: "worker:1:dead" }], async () => [])).toBe(false);
    expect(await workerGone([{ processedBy: "worker:1:dead" }], async () => [{ name: "GCP does not support client list" } as ListedWorker])).toBe(false);
    expect(await workerGone([{ processedBy: "worker:1:dead" }], async () => Promise.reject(new Error("ERR unknown command 'CLIENT'")))).toBe(false);
    // A name that only ends like the job's is another worker's.
    expect(await workerGone([{ processedBy: "1:dead" }], async () => named("worker:1:dead"))).toBe(true);
  });
});
