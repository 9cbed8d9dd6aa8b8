import { afterEach, describe, expect, it, vi } from "vitest";
import { sleep } from "./sleep";

afterEach(() => {
  vi.useRealTimers();
});

/** Whether `promise` has settled once the pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

describe("sleep", () => {
  it("waits the whole time for a delay longer than one timer can hold (2^31 - 1 ms)", async () => {
    vi.useFakeTimers();
    const waited = sleep(2 ** 31 + 5);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(await settled(waited)).toBe(false);
    await vi.advanceTimersByTimeAsync(5);
    expect(await settled(waited)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waited)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("waits a delay of exactly 2^31 - 1 ms with one timer", async () => {
    vi.useFakeTimers();
    const waited = sleep(MAX_TIMER_MS);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS - 1);
    expect(await settled(waited)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waited)).toBe(true);
  });

  it.each([Number.MAX_SAFE_INTEGER, Infinity])("waits %s ms until aborted, then clears its timer", async (ms) => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waited = sleep(ms, controller.signal);
    await vi.advanceTimersByTimeAsync(3 * MAX_TIMER_MS);
    expect(await settled(waited)).toBe(false);
    // A pending wait holds one timer, as any wait does (it keeps the process alive until it ends).
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    await expect(waited).rejects.toMatchObject({ name: "AbortError" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the signal's reason, at once when it has already fired", async () => {
    const reason = new Error("stop");
    await expect(sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it("resolves at once for 0 or less", async () => {
    vi.useFakeTimers();
    expect(await settled(sleep(0))).toBe(true);
    expect(await settled(sleep(-5))).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
