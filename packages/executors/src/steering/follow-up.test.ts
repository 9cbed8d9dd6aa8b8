import type { AgentStreamEvent, RunInfo, RunStore } from "@agentrx/executors";
import { Subscriber } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FOLLOW_UP_POLL_MS, type FollowUp, followUpOnThread } from "./follow-up";
import { RunFinishedError } from "./run-finished-error";

/** A store whose thread has the run `busy` going on while `running()` says so; its inbox refuses messages once `ending()`. */
function storeWith({ running, ending }: { running: () => boolean; ending: () => boolean }): RunStore {
  const busy = { runId: "busy", threadId: "t", status: "running", eventCount: 3 } as RunInfo;
  // Only what a follow-up calls does anything; the rest make it a RunStore (sends check that).
  const unused = async () => {
    throw new Error("not called by a follow-up");
  };
  return {
    createRun: unused,
    claimRun: unused,
    write: unused,
    getRun: async () => busy,
    readEvents: async () => [],
    listRuns: async () => (running() ? [busy] : []),
    appendThreadMessages: async () => [1],
    appendRunMessage: async (runId: string) => {
      if (ending()) throw new RunFinishedError({ runId });
      return { inboxSeq: 1, status: "running" };
    },
  } as unknown as RunStore;
}

function follow(policy: FollowUp, store: RunStore) {
  const errors: unknown[] = [];
  let started = 0;
  const subscriber = new Subscriber<AgentStreamEvent>({ next: () => undefined, error: (error: unknown) => void errors.push(error), complete: () => undefined });
  const teardown = followUpOnThread({
    policy,
    store,
    threadId: "t",
    runId: "new",
    inputs: { input: "Rome too" },
    storeTimeoutMs: 1000,
    subscriber,
    start: () => {
      started++;
      return () => undefined;
    },
  });
  return { teardown, errors, started: () => started };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("followUpOnThread", () => {
  it('"interrupt": a run that is ending as the input comes (its inbox closed) does not fail the input: it runs once that run ended', async () => {
    vi.useFakeTimers();
    let running = true;
    const { errors, started } = follow("interrupt", storeWith({ running: () => running, ending: () => true }));
    await vi.advanceTimersByTimeAsync(0);
    expect(started()).toBe(0); // the thread's run is still writing its answer
    running = false;
    await vi.advanceTimersByTimeAsync(FOLLOW_UP_POLL_MS);
    expect(errors).toEqual([]);
    expect(started()).toBe(1);
  });

  it('"interrupt": a followed run whose process stops (its lease expires, nothing more recorded) fails the input instead of waiting forever', async () => {
    vi.useFakeTimers();
    const leaseExpiresAt = Date.now() + FOLLOW_UP_POLL_MS * 3;
    const busy = { runId: "busy", threadId: "t", status: "running", eventCount: 3, leaseExpiresAt } as RunInfo;
    const store = {
      ...storeWith({ running: () => true, ending: () => false }),
      listRuns: async () => (Date.now() < leaseExpiresAt ? [busy] : []),
      // The run's three events so far (all before the input: nothing to forward), then nothing more.
      readEvents: async (_runId: string, { after }: { after: number }) => [1, 2, 3].filter((seq) => seq > after).map((seq) => ({ runId: "busy", seq, type: "token", at: 0, data: { type: "token", runId: "busy", token: "x", at: 0 } })),
      getRun: async () => busy,
    } as unknown as RunStore;
    const { errors, started } = follow("interrupt", store);
    await vi.advanceTimersByTimeAsync(FOLLOW_UP_POLL_MS * 2);
    expect(errors).toEqual([]); // the lease still holds: the run may go on
    await vi.advanceTimersByTimeAsync(FOLLOW_UP_POLL_MS * 2);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/sent to run "busy" \(inbox position 1\), which then stopped acting \(its process let its lease expire at .*\) before it answered; resume it/);
    expect(vi.getTimerCount()).toBe(0);
    expect(started()).toBe(0);
  });

  it('"queue": unsubscribing while the input waits leaves no timer behind, and starts nothing', async () => {
    vi.useFakeTimers();
    const { teardown, started } = follow("queue", storeWith({ running: () => true, ending: () => false }));
    await vi.advanceTimersByTimeAsync(FOLLOW_UP_POLL_MS * 2);
    expect(vi.getTimerCount()).toBe(1);
    teardown();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(FOLLOW_UP_POLL_MS * 2);
    expect(started()).toBe(0);
  });
});
