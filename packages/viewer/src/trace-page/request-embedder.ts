import type { CappedText } from "./capped-text";
import type { TraceMessage, TraceRequest, TraceRequestParts, TraceRequestPartsUpdate, TraceRequestRef } from "./trace-data";
import type { ServerTraceEvent } from "./trace-event-converter";

/** Positions with each run of consecutive ones (`4, 5, 6`) as `[first, last]`. */
function runsOf(positions: readonly number[]): TraceRequestRef["messages"] {
  const out: TraceRequestRef["messages"] = [];
  for (let i = 0; i < positions.length; ) {
    const first = positions[i] as number;
    let j = i;
    while (j + 1 < positions.length && positions[j + 1] === (positions[j] as number) + 1) j++;
    out.push(j > i ? [first, first + (j - i)] : first);
    i = j + 1;
  }
  return out;
}

/**
 * Replaces each model call's `request` with a `requestRef` to its parts, and keeps those parts
 * each once (the converter gives a part the requests share as one object). Every request repeats
 * the conversation so far: embedded whole, a run of n calls would carry n² messages. Feed it a
 * run's events in order, from the first: a page's data (`readTracePage`) holds every part it
 * made, and a live page's updates (`TraceFollower`) each carry only the parts their events add
 * ({@link RequestEmbedder.takeNew}), at the same positions, so the page's parts grow as it
 * applies them.
 *
 * @internal
 */
export class RequestEmbedder {
  /** Every part made so far, in the order first used. */
  readonly parts: TraceRequestParts<CappedText> = { messages: [], texts: [] };
  private readonly messageIndex = new Map<TraceMessage<CappedText>, number>();
  private readonly textIndex = new Map<CappedText, number>();
  /** How many of `parts` were taken (sent) already. */
  private taken = { messages: 0, texts: 0 };

  /** `event` with its request (or its sub-run event's) as a `requestRef`; an event without one as it is. */
  embed<E extends ServerTraceEvent>(event: E): E {
    if (event.type === "sub_run") {
      const inner = this.embed(event.event);
      return inner === event.event ? event : { ...event, event: inner };
    }
    if (event.type !== "model_call" || event.request === undefined) return event;
    const { request, ...rest } = event;
    return { ...rest, requestRef: this.refOf(request) } as E;
  }

  /** Whether any part was made. */
  get isEmpty(): boolean {
    return this.parts.messages.length === 0 && this.parts.texts.length === 0;
  }

  /** The parts made since the last call (or since the first event), with their positions; `undefined` when there are none. */
  takeNew(): TraceRequestPartsUpdate<CappedText> | undefined {
    const { messages, texts } = this.parts;
    const from = this.taken;
    this.taken = { messages: messages.length, texts: texts.length };
    if (messages.length === from.messages && texts.length === from.texts) return undefined;
    return { messagesFrom: from.messages, textsFrom: from.texts, messages: messages.slice(from.messages), texts: texts.slice(from.texts) };
  }

  private refOf(request: TraceRequest<CappedText>): TraceRequestRef {
    const ref: TraceRequestRef = { hash: request.hash, messages: runsOf(request.messages.map((message) => this.indexOf(this.messageIndex, this.parts.messages, message))) };
    if (request.tools !== undefined) ref.tools = this.indexOf(this.textIndex, this.parts.texts, request.tools);
    if (request.toolCount !== undefined) ref.toolCount = request.toolCount;
    if (request.settings !== undefined) ref.settings = this.indexOf(this.textIndex, this.parts.texts, request.settings);
    return ref;
  }

  private indexOf<P>(index: Map<P, number>, list: P[], part: P): number {
    let at = index.get(part);
    if (at === undefined) index.set(part, (at = list.push(part) - 1));
    return at;
  }
}
