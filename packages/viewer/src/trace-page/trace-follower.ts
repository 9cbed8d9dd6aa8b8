import { RunNotFoundError, type RunStore } from "@agentrx/executors";
import type { TraceUpdate } from "./trace-data";
import { traceRunOf } from "./read-trace-page";
import { ReadableEventReader } from "./read-readable-events";
import { TraceEventConverter, type ServerTraceEvent } from "./trace-event-converter";
import { RequestEmbedder } from "./request-embedder";

/** Events read per `readEvents` call while following a run. */
const PAGE_SIZE = 500;

/**
 * Follows a run's record for a live page: each `poll()` reads the events recorded since the last
 * one and the run's row. Events up to `after` (what the page has already) are decoded but not
 * returned: the decoder needs every event from the first. Each text is cut to `textLimit`
 * characters (the page fetches a whole text on demand). An event that cannot be read is sent as an
 * `other` event with an `error`, and following goes on (see {@link ReadableEventReader}). A model
 * call's request (`recordPrompts`) is sent as a `requestRef`, with only the request parts no
 * earlier event used (those up to `after` the page has: `readTracePage` made them the same way,
 * see {@link RequestEmbedder}): each request repeats the conversation so far, and sent whole, a
 * long run's stream would grow with the square of its calls.
 *
 * @internal
 */
export class TraceFollower {
  private readonly converter: TraceEventConverter;
  private reader: ReadableEventReader | undefined;
  private readonly embedder = new RequestEmbedder();

  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    private after: number,
    private readonly textLimit = 200_000,
  ) {
    this.converter = new TraceEventConverter(runId, { tokenText: true });
  }

  /** The new events and the run's row; `done` once the run no longer runs and every event was sent. */
  async poll(): Promise<TraceUpdate & { done: boolean }> {
    const info = await this.store.getRun(this.runId);
    if (info === undefined) throw new RunNotFoundError({ operation: "agentrx ui", runId: this.runId });
    const reader = (this.reader ??= new ReadableEventReader(this.store, this.runId, "agentrx ui", 0, info.createdAt));
    const events: ServerTraceEvent[] = [];
    while (reader.after < info.eventCount) {
      for (const entry of await reader.read(info.eventCount, PAGE_SIZE)) {
        const event = this.embedder.embed(this.converter.convert(entry));
        if (entry.seq > this.after) events.push(event);
        else this.embedder.takeNew(); // the page has this event's parts
      }
      if (events.length >= PAGE_SIZE) break; // send what we have; the next poll goes on
    }
    for (const text of this.converter.texts.splice(0)) text.limit = this.textLimit;
    for (const text of this.converter.requestTexts.splice(0)) text.limit = Math.min(this.textLimit, 20_000);
    this.after = Math.max(this.after, reader.after);
    const live = info.status === "running" || info.status === "queued";
    const requestParts = this.embedder.takeNew() as TraceUpdate["requestParts"];
    const update = { run: traceRunOf(info), events: events as TraceUpdate["events"], ...(requestParts === undefined ? {} : { requestParts }) };
    return { ...update, done: !live && reader.after >= info.eventCount };
  }
}
