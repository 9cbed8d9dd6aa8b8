import { RunStoreError, type RunInfo, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { REPLAY_PAGE_SIZE, errorMessageOf as messageOf, recordedRunInfo } from "@agentrx/executors";

/**
 * An event of a run's record that cannot be read, in its place: a row the store cannot parse, data
 * that is not a JSON object, or a `seq` the store does not have (a gap in the record).
 */
export interface UnreadableRunEvent {
  /** The event's 1-based position in the run's record. */
  seq: number;
  /** Why it cannot be read, in a few words (`its data is not valid JSON (...)`). */
  error: string;
  /** Not recorded: the time of the readable event before it (or the run's creation), to place it. */
  at: number;
}

/** An event of a run's record as the viewers read it: the event, or why it cannot be read. */
export type ReadableRunEntry = StoredRunEvent | UnreadableRunEvent;

/**
 * Whether `entry` stands for an event that cannot be read.
 *
 * @example
 * ```ts
 * import { isUnreadableRunEvent, readReadableEvents } from "@agentrx/viewer/trace-page";
 * import type { RunStore } from "@agentrx/executors";
 * declare const store: RunStore;
 *
 * for await (const page of readReadableEvents(store, "run-1", "my viewer")) {
 *   for (const entry of page) if (isUnreadableRunEvent(entry)) console.warn(`event ${entry.seq}: ${entry.error}`);
 * }
 * ```
 */
export function isUnreadableRunEvent(entry: ReadableRunEntry): entry is UnreadableRunEvent {
  return !("data" in entry);
}

/**
 * Reads a run's record for a viewer, a chunk at a time from where it stopped, never failing on a
 * damaged event: each event it cannot read (the store rejects its row, its data is not an object,
 * its `seq` is missing) becomes an {@link UnreadableRunEvent}, and reading goes on with the next.
 * A page the store rejects is read again in halves down to single events, to find the bad one,
 * and the pages after it grow back to `limit`.
 *
 * It still rejects when the store itself fails (a single event cannot be read and `getRun` fails
 * too): that is not a damaged event. Replay and resume read strictly (`readRecordedEvents`).
 *
 * @internal
 */
export class ReadableEventReader {
  private lastAt: number;
  /** How many events to ask for at most: halved when the store rejects a page, doubled when it gives one. */
  private window = Infinity;

  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    private readonly operation: string,
    /** Events up to this `seq` are behind the reader. */
    public after: number,
    /** The time given to an unreadable event before any readable one: the run's creation. */
    createdAt: number,
  ) {
    this.lastAt = createdAt;
  }

  /**
   * The entries after the last one read, up to `last` (the run's event count), at most `limit`:
   * at least one while `after < last`.
   */
  async read(last: number, limit: number): Promise<ReadableRunEntry[]> {
    const want = Math.min(limit, this.window, last - this.after);
    if (want <= 0) return [];
    let page: StoredRunEvent[];
    try {
      page = await this.store.readEvents(this.runId, { after: this.after, limit: want });
    } catch (error) {
      this.window = Math.ceil(want / 2);
      if (want > 1) return this.read(last, limit);
      await this.checkStore(error);
      return [this.unreadable(this.after + 1, whyOf(error, this.after + 1))];
    }
    if (this.window !== Infinity) this.window = this.window >= limit ? Infinity : this.window * 2;
    const entries: ReadableRunEntry[] = [];
    const before = this.after;
    if (Array.isArray(page)) {
      for (const event of page) {
        const seq = (event as { seq?: unknown } | null)?.seq;
        if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq <= this.after) continue; // out of order: placed by seq or not at all
        if (seq > last || seq > before + want) break;
        while (this.after + 1 < seq) entries.push(this.unreadable(this.after + 1, `it is missing (the store returned event ${seq} after event ${this.after})`));
        if (event.data === null || typeof event.data !== "object" || Array.isArray(event.data)) {
          entries.push(this.unreadable(seq, "its data is not a JSON object"));
        } else {
          entries.push(event);
          if (typeof event.at === "number") this.lastAt = event.at;
        }
        this.after = seq;
      }
    }
    if (entries.length === 0) {
      // Nothing usable after `after`: the events up to what was asked for are missing.
      const why = `it is missing (the run records ${last} events, the store returned none after event ${before})`;
      while (this.after < before + want) entries.push(this.unreadable(this.after + 1, why));
    }
    return entries;
  }

  private unreadable(seq: number, error: string): UnreadableRunEvent {
    this.after = Math.max(this.after, seq);
    return { seq, error, at: this.lastAt };
  }

  /** A single event that cannot be read is a damaged event only if the store still answers. */
  private async checkStore(error: unknown): Promise<void> {
    let info: RunInfo | undefined;
    try {
      info = await this.store.getRun(this.runId);
    } catch {
      info = undefined;
    }
    if (info !== undefined) return;
    throw new RunStoreError({
      operation: this.operation,
      runId: this.runId,
      message: `${this.operation}: reading the events of run "${this.runId}" after event ${this.after} failed: ${messageOf(error)}`,
      cause: error,
    });
  }
}

/**
 * A recorded run's events for a viewer (`agentrx show`, `agentrx trace`, the trace page), page by
 * page in `seq` order up to the last event recorded when reading starts, with every event that
 * cannot be read in its place as an {@link UnreadableRunEvent}: one damaged event does not hide
 * the rest of the run. Rejects with `RunNotFoundError` for an unknown run and with a `RunStoreError`
 * when the store fails (not a single event).
 *
 * Not for replaying or resuming a run: those must not run on a damaged record, and read it with
 * `readRecordedEvents`, which rejects at the first bad event.
 *
 * @param store the store the run is recorded in
 * @param runId the run
 * @param operation what is reading, as errors name it (`agentrx show`)
 * @param pageSize events per `readEvents` call
 * @example
 * ```ts
 * import { isUnreadableRunEvent, readReadableEvents } from "@agentrx/viewer/trace-page";
 * import type { RunStore } from "@agentrx/executors";
 * declare const store: RunStore;
 *
 * let unreadable = 0;
 * for await (const page of readReadableEvents(store, "run-1", "my viewer")) unreadable += page.filter(isUnreadableRunEvent).length;
 * ```
 */
export async function* readReadableEvents(
  store: RunStore,
  runId: string,
  operation: string,
  pageSize: number = REPLAY_PAGE_SIZE,
): AsyncGenerator<ReadableRunEntry[], void, undefined> {
  const info = await recordedRunInfo(store, runId, operation);
  const reader = new ReadableEventReader(store, runId, operation, 0, info.createdAt);
  const last = info.eventCount;
  while (reader.after < last) yield await reader.read(last, pageSize);
}

/** Why event `seq` cannot be read, from the store's error: what follows "is corrupt:" when it says so. */
function whyOf(error: unknown, seq: number): string {
  const message = messageOf(error).trim();
  const match = new RegExp(`\\bevent ${seq} of run .* is corrupt: (.*)$`, "s").exec(message);
  return (match?.[1] ?? message).replace(/\.$/, "");
}
