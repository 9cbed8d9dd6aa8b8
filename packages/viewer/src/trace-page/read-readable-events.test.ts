import { describe, expect, it } from "vitest";
import { RunStoreError, type RunInfo, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { readRecordedEvents } from "@agentrx/executors";
import { isUnreadableRunEvent, readReadableEvents, type ReadableRunEntry } from "./read-readable-events";

type Row = StoredRunEvent | { corrupt: string; seq: number };

/** A store of one run whose rows may be corrupt (reading one rejects, as SQLite's does) or missing. */
function storeOf(rows: Row[], eventCount: number, options: { down?: boolean } = {}): RunStore & { reads: number } {
  const info: RunInfo = { runId: "r", status: "failed", inputs: {}, createdAt: 500, updatedAt: 900, eventCount };
  const store = {
    reads: 0,
    async getRun(runId: string) {
      if (options.down) throw new Error("connection refused");
      return runId === "r" ? info : undefined;
    },
    async readEvents(_runId: string, { after = 0, limit = Infinity }: { after?: number; limit?: number } = {}) {
      store.reads++;
      if (options.down) throw new Error("connection refused");
      const page = rows.filter((row) => row.seq > after).slice(0, limit);
      const bad = page.find((row): row is { corrupt: string; seq: number } => "corrupt" in row);
      if (bad !== undefined) throw new RunStoreError({ operation: "readEvents", runId: "r", message: `TestStore: event ${bad.seq} of run "r" is corrupt: ${bad.corrupt}.` });
      return page as StoredRunEvent[];
    },
  };
  return store as unknown as RunStore & { reads: number };
}

const event = (seq: number, data: unknown = { type: "token", iteration: 0, text: "x" }): StoredRunEvent => ({ seq, type: "token", at: 1000 + seq, data: data as StoredRunEvent["data"] });

async function readAll(store: RunStore, pageSize?: number): Promise<ReadableRunEntry[]> {
  const entries: ReadableRunEntry[] = [];
  for await (const page of readReadableEvents(store, "r", "test", pageSize)) entries.push(...page);
  return entries;
}

const summary = (entries: ReadableRunEntry[]) => entries.map((entry) => (isUnreadableRunEvent(entry) ? `${entry.seq}! ${entry.error} @${entry.at}` : `${entry.seq}`));

describe("readReadableEvents", () => {
  it("puts every event it cannot read in its place and goes on: a corrupt row, data that is no object, a gap", async () => {
    const rows: Row[] = [event(1), event(2), { seq: 3, corrupt: "its data is not valid JSON (Unexpected token)" }, event(4), event(5, [1, 2]), event(7), event(8)];
    const entries = await readAll(storeOf(rows, 9), 4);
    expect(summary(entries)).toEqual([
      "1",
      "2",
      "3! its data is not valid JSON (Unexpected token) @1002",
      "4",
      "5! its data is not a JSON object @1004",
      "6! it is missing (the store returned event 7 after event 5) @1004",
      "7",
      "8",
      "9! it is missing (the run records 9 events, the store returned none after event 8) @1008",
    ]);
  });

  it("gives an unreadable first event the run's creation time, and rejects where the strict reader does", async () => {
    const store = storeOf([{ seq: 1, corrupt: "its data is not valid JSON (x)" }, event(2)], 2);
    expect(summary(await readAll(store))).toEqual(["1! its data is not valid JSON (x) @500", "2"]);
    const strict = async () => {
      for await (const _page of readRecordedEvents(store, "r", "replayRun"));
    };
    await expect(strict()).rejects.toThrow(/event 1 of run "r" is corrupt/);
  });

  it("finds a corrupt row in a long page by halves, not one event at a time", async () => {
    const rows: Row[] = Array.from({ length: 1000 }, (_, index) => (index === 700 ? { seq: 701, corrupt: "bad" } : event(index + 1)));
    const store = storeOf(rows, 1000);
    const entries = await readAll(store);
    expect(entries).toHaveLength(1000);
    expect(entries.filter(isUnreadableRunEvent).map((entry) => entry.seq)).toEqual([701]);
    expect(store.reads).toBeLessThan(40);
  });

  it("rejects when the store fails, not an event", async () => {
    const error = await readAll(storeOf([event(1)], 1, { down: true })).catch((caught: unknown) => caught);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('test: reading run "r" failed: connection refused');
    // The store goes away after the first page: a single event that cannot be read, and no run either.
    let reads = 0;
    let runs = 0;
    const going = storeOf([event(1), event(2)], 2);
    const readEvents = going.readEvents.bind(going);
    const getRun = going.getRun.bind(going);
    going.readEvents = async (runId, options) => (++reads > 1 ? Promise.reject(new Error("connection reset")) : readEvents(runId, { ...options, limit: 1 }));
    going.getRun = async (runId) => (++runs > 1 ? Promise.reject(new Error("connection reset")) : getRun(runId));
    const pages = readReadableEvents(going, "r", "test");
    expect(((await pages.next()).value as ReadableRunEntry[]).map((entry) => entry.seq)).toEqual([1]);
    const lost = await pages.next().catch((caught: unknown) => caught);
    expect(RunStoreError.isInstance(lost)).toBe(true);
    expect((lost as Error).message).toBe('test: reading the events of run "r" after event 1 failed: connection reset');
  });
});
