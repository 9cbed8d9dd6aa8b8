import { type AddressInfo, type Socket, connect, createServer } from "node:net";
import { RunBusyError } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import { startJobId } from "../internal/queue-names";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { testServers, until } from "../test-helpers/test-servers";
import { RunWorkerCloseError } from "../errors/run-worker-close-error";
import { createRunWorker } from "./create-run-worker";

describe("createRunWorker: options", () => {
  const base = { connection: { host: "127.0.0.1" }, store: new MemoryRunStore(), executors: { support: () => doublingExecutor() } };
  it.each([
    [{ ...base, concurrency: 0 }, /`concurrency` must be an integer >= 1, got 0/],
    [{ ...base, store: {} }, /`store` must be a RunStore .* it has no createRun, claimRun, write, getRun, readEvents method/],
    [{ ...base, executors: { support: "nope" } }, /`executors.support` must be a function that returns an AgentExecutor/],
    [{ ...base, queueName: "a:b" }, /`queueName` must be a non-empty string without `:`/],
    [{ ...base, maxAttempts: 1.5 }, /`maxAttempts` must be an integer >= 1/],
    [{ ...base, connection: "redis://x" }, /`connection` must be ioredis options/],
    [{ ...base, retries: 3 }, /`retries` must be one of the known options/],
    [{ ...base, executors: {} }, /`executors` must be executor factories by name, at least one \(a worker with none would fail every run it takes\), got an object/],
  ])("refuses %#, naming the option", (options, message) => {
    expect(() => createRunWorker(options as never)).toThrow(message);
  });
});

const servers = await testServers("createRunWorker");

