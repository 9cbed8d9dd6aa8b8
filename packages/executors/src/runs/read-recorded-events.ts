import { describeThrown } from "@agentrx/core";
import { RunNotFoundError, RunStoreError } from "./run-store-errors";
import type { RunInfo, RunStore, StoredRunEvent } from "./run-store";

/** How many events one `readEvents` call asks for. @internal */
export const REPLAY_PAGE_SIZE = 500;

/**
 * A recorded run's events, page by page (at most `pageSize` per `readEvents` call), in `seq`
 * order from the first, up to the last event recorded when reading starts: a run still being
 * recorded ends where its record ended then. Each page is checked (consecutive `seq`, an object
 * `data`) before it is yielded.
 *
 * Rejects with `RunNotFoundError` for an unknown run, and with a `RunStoreError` naming `operation`,
 * the run and the event for a store failure or a corrupt or missing event (the store's error is the
 * `cause`).
 *
 * @internal
 */
export async function* readRecordedEvents(
  store: RunStore,
  runId: string,
  operation: string,
  pageSize: number = REPLAY_PAGE_SIZE,
  /** The run's row, when the caller has read it already (see {@link recordedRunInfo}). */
  info?: RunInfo,
): AsyncGenerator<StoredRunEvent[], void, undefined> {
  const last = (info ?? (await recordedRunInfo(store, runId, operation))).eventCount;
  let after = 0;
  while (after < last) {
    let page: StoredRunEvent[];
    try {
      page = await store.readEvents(runId, { after, limit: Math.min(pageSize, last - after) });
    } catch (cause) {
      // Its reason goes on (a damaged event is "corrupt", a store that did not answer "timeout"): it says whether a retry can help.
      const reason = RunStoreError.isInstance(cause) ? cause.reason : undefined;
      throw new RunStoreError({
        operation,
        runId,
        message: `${operation}: reading the events of run "${runId}" after event ${after} failed: ${messageOf(cause)}`,
        cause,
        ...(reason === undefined ? {} : { reason }),
      });
    }
    if (!Array.isArray(page) || page.length === 0) {
      throw corrupt(operation, runId, after + 1, `it is missing (the run records ${last} events, the store returned none after event ${after})`);
    }
    page = page.slice(0, last - after); // a store that returns more than asked for
    for (const event of page) {
      const seq = after + 1;
      if (event === null || typeof event !== "object" || event.seq !== seq) {
        throw corrupt(operation, runId, seq, `it is missing or out of order (the store returned ${describeSeq(event)} after event ${after})`);
      }
      if (event.data === null || typeof event.data !== "object" || Array.isArray(event.data)) {
        throw corrupt(operation, runId, seq, "its data is not a JSON object");
      }
      after = seq;
    }
    yield page;
  }
}

/**
 * The row of a run whose record is about to be read: rejects with `RunNotFoundError` for an unknown
 * run and with a `RunStoreError` naming `operation` when the store fails.
 *
 * @internal
 */
export async function recordedRunInfo(store: RunStore, runId: string, operation: string): Promise<RunInfo> {
  let info: RunInfo | undefined;
  try {
    info = await store.getRun(runId);
  } catch (cause) {
    throw new RunStoreError({ operation, runId, message: `${operation}: reading run "${runId}" failed: ${messageOf(cause)}`, cause });
  }
  if (info === undefined) throw new RunNotFoundError({ operation, runId });
  return info;
}

/** A `RunStoreError` saying that event `seq` of the run is corrupt, and why. @internal */
export function corrupt(operation: string, runId: string, seq: number, why: string, cause?: unknown): RunStoreError {
  return new RunStoreError({ operation, runId, reason: "corrupt", message: `${operation}: event ${seq} of run "${runId}" is corrupt: ${why}.`, cause });
}

/**
 * The message of an error, or any other thrown value as text: an object's string `message` (so a
 * store's `{ message: "quota exceeded", status: 429 }` reads `quota exceeded`), else its own
 * string, else its JSON. It never throws. @internal
 */
export function messageOf(error: unknown): string {
  return describeThrown(error);
}

function describeSeq(event: unknown): string {
  const seq = (event as { seq?: unknown } | null)?.seq;
  return typeof seq === "number" ? `event ${seq}` : "an event without a seq";
}
