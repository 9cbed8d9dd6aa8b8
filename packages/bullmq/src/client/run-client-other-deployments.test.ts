// Clients of one store that are not of the run's queue: a client of another queue (same prefix)
// cancels a running run on the run's own queue's workers, and a client of another prefix (another
// deployment sharing the store) leaves that deployment's runs alone.
import { afterAll, describe, expect, it } from "vitest";
import { RunStoppedError } from "../errors/run-stopped-error";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { deleteKeys, testServers, until } from "../test-helpers/test-servers";

const servers = await testServers("RunClient across queues and prefixes");
/** A second deployment's prefix (its keys are not under `servers.prefix`, so they are deleted here). */
const otherPrefix = `${servers.prefix}-two`;

describe.skipIf(servers.skip)("RunClient of another queue or prefix (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "other-deployments");
  afterAll(async () => {
    if (!servers.skip) await deleteKeys(`${otherPrefix}:*`);
  });

  it("cancel() from a client of another queue stops a running run on the run's own queue's worker", async () => {
    const started: number[] = [];
    const aborted: number[] = [];
    fixture.worker({ slow: () => doublingExecutor({ toolMs: 10_000, onTool: (what, n) => what === "start" && started.push(n), onAbort: (n) => aborted.push(n) }) });
    const own = fixture.client();
    const runId = await own.submit("slow", { input: "double 5" });
    await until(() => started.length > 0, "the run's tool call to start");
    const other = fixture.client({ queueName: `${fixture.queueName}-elsewhere` });
    await other.cancel(runId);
    await expect(own.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
    expect(aborted).toEqual([5]);
    expect((await fixture.store.getRun(runId))?.status).toBe("cancelled");
  });

  it("records the queue and prefix of a submitted run", async () => {
    const runId = await fixture.client().submit("double", { input: "double 1" });
    expect((await fixture.store.getRun(runId))?.metadata).toMatchObject({ executor: "double", queue: fixture.queueName, prefix: servers.prefix });
    await fixture.client().cancel(runId);
  });

  it("a client of another prefix neither queues again nor runs another deployment's run, and can cancel it", async () => {
    const ran: number[] = [];
    fixture.worker({ double: () => doublingExecutor({ onTool: (what, n) => what === "start" && ran.push(n) }) });
    const mine = fixture.client();
    const theirs = fixture.client({ prefix: otherPrefix }); // same queue name and store, no worker
    const runId = await theirs.submit("double", { input: "double 7" });
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the second reconcile leaves a fresh run alone
    expect(await mine.reconcile()).toEqual({ requeued: [], failed: [], cancelled: [] });
    const followed = mine.result(runId).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // a few polls of the follower
    expect((await fixture.store.getRun(runId))?.status).toBe("queued");
    expect(ran).toEqual([]);
    await mine.cancel(runId);
    expect(await followed).toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
    // Resuming it from this deployment would queue it for this deployment's workers: refused, naming its own.
    await expect(mine.resume(runId)).rejects.toThrow(`RunClient.resume: run "${runId}" was submitted to queue "${fixture.queueName}" under prefix "${otherPrefix}", not to this client's (queue "${fixture.queueName}", prefix "${servers.prefix}")`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran).toEqual([]);
    expect((await fixture.store.getRun(runId))?.status).toBe("cancelled");
    expect(await theirs.reconcile()).toEqual({ requeued: [], failed: [], cancelled: [] });
  });

  it("a run recorded without a prefix (by an older version) is still its queue's under any prefix", async () => {
    const client = fixture.client();
    const runId = `legacy-${Math.random().toString(36).slice(2, 8)}`;
    await fixture.store.createRun({ runId, inputs: { input: "double 3" }, status: "queued", metadata: { executor: "double", queue: fixture.queueName }, at: Date.now() - 5000 });
    expect(await client.reconcile()).toEqual({ requeued: [runId], failed: [], cancelled: [] });
    fixture.worker({ double: () => doublingExecutor() });
    expect((await client.result(runId)).output).toBe("3 doubled is 6.");
  });
});
