// `RunClient.cancel` of a run paused inside a handoff (the other agent asked for approval) cancels
// the other agent's paused run with it, as `RunStore.cancelRun` does (see docs/approval.md, "A pause
// inside a handoff"): it is not left paused with nobody to resume it.
import { AgentExecutor, type RunStore, handoff } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { RunStoppedError } from "../errors/run-stopped-error";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { testServers, until } from "../test-helpers/test-servers";
import { callsFirst, refundTool } from "../../../executors/src/executor/test-helpers";

const servers = await testServers("RunClient cancel of sub-runs");

/** Triage hands off to billing, whose refund (of 10) needs approval; `refunded` says which ran. */
function triageExecutor(store: RunStore, refunded: number[]): AgentExecutor {
  const refund = refundTool(refunded);
  const billing = new AgentExecutor({ agent: callsFirst("refund", "r1", { amount: 10 }), tools: [refund], needsApproval: () => true, store });
  const toBilling = handoff(billing, { name: "transfer_to_billing", description: "Refunds." });
  return new AgentExecutor({ agent: callsFirst("transfer_to_billing", "h1", { input: "refund order 42" }), tools: [toBilling] });
}

describe.skipIf(servers.skip)("RunClient.cancel of a run paused inside a handoff (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "cancel-sub-runs");

  it("cancels the other agent's paused run, naming the calling run; the caller's result rejects as cancelled", async () => {
    const refunded: number[] = [];
    fixture.worker({ triage: () => triageExecutor(fixture.store, refunded) });
    const client = fixture.client();
    const runId = await client.submit("triage", { input: "Refund me" });
    const paused = await client.result(runId);
    const subRunId = paused.interrupts?.[0]?.subRun?.runId as string;
    expect(subRunId).toBe(`handoff:${runId}:0:h1`);
    expect((await fixture.store.getRun(subRunId))?.status).toBe("interrupted");

    await client.cancel(runId);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: expect.stringMatching(/paused for approval/) });
    expect(await fixture.store.getRun(subRunId)).toMatchObject({
      status: "cancelled",
      error: expect.stringMatching(new RegExp(`^Its calling run "${runId}" was cancelled: The run was cancelled \\(RunClient\\.cancel\\) while it was paused for approval\\.$`)),
    });
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
    expect(refunded).toEqual([]);
  });

  it("cancels it also once the caller's approval is recorded and its job waits (queued): the refund never runs", async () => {
    const refunded: number[] = [];
    const first = fixture.worker({ triage: () => triageExecutor(fixture.store, refunded) });
    const client = fixture.client();
    const runId = await client.submit("triage", { input: "Refund me" });
    const paused = await client.result(runId);
    const interrupt = paused.interrupts?.[0];
    await first.close({ gracePeriodMs: 0 });
    // Approved (the resume job waits for a worker), then cancelled.
    await client.resume(runId, { decisions: { [interrupt?.id as string]: "approve" } });
    expect((await fixture.store.getRun(runId))?.status).toBe("queued");

    await client.cancel(runId);
    expect(await fixture.store.getRun(interrupt?.subRun?.runId as string)).toMatchObject({ status: "cancelled", error: expect.stringMatching(new RegExp(`^Its calling run "${runId}" was cancelled: `)) });
    // A worker that comes back leaves both as they are.
    fixture.worker({ triage: () => triageExecutor(fixture.store, refunded) });
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
    const resumeDone = async () => (await fixture.queue().getJobs(["completed"])).some((job) => job.id?.startsWith(`resume-${runId}`));
    await until(resumeDone, "the worker to be done with the resume job");
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled" });
    expect((await fixture.store.getRun(interrupt?.subRun?.runId as string))?.status).toBe("cancelled");
    expect(refunded).toEqual([]);
  });

  it("a worker that records a cancel sent as the run paused (the client read it as running) cancels the paused sub-run too", async () => {
    const refunded: number[] = [];
    const client = fixture.client();
    // The worker's write of the caller's pause is held while the client cancels the run (still
    // running in the store): the cancel reaches the worker too late to stop it, and the worker records it.
    const cancelDuringPause = new Proxy(fixture.store, {
      get(target, name, receiver) {
        if (name === "write") {
          return async (id: string, write: Parameters<RunStore["write"]>[1]) => {
            if (write.update?.status === "interrupted") await client.cancel(id);
            return target.write(id, write);
          };
        }
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as RunStore;
    fixture.worker({ triage: () => triageExecutor(fixture.store, refunded) }, { store: cancelDuringPause });
    const runId = await client.submit("triage", { input: "Refund me" });
    await until(async () => (await fixture.queue().getJob(`run-${runId}`))?.finishedOn !== undefined, "the worker to be done with the job");
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled", error: expect.stringMatching(/paused for approval/) });
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
    expect(await fixture.store.getRun(`handoff:${runId}:0:h1`)).toMatchObject({ status: "cancelled", error: expect.stringMatching(new RegExp(`^Its calling run "${runId}" was cancelled: `)) });
    expect(refunded).toEqual([]);
  });
});
