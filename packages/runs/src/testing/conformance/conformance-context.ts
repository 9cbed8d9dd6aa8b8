import type { JsonObject, RunCheckpoint, RunStore, StoredRunEvent } from "@agentrx/executors";
import type { RunStoreConformanceOptions } from "../run-store-conformance";

/** What every group of conformance tests gets: the store under test and small fixtures. */
export interface ConformanceContext {
  options: RunStoreConformanceOptions;
  /** The store opened before the tests (throws before then). */
  store(): RunStore;
  /** An id unique to this suite run: `${prefix}-${random}-${n}`. */
  id(prefix?: string): string;
  /**
   * The start of a time window (epoch ms) that no other test uses: runs created in
   * `[t, t + 1_000_000)` can be listed by time without seeing another test's runs.
   */
  window(): number;
}

let windows = 0;

export function conformanceContext(options: RunStoreConformanceOptions, store: () => RunStore): ConformanceContext {
  const suite = Math.random().toString(36).slice(2, 8);
  let ids = 0;
  return {
    options,
    store,
    id: (prefix = "run") => `${prefix}-${suite}-${++ids}`,
    // From 2033 on, one window of 10^7 ms (under 3 hours) per call.
    window: () => 2_000_000_000_000 + ++windows * 10_000_000,
  };
}

/** `count` events with seq `from`, `from + 1`, ...; each one's data holds its seq, type and time. */
export function someEvents(from: number, count: number, at: number, extra: JsonObject = {}): StoredRunEvent[] {
  return Array.from({ length: count }, (_, index) => {
    const seq = from + index;
    const type = seq === 1 ? "start" : "step";
    return { seq, type, at: at + index, data: { type, at: at + index, seq, ...extra } };
  });
}

/** A checkpoint as an executor writes it. */
export function someCheckpoint(iteration: number): RunCheckpoint {
  return {
    schemaVersion: 1,
    iteration,
    elapsedMs: iteration * 150,
    usage: { input_tokens: 10 * iteration, output_tokens: 5 * iteration, total_tokens: 15 * iteration },
    phase: iteration % 2 === 0 ? "act" : "plan",
  };
}

/** The error `promise` rejects with; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected the call to reject, but it resolved");
}
