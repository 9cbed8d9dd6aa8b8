import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RunRecorder } from "./run-recorder";
import type { RunStore, RunWrite } from "./run-store";

// A blocked event loop (a tool busy-looping, a large JSON.parse, a paused process) makes the
// lease's timers run late, both in the same pass once it unblocks: the heartbeat sends its write,
// then the watchdog runs before that write's answer can be read. Such a run is not failed while its
// lease lasts; a process whose store does not answer is still stopped at the watchdog's margin.
//
// Fake timers, and a clock of our own: `pass` lets time pass as the event loop turns (each timer
// runs when due), `stall` blocks the loop (time jumps, then every overdue timer runs, late, in the
// order they were due, seeing the time after the block).

const LEASE_MS = 300; // the watchdog's margin: 30 ms; the heartbeat: every 100 ms

let now = 0;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  now = 1_000_000;
  vi.spyOn(Date, "now").mockImplementation(() => now);
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

async function pass(ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    now++;
    await vi.advanceTimersByTimeAsync(1);
  }
}

/** Lets what is ready run (promise callbacks), with no time passing. */
async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0);
}

async function stall(ms: number): Promise<void> {
  now += ms;
  await vi.advanceTimersByTimeAsync(ms);
}

/** A recorder, its lease taken now, over a store whose writes answer when told to (`ack`), or at once once `autoAck` is set. */
function recorderOverControlledStore() {
  const writes: { write: RunWrite; ack(): void }[] = [];
  const failures: unknown[] = [];
  const control = { autoAck: false };
  const store = {
    write: (_runId: string, write: RunWrite) =>
      new Promise<void>((resolve) => {
        writes.push({ write, ack: () => resolve() });
        if (control.autoAck) resolve();
      }),
  } as unknown as RunStore;
  const recorder = new RunRecorder(store, "run-1", "owner-1", LEASE_MS, 0, { checkpoint: () => ({ schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools" }), onFailure: (error) => failures.push(error) }, 0, true, 10_000);
  recorder.startHeartbeat();
  recorder.checkLease(); // a tool starts: the watchdog keeps the lease
  return { recorder, writes, failures, control, start: now };
}

describe("RunRecorder after a blocked event loop", () => {
  it("does not fail a run whose heartbeat, sent late after the block, is acknowledged before the lease runs out", async () => {
    const { recorder, writes, failures, control, start } = recorderOverControlledStore();
    await stall(290); // past the watchdog's margin (at 270), before the lease's end (300)
    expect(writes.map((entry) => entry.write.at - start)).toEqual([290]); // the heartbeat's write, late
    await pass(5);
    writes[0]!.ack();
    control.autoAck = true;
    await pass(LEASE_MS * 3);
    expect(failures).toEqual([]);
    recorder.stop();
  });

  it("does not fail a run whose own write, sent before the block, is acknowledged after it", async () => {
    const { recorder, writes, failures, control, start } = recorderOverControlledStore();
    await pass(10);
    recorder.flush().catch(() => undefined);
    await settle();
    await stall(280); // the watchdog runs 20 ms late, within its margin
    expect(writes.map((entry) => entry.write.at - start)).toEqual([10]); // no heartbeat behind it
    writes[0]!.ack(); // its answer, read once the loop turns: the lease runs until 310; the heartbeat renews it at once
    await settle();
    expect(writes.map((entry) => entry.write.at - start)).toEqual([10, 290]);
    await pass(5);
    writes[1]!.ack();
    control.autoAck = true;
    await pass(LEASE_MS * 3);
    expect(failures).toEqual([]);
    recorder.stop();
  });

  it("does not fail a run whose heartbeat, sent late by a block that ended before the margin, is acknowledged within the margin", async () => {
    const { recorder, writes, failures, control, start } = recorderOverControlledStore();
    await stall(200); // the heartbeat, due at 100, runs 100 ms late
    expect(writes.map((entry) => entry.write.at - start)).toEqual([200]);
    await pass(85); // the watchdog runs on time (at 270), its write still in flight: it waits until 300
    expect(failures).toEqual([]);
    writes[0]!.ack();
    control.autoAck = true;
    await pass(LEASE_MS * 3);
    expect(failures).toEqual([]);
    recorder.stop();
  });

  it("fails the run at the lease's end when the write sent after the block is not acknowledged by then, saying the event loop was blocked", async () => {
    const { writes, failures } = recorderOverControlledStore();
    await stall(290);
    expect(writes).toHaveLength(1);
    await pass(9);
    expect(failures).toEqual([]); // the lease lasts until 300
    await pass(1);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ name: "RunLeaseLostError", op: "lease" });
    expect((failures[0] as Error).message).toMatch(/has had no write acknowledged for its whole lease \(300 ms\)/);
    expect((failures[0] as Error).message).toMatch(/The event loop was blocked for at least 190 ms \(the lease's timers ran that late; a block that began before they were due lasted longer\): a tool or other code blocked the process/);
    // The write sent after the block waited 10 ms: not long enough to blame the store for.
    expect((failures[0] as Error).message).not.toMatch(/in flight/);
  });

  it("fails the run at once when the block outlasted the lease", async () => {
    const { writes, failures } = recorderOverControlledStore();
    await stall(LEASE_MS + 10);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ name: "RunLeaseLostError", op: "lease" });
    expect((failures[0] as Error).message).toMatch(/The event loop was blocked for at least 210 ms \(the lease's timers ran that late/);
    writes[0]?.ack(); // too late: the run stays failed
    await pass(1);
    expect(failures).toHaveLength(1);
  });

  it("still stops a run whose store does not answer at the watchdog's margin when the event loop was not blocked", async () => {
    const { writes, failures, start } = recorderOverControlledStore();
    await pass(269);
    expect(failures).toEqual([]);
    await pass(1);
    expect(writes.map((entry) => entry.write.at - start)).toEqual([100]); // the heartbeat's write, never answered
    expect(failures).toHaveLength(1);
    expect(now - start).toBe(LEASE_MS - LEASE_MS / 10);
  });
});
