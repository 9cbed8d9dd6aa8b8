import { RunEventDecoder, errorMessageOf, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import type { RunRecord } from "@agentrx/runs";
import { isUnreadableRunEvent, readReadableEvents } from "../trace-page/read-readable-events";

/** A run the diff page cannot compare: its record is damaged there. */
export interface DamagedDiffRecord {
  runId: string;
  /** The first event that cannot be read or decoded, and why (`event 4 cannot be read: ...`). */
  problem: string;
}

/**
 * A run's record for the diff page, or why it cannot be compared. Unlike the trace page, which
 * shows a damaged record around its bad events, a comparison needs every event of both runs (one
 * missing step would read as a divergence), so a record with an event that cannot be read (a
 * damaged row, a gap in its `seq`) or decoded is refused, naming that event. Sub-runs' events are
 * left to `diffRuns`, which does not compare them. Rejects with `RunNotFoundError` for an unknown
 * run and a `RunStoreError` when the store fails.
 *
 * @internal
 */
export async function readDiffRecord(store: RunStore, runId: string): Promise<RunRecord | DamagedDiffRecord> {
  const events: StoredRunEvent[] = [];
  for await (const page of readReadableEvents(store, runId, "agentrx diff")) {
    for (const entry of page) {
      if (isUnreadableRunEvent(entry)) return { runId, problem: `event ${entry.seq} cannot be read: ${entry.error}` };
      events.push(entry);
    }
  }
  const decoder = new RunEventDecoder(runId);
  for (const stored of events) {
    if (stored.data["subRun"] !== undefined) continue;
    try {
      decoder.decode(stored);
    } catch (error) {
      return { runId, problem: `event ${stored.seq} cannot be decoded: ${errorMessageOf(error)}` };
    }
  }
  const run = await store.getRun(runId);
  if (run === undefined) return { runId, problem: "it was deleted while it was read" };
  return { run, events };
}

/** Whether `record` is a run the diff page cannot compare. @internal */
export function isDamagedDiffRecord(record: RunRecord | DamagedDiffRecord): record is DamagedDiffRecord {
  return "problem" in record;
}
