import type { AgentStep } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentExecutor } from "../executor/agent-executor";
import { InProcessRunStore } from "./in-process-run-store";
import { RunRecorder } from "./run-recorder";
import type { RunStore, RunWrite } from "./run-store";
import { RunLeaseLostError } from "./run-store-errors";

// A run keeps its lease only while its writes are acknowledged: when the lease it knows is about
// to run out with no newer acknowledged write, it fails with RunLeaseLostError and aborts its
// tools before another process may take the run over; a quiet run on a healthy store is renewed
// by the heartbeat long before that. Fake timers (setImmediate stays real, so a run moves on by
// itself up to its first timer).

const LEASE_MS = 300;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
});

afterEach(() => {
  vi.useRealTimers();
});

/** A store that acknowledges writes (noting when each was sent) until `hang()`; then its writes never answer. */
function hangingStore(): { store: RunStore; acked: number[]; hang(): void } {
  const acked: number[] = [];
  let hung = false;
  class HangingStore extends InProcessRunStore {
    override async write(runId: string, write: RunWrite) {
      if (hung) return new Promise<never>(() => undefined);
      const result = await super.write(runId, write);
      acked.push(write.at);
      return result;
    }
  }
  return { store: new HangingStore(), acked, hang: () => void (hung = true) };
}

/** A tool that runs until `releaseAfterMs` passes (never, when undefined) or its signal aborts; notes when it was aborted. */
function slowTool(releaseAfterMs?: number) {
  const seen: { started: boolean; abortedAt: number | undefined } = { started: false, abortedAt: undefined };
  const slow = tool(
    async (_input, config) => {
      seen.started = true;
      await new Promise<void>((resolve) => {
        if (releaseAfterMs !== undefined) setTimeout(resolve, releaseAfterMs);
        config?.signal?.addEventListener("abort", () => {
          seen.abortedAt = Date.now();
          resolve();
        });
      });
      return "done";
    },
    { name: "slow", description: "Takes long.", schema: z.object({}) },
  );
  return { slow, seen };
}

/** An agent that calls `slow` once, then answers. */
const callsSlowOnce = RunnableLambda.from((input: { steps: AgentStep[] }) =>
  input.steps.length === 0 ? { tool: "slow", toolInput: {}, log: "" } : { returnValues: { output: "answered" }, log: "" },
);

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await vi.advanceTimersByTimeAsync(1);
}

