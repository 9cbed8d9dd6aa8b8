// A person's decisions on a paused run are in the store before `RunClient.resume` resolves: a
// resume job Redis loses before a worker takes it (a restart without persistence, simulated by
// deleting this queue's keys) is queued again by `reconcile()`, and the run goes on with them.
import { InvalidArgumentError } from "@agentrx/core";
import { recordDecisions } from "@agentrx/executors";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { RESUME_JOB } from "../internal/run-job-data";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { type QueueFixture, useQueueFixture } from "../test-helpers/queue-fixture";
import { deleteKeys, testServers, until } from "../test-helpers/test-servers";

const servers = await testServers("RunClient durable decisions");

describe.skipIf(servers.skip)("RunClient.resume records decisions before it resolves (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "decisions-test");

  /** What a Redis restart without persistence does to this queue: every key of it is gone. */
  const loseQueue = () => deleteKeys(`${servers.prefix}:${fixture.queueName}:*`);
  /** Every job of the current queue, whatever its state. */
  const jobCount = async () => Object.values(await fixture.queue().getJobCounts()).reduce((sum, count) => sum + count, 0);

  /** A run paused on `double(n)` (interrupt `call-0-0`) by a worker that is closed after: no worker takes its resume. */
  async function pausedRun(n: number, calls: string[]) {
    const executor = () => doublingExecutor({ approval: true, onTool: (what, value) => void calls.push(`${what} ${value}`) });
    const first = fixture.worker({ approve: executor });
    const client = fixture.client();
    const runId = await client.submit("approve", { input: `double ${n}` });
    const paused = await client.result(runId);
    expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0"]);
    await first.close({ gracePeriodMs: 0 });
    return { client, runId, executor, pauseEnd: (await fixture.store.getRun(runId))?.eventCount as number };
  }

  /** Calls `reconcile()` until it queues the run again (a run queued less than a second ago is left alone). */
  const reconciled = (client: ReturnType<QueueFixture["client"]>, runId: string) =>
    until(async () => (await client.reconcile()).requeued.includes(runId), "reconcile() to queue the run again");

  it("an approval whose job Redis lost before any worker took it: reconcile() queues the run again, and the approved call runs once", async () => {
    const calls: string[] = [];
    const { client, runId, executor, pauseEnd } = await pausedRun(6, calls);
    await client.resume(runId, { decisions: { "call-0-0": "approve" } });
    // Durable once resume resolved: the run's record holds the decisions, and the run is queued.
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "queued", eventCount: pauseEnd + 1 });
    const [entry] = await fixture.store.readEvents(runId, { after: pauseEnd });
    expect(entry).toMatchObject({ type: "decisions", data: { decisions: { "call-0-0": "approve" } } });
    await loseQueue();
    expect(await jobCount()).toBe(0);
    fixture.worker({ approve: executor });
    await reconciled(client, runId);
    expect((await client.result(runId)).output).toBe("6 doubled is 12.");
    expect(calls).toEqual(["start 6", "done 6"]);
    const events = await lastValueFrom(client.events(runId, { after: pauseEnd }).pipe(toArray()));
    expect(events[0]).toMatchObject({ type: "start", resumed: true });
    expect(events.filter((event) => event.type === "step")).toMatchObject([{ step: { observation: "12" } }]);
    expect((await fixture.store.readEvents(runId)).filter((event) => event.type === "decisions")).toHaveLength(1);
  });

  it("a rejection whose job Redis lost before any worker took it: the run goes on with the rejection, and the tool never runs", async () => {
    const calls: string[] = [];
    const { client, runId, executor, pauseEnd } = await pausedRun(5, calls);
    await client.resume(runId, { decisions: { "call-0-0": { type: "reject", message: "Not five." } } });
    expect((await fixture.store.getRun(runId))?.status).toBe("queued");
    await loseQueue();
    fixture.worker({ approve: executor });
    await reconciled(client, runId);
    expect((await client.result(runId)).output).toBe("5 doubled is Not five..");
    expect(calls).toEqual([]);
    const events = await lastValueFrom(client.events(runId, { after: pauseEnd }).pipe(toArray()));
    expect(events.filter((event) => event.type === "step")).toMatchObject([{ step: { observation: "Not five." }, metadata: { rejected: true } }]);
  });

  it("decisions recorded with recordDecisions queue no job: resume(runId) right after is refused saying so; once the run has been queued a second, it queues the run, and the approved call runs once", async () => {
    const calls: string[] = [];
    const { client, runId, executor, pauseEnd } = await pausedRun(7, calls);
    fixture.worker({ approve: executor });
    await recordDecisions(fixture.store, runId, { "call-0-0": "approve" }); // what a process with only the store does
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "queued", eventCount: pauseEnd + 1 });
    expect(await fixture.queue().getJobs(["waiting", "delayed", "active", "prioritized"])).toEqual([]); // no job: nothing moves it yet

    const refused = await client.resume(runId).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(refused) && refused.argument).toBe("runId");
    expect((refused as Error).message).toMatch(/If its decisions were recorded with `recordDecisions`, which queues no job, call resume\(runId\) again once it has been queued for a second/);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    await client.resume(runId);
    expect((await client.result(runId)).output).toBe("7 doubled is 14.");
    expect(calls).toEqual(["start 7", "done 7"]);
  });

  it("bad decisions are refused at the call, before anything is recorded or queued", async () => {
    const calls: string[] = [];
    const { client, runId } = await pausedRun(3, calls);
    const before = await fixture.store.getRun(runId);
    const jobs = await jobCount();
    const cases: [unknown, RegExp][] = [
      [{ nope: "approve" }, /^RunClient\.resume: run ".*" has no interrupt "nope" waiting for a decision \(waiting: call-0-0\)\. Nothing was recorded\.$/],
      [{ "call-0-0": { type: "reject", mesage: "no" } }, /^RunClient\.resume: the reject decision for "call-0-0" has an unknown key `mesage` \(it would be ignored\)/],
      [{ "call-0-0": "yes" }, /^RunClient\.resume: the decision for "call-0-0" must be "approve", \{ type: "approve" \}/],
      [{ "call-0-0": { type: "reject", message: 5 } }, /^RunClient\.resume: the reject decision for "call-0-0" has a `message` that is not a string/],
      [{ "call-0-0": { type: "edit" } }, /^RunClient\.resume: the edit decision for "call-0-0" has no `toolInput`/],
      [{}, /^RunClient\.resume: `decisions` is empty: give a decision for at least one of the waiting interrupts \(call-0-0\)/],
    ];
    for (const [decisions, message] of cases) {
      const error = await client.resume(runId, { decisions } as never).catch((caught: unknown) => caught);
      expect(InvalidArgumentError.isInstance(error) && error.argument, JSON.stringify(decisions)).toBe("decisions");
      expect((error as Error).message).toMatch(message);
      // Nothing written: not even a claim (which would raise the epoch).
      expect(await fixture.store.getRun(runId)).toMatchObject({ status: "interrupted", eventCount: before?.eventCount, epoch: before?.epoch, updatedAt: before?.updatedAt });
      expect(await jobCount()).toBe(jobs);
    }
    expect(calls).toEqual([]);
  });

  it("two clients deciding one pause at once: one wins, the other is refused clearly, and the tool runs once", async () => {
    const calls: string[] = [];
    const { client, runId, executor } = await pausedRun(7, calls);
    // Another API process: its own client and its own store connection.
    const other = fixture.client({ store: fixture.otherStore() });
    const jobs = await jobCount();
    const results = await Promise.allSettled([client.resume(runId, { decisions: { "call-0-0": "approve" } }), other.resume(runId, { decisions: { "call-0-0": "approve" } })]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = (results.find((result) => result.status === "rejected") as PromiseRejectedResult).reason as Error;
    expect(InvalidArgumentError.isInstance(refused)).toBe(true);
    expect(refused.message).toMatch(/^RunClient\.resume: run ".*" .*not paused for approval: there is nothing to decide \(a pause is decided once\)/);
    expect(await jobCount()).toBe(jobs + 1); // one resume job: the refused call queued none
    fixture.worker({ approve: executor });
    expect((await client.result(runId)).output).toBe("7 doubled is 14.");
    expect(calls).toEqual(["start 7", "done 7"]);
    expect((await fixture.store.readEvents(runId)).filter((event) => event.type === "decisions")).toHaveLength(1);
  });

  it("a decided run cancelled before a worker took it stays cancelled; resumed later, it goes on with the recorded decisions", async () => {
    const calls: string[] = [];
    const { client, runId, executor } = await pausedRun(2, calls);
    await client.resume(runId, { decisions: { "call-0-0": "approve" } });
    await client.cancel(runId);
    expect((await fixture.store.getRun(runId))?.status).toBe("cancelled");
    fixture.worker({ approve: executor });
    // (The cancel removed the start job: the one left is the resume job.)
    await until(async () => (await fixture.queue().getJobCounts("completed"))["completed"] === 1 && (await jobCount()) === 1, "the resume job to be done");
    expect(calls).toEqual([]);
    await expect(client.result(runId)).rejects.toThrow(/was cancelled/);
    await client.resume(runId);
    expect((await client.result(runId)).output).toBe("2 doubled is 4.");
    expect(calls).toEqual(["start 2", "done 2"]);
  });

  it("a resume job that carries its decisions (queued by an earlier version) still finishes the run", async () => {
    const calls: string[] = [];
    const { client, runId, executor } = await pausedRun(4, calls);
    await fixture.queue().add(RESUME_JOB, { schemaVersion: 1, kind: "resume", runId, executor: "approve", decisions: { "call-0-0": "approve" } }, { jobId: `resume-old-${runId}` });
    fixture.worker({ approve: executor });
    await until(async () => (await fixture.store.getRun(runId))?.status === "finished", "the run to finish");
    expect((await client.result(runId)).output).toBe("4 doubled is 8.");
    expect(calls).toEqual(["start 4", "done 4"]);
  });
});
