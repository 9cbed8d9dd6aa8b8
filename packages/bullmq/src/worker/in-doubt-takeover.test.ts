// A worker process killed (SIGKILL) while a tool call runs: the worker that takes the run over
// applies the executor's in-doubt policy to that call, and the run's followers see it.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastValueFrom, toArray } from "rxjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type QueueFixture, queueFixture } from "../test-helpers/queue-fixture";
import { testServers } from "../test-helpers/test-servers";
import type { WorkerProcessArgs } from "../test-helpers/worker-process";
import { type WorkerProcess, startWorkerProcess, stopWorkerProcess, workerArgs } from "../test-helpers/worker-processes";

const servers = await testServers("in-doubt takeover");

describe.skipIf(servers.skip)("a tool call in flight on a killed worker (Redis, PostgreSQL, worker processes)", () => {
  let fixture: QueueFixture;
  const workers: WorkerProcess[] = [];
  const effects = join(tmpdir(), `agentrx-bullmq-in-doubt-${process.pid}-${Date.now()}.log`);
  const lines = () => readFileSync(effects, "utf8").split("\n").filter(Boolean);
  const args = (extra: Partial<WorkerProcessArgs>): WorkerProcessArgs =>
    workerArgs(servers, fixture.queueName, { concurrency: 2, latencyMs: 0, toolMs: 0, leaseMs: 500, lockDuration: 600, stalledInterval: 300, maxAttempts: 3, effects, ...extra });

  beforeAll(() => {
    servers.assertReachable();
    fixture = queueFixture(servers, "in-doubt");
  });
  beforeEach(() => {
    fixture.next();
    writeFileSync(effects, "");
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => stopWorkerProcess(worker)));
    await fixture?.close();
    await servers.cleanup();
    rmSync(effects, { force: true });
  });

  it('"interrupt": the run pauses on the call in doubt for a person; approved, the call runs once more and the run finishes', async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 7" });
    const followed = lastValueFrom(client.events(runId).pipe(toArray()));
    const victim = await startWorkerProcess(args({ crash: true }));
    workers.push(victim);
    expect(await victim.exited).toBe("SIGKILL");
    workers.push(await startWorkerProcess(args({ inDoubt: "interrupt" })));
    const paused = await client.result(runId);
    expect(paused.stopReason).toBe("interrupted");
    expect(paused.interrupts).toMatchObject([{ tool: "double", toolInput: { n: 7 }, reason: "in_doubt" }]);
    expect(lines().filter((line) => line.startsWith("start "))).toHaveLength(1); // nothing ran again by itself
    // The follower that was there from the start saw the pause, each recorded event once.
    const events = await followed;
    const seqs = events.flatMap((event) => (event.seq === undefined ? [] : [event.seq]));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "interrupted" });
    await client.resume(runId, { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } });
    expect((await client.result(runId)).output).toBe("7 doubled is 14.");
    expect(lines().filter((line) => line.startsWith("start "))).toHaveLength(2);
  }, 20_000);

  it("a worker frozen past its lease while a tool ran (SIGSTOP) hands the run back instead of failing it: the job is retried, the call in doubt runs again, the run finishes", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 6" });
    // One worker (no other could take the run: BullMQ's lock outlasts the freeze); its tool takes 1 s.
    const worker = await startWorkerProcess(args({ toolMs: 1000, lockDuration: 10_000, stalledInterval: 10_000 }));
    workers.push(worker);
    await expect.poll(() => lines().length, { timeout: 10_000, interval: 10 }).toBe(1); // the tool started
    process.kill(worker.pid, "SIGSTOP");
    await new Promise((resolve) => setTimeout(resolve, 1500)); // three leases (500 ms)
    process.kill(worker.pid, "SIGCONT");
    expect((await client.result(runId)).output).toBe("6 doubled is 12.");
    const starts = lines().filter((line) => line.startsWith("start "));
    expect(starts).toHaveLength(2); // the aborted call, then its retry (in doubt: "retry")
    const events = await fixture.store.readEvents(runId);
    expect(events.filter((event) => event.type === "start")).toHaveLength(2); // a second segment resumed the record
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "finished" });
    await stopWorkerProcess(worker);
  }, 20_000);

  it("a cancel sent while the dead worker's lease still holds ends the run when another worker takes it: the call in doubt is not run again", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 9" });
    const victim = await startWorkerProcess(args({ crash: true, leaseMs: 2000 }));
    workers.push(victim);
    expect(await victim.exited).toBe("SIGKILL");
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "running" });
    await client.cancel(runId);
    workers.push(await startWorkerProcess(args({})));
    await expect(client.result(runId)).rejects.toThrow(/was cancelled/);
    expect(lines().filter((line) => line.startsWith("start "))).toHaveLength(1);
    // The new worker may be settling the cancel it found (a claim, then the write) as the result
    // comes: the record ends cancelled, with the cancel's reason, either way.
    await expect.poll(() => fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: expect.stringMatching(/cancelled \(RunClient.cancel\)/) });
  }, 20_000);
});