describe("a run's lease watchdog", () => {
  it("fails the run with RunLeaseLostError and aborts its tool before the lease it knows runs out, when its store stops answering", async () => {
    const { store, acked, hang } = hangingStore();
    const { slow, seen } = slowTool();
    const executor = new AgentExecutor({ agent: callsSlowOnce, tools: [slow], store, leaseMs: LEASE_MS });
    let outcome: unknown;
    void executor.invoke({ input: "go" }, { runId: "cut-off" }).then(
      () => (outcome = "finished"),
      (error: unknown) => (outcome = error),
    );
    await until(() => seen.started);
    hang(); // cut off from the store while the tool runs
    await vi.advanceTimersByTimeAsync(LEASE_MS * 3);
    const leaseEnd = Math.max(...acked) + LEASE_MS; // as the recorder knows it: when the last acknowledged write was sent, plus the lease
    expect(seen.abortedAt).toBeDefined();
    expect(seen.abortedAt!).toBeLessThan(leaseEnd);
    // The run stopped at once: it did not wait for the hung write's storeTimeoutMs (10 s).
    expect(RunLeaseLostError.isInstance(outcome)).toBe(true);
    expect((outcome as Error).message).toMatch(/no write acknowledged for its whole lease \(300 ms\)/);
    expect(vi.getTimerCount()).toBe(1); // only the hung write's storeTimeoutMs timer
  });

  it("keeps a quiet run with a long tool alive on a healthy store: the heartbeat renews the lease", async () => {
    const { store, acked } = hangingStore();
    const { slow, seen } = slowTool(LEASE_MS * 10);
    const executor = new AgentExecutor({ agent: callsSlowOnce, tools: [slow], store, leaseMs: LEASE_MS });
    let outcome: unknown;
    void executor.invoke({ input: "go" }, { runId: "quiet" }).then(
      (result) => (outcome = result.output),
      (error: unknown) => (outcome = error),
    );
    await until(() => seen.started);
    const before = acked.length;
    await vi.advanceTimersByTimeAsync(LEASE_MS * 12);
    expect(outcome).toBe("answered");
    expect(seen.abortedAt).toBeUndefined();
    expect(acked.length - before).toBeGreaterThanOrEqual(25); // renewed about every leaseMs / 3 while the tool ran
    expect(vi.getTimerCount()).toBe(0); // no heartbeat, watchdog or store timer left once the run ended
  });

  it("leaves no timer behind once a run has paused", async () => {
    const { store } = hangingStore();
    const { slow } = slowTool();
    const executor = new AgentExecutor({ agent: callsSlowOnce, tools: [slow], store, leaseMs: LEASE_MS, needsApproval: () => true });
    const result = await executor.invoke({ input: "go" }, { runId: "paused" });
    expect(result.stopReason).toBe("interrupted");
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("RunRecorder lease keeping", () => {
  /** A recorder over a store whose writes answer after `latencyMs` (never, once `hang()` is called). */
  function recorderOver(latencyMs = 0) {
    const sent: number[] = [];
    const acked: number[] = [];
    const failures: unknown[] = [];
    let hung = false;
    const store = {
      write: (_runId: string, write: RunWrite) => {
        sent.push(write.at);
        if (hung) return new Promise<never>(() => undefined);
        if (latencyMs === 0) {
          acked.push(write.at);
          return Promise.resolve();
        }
        return new Promise<void>((resolve) =>
          setTimeout(() => {
            acked.push(write.at);
            resolve();
          }, latencyMs),
        );
      },
    } as unknown as RunStore;
    const recorder = new RunRecorder(store, "run-1", "owner-1", LEASE_MS, 0, { checkpoint: () => ({ schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools" }), onFailure: (error) => failures.push(error) }, 0, true, 10_000);
    return { recorder, sent, acked, failures, hang: () => void (hung = true) };
  }

  it("renews the lease within leaseMs / 3 of the last write, whatever the phase of that write", async () => {
    const { recorder, sent } = recorderOver();
    recorder.startHeartbeat();
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3 + 1); // just after the heartbeat's first renewal
    await recorder.flush(); // a write of the run's own
    await vi.advanceTimersByTimeAsync(LEASE_MS * 3);
    recorder.stop();
    const gaps = sent.slice(1).map((at, i) => at - sent[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(9);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(LEASE_MS / 3);
  });

  it("fails the run through onFailure before the lease it knows runs out, then refuses every write at once", async () => {
    const { recorder, acked, failures, hang } = recorderOver();
    recorder.startHeartbeat();
    recorder.checkLease(); // a tool starts
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    hang();
    let failedAt: number | undefined;
    while (failures.length === 0) {
      await vi.advanceTimersByTimeAsync(1);
      failedAt = Date.now();
    }
    expect(failedAt!).toBeLessThan(Math.max(...acked) + LEASE_MS);
    expect(failures).toHaveLength(1);
    expect(RunLeaseLostError.isInstance(failures[0])).toBe(true);
    expect(failures[0]).toMatchObject({ runId: "run-1", owner: "owner-1" });
    await expect(recorder.flush()).rejects.toBe(failures[0]);
    await expect(recorder.barrier()).rejects.toBe(failures[0]);
    expect(() => recorder.checkLease()).toThrow(failures[0] as Error);
    expect(vi.getTimerCount()).toBe(1); // only the hung write's storeTimeoutMs timer: no heartbeat, no watchdog
    await vi.advanceTimersByTimeAsync(10_000); // the hung write times out: the run failed once, with the lease
    expect(failures).toHaveLength(1);
    await expect(recorder.barrier()).rejects.toBe(failures[0]);
  });

  it("does not fail a run whose writes are slow but acknowledged within the lease", async () => {
    const { recorder, acked, failures } = recorderOver(LEASE_MS / 3);
    recorder.startHeartbeat();
    recorder.checkLease(); // a tool starts
    await vi.advanceTimersByTimeAsync(LEASE_MS * 10);
    recorder.stop();
    expect(failures).toEqual([]);
    expect(acked.length).toBeGreaterThanOrEqual(10);
  });

  it("does not fail a run that has started no tool when its first write takes longer than the lease; the first tool start arms the watchdog", async () => {
    const { recorder, failures, hang } = recorderOver();
    recorder.first(() => new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2))); // a cold store: connecting, migrating
    recorder.startHeartbeat();
    await vi.advanceTimersByTimeAsync(LEASE_MS * 3);
    expect(failures).toEqual([]); // nothing ran that the lease had to guard; the heartbeat's write after it renewed the lease
    recorder.checkLease(); // a tool starts
    hang();
    await vi.advanceTimersByTimeAsync(LEASE_MS * 2);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ name: "RunLeaseLostError", op: "lease" });
  });

  it("refuses to start a tool within the watchdog's margin of the lease's end", async () => {
    const { recorder, hang } = recorderOver();
    hang();
    recorder.flush().catch(() => undefined); // hangs: the lease is not renewed
    await vi.advanceTimersByTimeAsync(LEASE_MS - LEASE_MS / 10);
    expect(() => recorder.checkLease()).toThrow(/is about to have had no write acknowledged for its whole lease \(300 ms\), which runs out in 30 ms.*starts nothing more/);
  });

  it("leaves no timer once stopped, and never starts one when it was not started", async () => {
    const { recorder } = recorderOver();
    await recorder.flush();
    recorder.checkLease();
    expect(vi.getTimerCount()).toBe(0);
    recorder.startHeartbeat();
    recorder.checkLease();
    expect(vi.getTimerCount()).toBe(2);
    await vi.advanceTimersByTimeAsync(LEASE_MS * 2);
    recorder.stop();
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("RunRecorder lease keeping under load", () => {
  /** A recorder over a store whose writes answer only when told to (`ack`, `refuse`), or at once once `autoAck` is set. */
  function recorderOverControlledStore() {
    const writes: { write: RunWrite; ack(): void; refuse(error: unknown): void }[] = [];
    const failures: unknown[] = [];
    const control = { autoAck: false };
    const store = {
      write: (_runId: string, write: RunWrite) =>
        new Promise<void>((resolve, reject) => {
          writes.push({ write, ack: () => resolve(), refuse: reject });
          if (control.autoAck) resolve();
        }),
    } as unknown as RunStore;
    const recorder = new RunRecorder(store, "run-1", "owner-1", LEASE_MS, 0, { checkpoint: () => ({ schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools" }), onFailure: (error) => failures.push(error) }, 0, true, 10_000);
    recorder.epoch = 7;
    return { recorder, writes, failures, control };
  }

  it("queues no heartbeat behind a write in flight: the write renews the lease, and the heartbeat renews it when due after its acknowledgement", async () => {
    const { recorder, writes } = recorderOverControlledStore();
    const start = Date.now();
    recorder.startHeartbeat();
    await vi.advanceTimersByTimeAsync(10);
    recorder.flush().catch(() => undefined); // a write of the run's own, which the store is slow to answer
    await vi.advanceTimersByTimeAsync(240); // two heartbeats were due meanwhile (leaseMs / 3 after it was sent)
    expect(writes).toHaveLength(1);
    writes[0]!.ack();
    await vi.advanceTimersByTimeAsync(0);
    // It was sent long ago (240 ms): the heartbeat renews the lease right after its acknowledgement, once.
    expect(writes.map((entry) => entry.write.at - start)).toEqual([10, 250]);
    writes[1]!.ack();
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3 - 1);
    expect(writes).toHaveLength(2); // no second heartbeat was waiting behind the first write
    writes.at(-1)!.ack();
    await vi.advanceTimersByTimeAsync(1);
    expect(writes.map((entry) => entry.write.at - start)).toEqual([10, 250, 350]); // leaseMs / 3 after the last write was sent
    recorder.stop();
  });

  it("says a write has been in flight for so long when the store does not answer within the lease (a slow store, a saturated pool)", async () => {
    const { recorder, writes, failures } = recorderOverControlledStore();
    recorder.startHeartbeat();
    recorder.checkLease(); // a tool starts: the watchdog keeps the lease
    await vi.advanceTimersByTimeAsync(LEASE_MS * 2);
    expect(writes).toHaveLength(1); // the heartbeat's write, never answered
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ name: "RunLeaseLostError", op: "lease" });
    expect((failures[0] as Error).message).toMatch(/a write has been in flight for 170 ms without an answer: the store is slow or its connection pool is saturated; raise leaseMs \(300 ms\) or the pool size, or run fewer runs at once/i);
    expect((failures[0] as Error).message).not.toMatch(/event loop/);
  });

  it("does not blame a write sent a moment ago: after a process was frozen while a write waited, it says that write's answer came after the lease it renewed ran out", async () => {
    const { recorder, writes } = recorderOverControlledStore();
    recorder.flush().catch(() => undefined); // a write waits on the store ...
    await vi.advanceTimersByTimeAsync(0);
    vi.setSystemTime(Date.now() + LEASE_MS * 2); // ... while the process is frozen (SIGSTOP): no timer runs
    writes[0]!.ack(); // its answer is read on waking, the lease it renewed already over
    await vi.advanceTimersByTimeAsync(0);
    recorder.flush().catch(() => undefined); // the next write goes at once
    await vi.advanceTimersByTimeAsync(0);
    expect(writes).toHaveLength(2);
    let error: unknown;
    try {
      recorder.checkLease(); // a tool would start
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toMatchObject({ name: "RunLeaseLostError", op: "toolStart" });
    const message = (error as Error).message;
    expect(message).not.toMatch(/in flight for 0 ms/);
    expect(message).toMatch(/The last write acknowledged took 600 ms to be answered, so the lease it renewed had run out by then: the store was that slow, or this process was paused \(SIGSTOP/);
  });

  it("says when the store has acknowledged none of the run's writes", async () => {
    const { recorder, failures } = recorderOverControlledStore();
    recorder.first(() => new Promise<void>(() => undefined)); // creating the record hangs
    recorder.startHeartbeat();
    recorder.checkLease();
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).message).toMatch(/The store has acknowledged none of this run's writes from this process: is it reachable\?/);
  });

  it("after its watchdog failed the run, writes the run's end once (failed, lease released, no events, fenced by its epoch) without holding up the run's error", async () => {
    const { recorder, writes, failures } = recorderOverControlledStore();
    recorder.startHeartbeat();
    recorder.checkLease();
    await vi.advanceTimersByTimeAsync(LEASE_MS); // the heartbeat's write hangs; the watchdog fails the run
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ name: "RunLeaseLostError", op: "lease" });
    let rejected: unknown;
    recorder.flush({ status: "failed", error: "lease lost", release: true }).catch((error: unknown) => (rejected = error));
    await Promise.resolve();
    await Promise.resolve();
    expect(rejected).toBe(failures[0]); // at once: the hung write is still in flight
    expect(writes).toHaveLength(1);
    writes[0]!.refuse(new Error("timed out")); // the hung write ends: the end goes after it
    await vi.advanceTimersByTimeAsync(0);
    expect(writes.map((entry) => entry.write)).toEqual([expect.anything(), { owner: "owner-1", leaseMs: LEASE_MS, epoch: 7, events: [], update: { status: "failed", error: "lease lost", release: true }, at: expect.any(Number) }]);
    writes[1]!.refuse(new RunLeaseLostError({ runId: "run-1", owner: "owner-1", epoch: 7 })); // another process took it over: its failure is swallowed
    await vi.advanceTimersByTimeAsync(0);
    await expect(recorder.flush({ status: "failed", error: "again", release: true })).rejects.toBe(failures[0]);
    expect(writes).toHaveLength(2);
    expect(failures).toHaveLength(1);
  });
});
