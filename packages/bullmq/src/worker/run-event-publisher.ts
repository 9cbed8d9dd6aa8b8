import { type AgentStreamEvent, type StoredRunEvent, encodeRunEvent } from "@agentrx/executors";
import { type LiveToken, RECORD_ONLY_TYPES, type SubRunEvent, type WireItem } from "../internal/wire";

/**
 * Turns one run segment into messages for its channel, in the order the run emitted its events.
 *
 * Recorded events are published from the store's writes, once they are in the store, with their
 * `seq` (so a client never sees an event the record does not have). Live tokens are published as
 * they stream, without a `seq`, but never ahead of an event emitted before them: a token waits
 * until every earlier event is written and published. Tokens of sub-runs (executors called as
 * tools), which the record does not keep, travel the same way as tokens; their other events are
 * recorded by the calling run and published from its writes. Record-only entries travel as stubs (their
 * `seq` and type), so a client's position moves past them.
 *
 * @internal
 */
export class RunEventPublisher {
  /** Events other than tokens the run emitted so far. */
  private emittedCount = 0;
  /** Events other than tokens (and record-only entries) published so far. */
  private publishedCount = 0;
  /** The `seq` of this segment's `start` event, once written. */
  private segment = 0;
  /** Characters streamed so far per iteration, in this segment. */
  private readonly offsets = new Map<number, number>();
  /** Live items waiting for the events emitted before them (`needs` of them published). */
  private waiting: { needs: number; item: Omit<LiveToken, "segment"> | { sub: SubRunEvent } }[] = [];

  constructor(private readonly send: (items: WireItem[]) => void) {}

  /** An event the run emitted (call for every event, in order). */
  emitted(event: AgentStreamEvent): void {
    if (event.subRun !== undefined && event.type === "token") {
      // A sub-run's tokens are not recorded: they go live, in order.
      const { subRun: path, subRunCallIds: callIds, ...own } = event;
      this.live({ sub: { path, ...(callIds === undefined ? {} : { callIds }), data: encodeRunEvent(own as AgentStreamEvent) } });
      return;
    }
    // Every other event (a sub-run's too: the calling run records them) is published from its write.
    if (event.type !== "token") {
      this.emittedCount++;
      return;
    }
    const offset = this.offsets.get(event.iteration) ?? 0;
    this.offsets.set(event.iteration, offset + event.text.length);
    this.live({ iteration: event.iteration, offset, text: event.text, at: event.at });
  }

  /** Events a write put in the store (call after each successful write, in order). */
  written(events: readonly StoredRunEvent[]): void {
    const items: WireItem[] = [];
    for (const event of events) {
      if (RECORD_ONLY_TYPES.has(event.type)) {
        items.push({ seq: event.seq, type: event.type });
        continue;
      }
      items.push(event);
      if (event.type === "token") continue;
      this.publishedCount++;
      if (event.type === "start" && event.data?.["subRun"] === undefined) this.segment = event.seq; // not a sub-run's start
      while (this.waiting.length > 0 && (this.waiting[0]?.needs ?? Infinity) <= this.publishedCount) {
        const { item } = this.waiting.shift() as { item: Omit<LiveToken, "segment"> | { sub: SubRunEvent } };
        items.push(this.wire(item));
      }
    }
    if (items.length > 0) this.send(items);
  }

  /** Publishes a live item now, or once the events emitted before it are published. */
  private live(item: Omit<LiveToken, "segment"> | { sub: SubRunEvent }): void {
    if (this.waiting.length === 0 && this.publishedCount >= this.emittedCount) this.send([this.wire(item)]);
    else this.waiting.push({ needs: this.emittedCount, item });
  }

  private wire(item: Omit<LiveToken, "segment"> | { sub: SubRunEvent }): WireItem {
    return "sub" in item ? item : { live: { segment: this.segment, ...item } };
  }
}