/** A TCP proxy to the tests' Redis whose `cut()` closes it and every connection through it (Redis itself goes on). */
async function redisProxy(): Promise<{ port: number; cut(): void }> {
  const target = new URL(servers.redisUrl);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const end of [socket, upstream]) {
      sockets.add(end);
      end.on("error", () => undefined);
      end.on("close", () => (socket.destroy(), upstream.destroy()));
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe.skipIf(servers.skip)("createRunWorker (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "worker-test");

  it("close() hands a run in progress back to the queue as queued; another worker finishes it without repeating finished work", async () => {
    const client = fixture.client();
    const effects: string[] = [];
    const executor = () => doublingExecutor({ toolMs: 400, onTool: (what, n) => effects.push(`${what} ${n}`) });
    const first = fixture.worker({ double: executor });
    const runId = await client.submit("double", { input: "double 6" });
    await until(() => effects.includes("start 6"), "the tool to start");
    await first.close({ gracePeriodMs: 0 });
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "queued" });
    expect(effects).toEqual(["start 6"]);
    fixture.worker({ double: executor });
    expect((await client.result(runId)).output).toBe("6 doubled is 12.");
    expect(effects).toEqual(["start 6", "start 6", "done 6"]); // the call in flight ran again, once
    const starts = (await fixture.store.readEvents(runId)).filter((event) => event.type === "start").map((event) => event.data["resumed"]);
    expect(starts).toEqual([false, true]);
    // The model was not asked again for the turn it had answered: one tool call, two model calls.
    expect((await fixture.store.readEvents(runId)).filter((event) => event.type === "model_call")).toHaveLength(2);
  });

  it("close() waits for runs that end within the grace period", async () => {
    const client = fixture.client();
    const worker = fixture.worker({ double: () => doublingExecutor({ toolMs: 200 }) });
    const runId = await client.submit("double", { input: "double 2" });
    await until(() => worker.activeRuns === 1, "the run to start");
    await worker.close({ gracePeriodMs: 10_000 });
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "finished" });
  });

  it("fails a run whose executor factory returns no executor, saying so, instead of retrying the job and leaving the run queued", async () => {
    const client = fixture.client();
    fixture.worker({ double: () => undefined as never });
    const runId = await client.submit("double", { input: "double 2" });
    await expect(client.result(runId)).rejects.toThrow(/The executor factory "double" returned undefined, not an AgentExecutor/);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "failed" });
    const job = await fixture.settledJob(startJobId(runId));
    expect(await job.getState()).toBe("failed");
    expect(job.attemptsMade).toBe(1); // not retried: the factory would return the same again
  });

  it("reports a job whose data is malformed to onError (it belongs to no run), and fails the job without retrying it", async () => {
    const errors: unknown[] = [];
    fixture.worker({ double: () => doublingExecutor() }, { onError: (error) => errors.push(error) });
    await fixture.queue().add("start", { schemaVersion: 1, kind: "start", executor: "double" }, { jobId: "no-run-id", attempts: 3 });
    await until(() => errors.length > 0, "onError to be called");
    expect(String((errors[0] as Error).message)).toMatch(/Job no-run-id of queue "worker-test-\d+" cannot be run: it has no runId\./);
    const job = await fixture.queue().getJob("no-run-id");
    expect(await job?.getState()).toBe("failed");
    expect(job?.attemptsMade).toBe(1);
  });

  it.each(["throws", "rejects"])("an onError that %s crashes nothing: the error it was given, and its own failure, are logged", async (kind) => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const onError = (): void => {
        if (kind === "throws") throw new Error("log sink down");
        return Promise.reject(new Error("log sink down")) as never;
      };
      fixture.worker({ double: () => doublingExecutor() }, { onError });
      await fixture.queue().add("start", { schemaVersion: 1, kind: "start", executor: "double" }, { jobId: "no-run-id", attempts: 3 });
      await until(() => logged.mock.calls.length > 0, "the failure of onError to be logged");
      expect(logged.mock.calls[0]?.[0]).toBe(`@agentrx/bullmq worker: onError ${kind === "throws" ? "threw" : "rejected"} (log sink down) while reporting:`);
      expect(String((logged.mock.calls[0]?.[1] as Error).message)).toMatch(/Job no-run-id of queue "worker-test-\d+" cannot be run: it has no runId\./);
      const job = await fixture.queue().getJob("no-run-id");
      await until(async () => (await job?.getState()) === "failed", "the job to fail");
      expect(job?.attemptsMade).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      logged.mockRestore();
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("waits for the lease of a dead process to expire before resuming its run", async () => {
    const client = fixture.client();
    const runId = `dead-${Math.random().toString(36).slice(2, 8)}`;
    // What a worker that died leaves: a running run under a lease nobody renews, and its job,
    // which BullMQ's stalled-job check hands to another worker.
    const at = Date.now();
    await fixture.store.createRun({ runId, inputs: { input: "double 9" }, status: "running", owner: "dead", leaseMs: 700, metadata: { executor: "double" }, at });
    const leaseEnd = at + 700; // the lease runs from the `at` it was taken at, not from when createRun returned
    // Nobody can tell a dead holder from a live one before its lease ends: RunClient.resume refuses.
    await expect(client.resume(runId)).rejects.toSatisfy((error) => RunBusyError.isInstance(error) && error.owner === "dead");
    await fixture.queue().add("start", { schemaVersion: 1, kind: "start", runId, executor: "double" }, { jobId: startJobId(runId) });
    fixture.worker({ double: () => doublingExecutor() });
    const result = await client.result(runId);
    expect(result.output).toBe("9 doubled is 18.");
    const [start] = await fixture.store.readEvents(runId, { limit: 1 });
    expect(start?.at).toBeGreaterThanOrEqual(leaseEnd);
  });

  it("a cancel reaches a run whose job a worker takes later (the cancel is remembered)", async () => {
    const client = fixture.client();
    const runId = `late-${Math.random().toString(36).slice(2, 8)}`;
    await fixture.store.createRun({ runId, inputs: { input: "double 1" }, status: "running", owner: "dead", leaseMs: 500, metadata: { executor: "double" }, at: Date.now() });
    await client.cancel(runId); // nobody runs it now: the cancel is kept for whoever takes it
    await fixture.queue().add("start", { schemaVersion: 1, kind: "start", runId, executor: "double" }, { jobId: startJobId(runId) });
    let ran = false;
    fixture.worker({ double: () => doublingExecutor({ onTool: () => (ran = true) }) });
    await until(async () => (await fixture.store.getRun(runId))?.status === "cancelled", "the cancelled status");
    expect(ran).toBe(false);
  });

  it("a run cancelled through the store (RunStore.cancelRun, as agentrx ui does from another process) stops on the worker at its next write", async () => {
    const client = fixture.client();
    const effects: string[] = [];
    const worker = fixture.worker({ double: () => doublingExecutor({ toolMs: 300, onTool: (what, n) => effects.push(`${what} ${n}`) }) });
    const runId = await client.submit("double", { input: "double 4" });
    await until(() => effects.includes("start 4"), "the tool to start");
    // Another connection to the same database, as another process has.
    const cancelled = await fixture.otherStore().cancelRun!(runId, { reason: "The run was cancelled from agentrx ui.", at: Date.now() });
    expect(cancelled).toBe(true);
    await expect(client.result(runId)).rejects.toThrow(/cancelled/);
    await until(() => worker.activeRuns === 0, "the worker to let the run go");
    // The tool in flight ended; nothing came after it: the model was not asked again, no answer was written.
    expect(effects).toEqual(["start 4", "done 4"]);
    const events = await fixture.store.readEvents(runId);
    expect(events.filter((event) => event.type === "model_call")).toHaveLength(1);
    expect(events.some((event) => event.type === "output")).toBe(false);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: "The run was cancelled from agentrx ui." });
  });

  it("close() refused for its options changes nothing: a close() after it still closes the worker", async () => {
    const worker = fixture.worker({ double: () => doublingExecutor() });
    await worker.ready();
    await expect(worker.close({ gracePeriodMs: -1 })).rejects.toThrow(/RunWorker.close: `gracePeriodMs` must be a number of milliseconds >= 0/);
    await expect(worker.close(null as never)).rejects.toThrow(/RunWorker.close: `options` must be an object, got null/);
    await expect(worker.close({ gracePeriod: 0 } as never)).rejects.toThrow(/unknown option `options.gracePeriod`; did you mean `gracePeriodMs`\? Known options: gracePeriodMs, forceAfterMs\./);
    await expect(worker.close({ forceAfterMs: Number.NaN })).rejects.toThrow(/RunWorker.close: `forceAfterMs` must be a number of milliseconds >= 0/);
    expect(worker.worker.isRunning()).toBe(true);
    await worker.close({ gracePeriodMs: 0 });
    expect(worker.worker.isRunning()).toBe(false);
  });

  it("a second close() with a shorter grace period hands the runs in progress back sooner", async () => {
    const client = fixture.client();
    let started = false;
    const worker = fixture.worker({ double: () => doublingExecutor({ toolMs: 15_000, onTool: (what) => what === "start" && (started = true) }) });
    const runId = await client.submit("double", { input: "double 3" });
    await until(() => started, "the tool to start");
    const polite = worker.close({ gracePeriodMs: 60_000 });
    const at = Date.now();
    const urgent = worker.close({ gracePeriodMs: 0 });
    await urgent;
    expect(Date.now() - at).toBeLessThan(5_000);
    await polite;
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "queued" });
  });

  it("close() gives up on a Redis that no longer answers: it drops the connections and rejects naming the run whose job it could not hand back", async () => {
    const proxy = await redisProxy();
    const client = fixture.client();
    let started = false;
    const worker = fixture.worker(
      { double: () => doublingExecutor({ toolMs: 15_000, onTool: (what) => what === "start" && (started = true) }) },
      { connection: { host: "127.0.0.1", port: proxy.port } },
    );
    await worker.ready();
    const runId = await client.submit("double", { input: "double 3" });
    await until(() => started, "the tool to start");
    proxy.cut(); // the worker's Redis is gone (the tests' Redis goes on)
    // A deadline (a second close) shortens the wait for Redis; both calls settle alike.
    const [first, second] = await Promise.allSettled([worker.close({ gracePeriodMs: 0 }), worker.close({ gracePeriodMs: 0, forceAfterMs: 100 })]);
    expect(first).toEqual(second);
    const error = first.status === "rejected" ? (first.reason as unknown) : undefined;
    expect(RunWorkerCloseError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ runIds: [runId], forceAfterMs: 100 });
    expect((error as Error).message).toMatch(/^RunWorker.close: gave up 100 ms \(forceAfterMs\) after the runs were told to go back to the queue or had ended: Redis did not answer, or a run did not stop; runs still in progress here: "[\w-]+"/);
    // The store answered: the run was handed back, and a worker with Redis takes it once its job's lock lapses.
    // (The hand-back's write may land after close() gave up: the store is slower than 100 ms here at times.)
    await expect.poll(async () => (await fixture.store.getRun(runId))?.status, { timeout: 10_000 }).toBe("queued");
  });

  it("close() of a worker that never reached Redis resolves at once", async () => {
    const worker = fixture.worker({ double: () => doublingExecutor() }, { connection: { host: "127.0.0.1", port: 1, retryStrategy: () => 50 } });
    await expect(worker.close()).resolves.toBeUndefined();
  });

  it("close() during startup is no error: onError hears nothing and ready() resolves", async () => {
    const errors: unknown[] = [];
    const worker = fixture.worker({ double: () => doublingExecutor() }, { onError: (error: unknown) => errors.push(error) });
    await worker.close();
    await expect(worker.ready()).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(errors).toEqual([]);
  });

  it("refuses an ioredis instance whose commands give up (ioredis' default), opening no connection", async () => {
    const instance = new Redis(servers.redisUrl, { lazyConnect: true });
    const before = process.getActiveResourcesInfo().filter((kind) => kind === "TCPSocketWrap").length;
    expect(() => createRunWorker({ connection: instance, store: fixture.store, executors: { double: () => doublingExecutor() } })).toThrow(
      "createRunWorker: `connection` is an ioredis instance with `maxRetriesPerRequest: 20`; a worker's must have `maxRetriesPerRequest: null`",
    );
    expect(process.getActiveResourcesInfo().filter((kind) => kind === "TCPSocketWrap").length).toBe(before);
    expect(instance.status).toBe("wait");
    instance.disconnect();
  });

  it("close() called again once the worker closed arms no timer (nothing keeps the process alive)", async () => {
    const worker = fixture.worker({ double: () => doublingExecutor() });
    await worker.ready();
    await worker.close();
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    const before = timers();
    const again = worker.close({ gracePeriodMs: 0 });
    expect(timers()).toBe(before);
    await expect(again).resolves.toBeUndefined();
  });

  it("a cancel sent while the worker's subscriber connection was down reaches the run once it is back", async () => {
    // One connection whose duplicates (the worker's subscriber among them) wait 300 ms before they reconnect.
    const opened: Redis[] = [];
    class Watched extends Redis {
      override duplicate(...args: Parameters<Redis["duplicate"]>): Redis {
        const copy = super.duplicate(...args);
        opened.push(copy);
        return copy;
      }
    }
    const connection = new Watched(servers.redisUrl, { maxRetriesPerRequest: null, retryStrategy: () => 300 });
    try {
      const client = fixture.client();
      let aborted = false;
      let started = false;
      const worker = fixture.worker(
        { double: () => doublingExecutor({ toolMs: 15_000, onTool: (what) => what === "start" && (started = true), onAbort: () => (aborted = true) }) },
        { connection },
      );
      await worker.ready();
      const subscriber = opened.find((redis) => redis.listenerCount("message") > 0); // the one the cancels come on
      expect(subscriber).toBeDefined();
      const runId = await client.submit("double", { input: "double 8" });
      await until(() => started, "the tool to start");
      subscriber!.disconnect(true);
      await client.cancel(runId); // published while nobody on the worker listens
      expect(subscriber!.status).not.toBe("ready");
      await until(() => aborted, "the run's signal to abort", 5_000);
      await expect(client.result(runId)).rejects.toThrow(/was cancelled/);
      await worker.close({ gracePeriodMs: 0 });
    } finally {
      connection.disconnect();
    }
  });
});
