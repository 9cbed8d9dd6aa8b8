/**
 * Decides which text of a run's model calls a follower shows, so that each character is shown
 * once whether it arrived live (a streamed token) or from the record (one coalesced `token` event
 * per model call), in whichever order the two arrive.
 *
 * Within a segment of the run (from one `start` event to the next), the text of an iteration's
 * model call is one string. Live tokens say at which offset of it they start; recorded tokens
 * cover it from the start, chunk after chunk. The merger remembers how much of each iteration's
 * text has been shown, from its start without a hole, and lets through only what goes beyond.
 * A follower that joined in the middle of a model call skips its live tokens (they have a hole
 * before them) and shows the call's text whole when its record arrives.
 *
 * @internal
 */
export class TokenMerger {
  private segment = 0;
  /** Characters shown per iteration, from the start of its text. */
  private readonly shown = new Map<number, number>();
  /** Characters of recorded token events seen per iteration. */
  private readonly recorded = new Map<number, number>();

  /** A `start` event (seq `segment`): a new segment's model calls begin. */
  startSegment(segment: number): void {
    this.segment = segment;
    this.shown.clear();
    this.recorded.clear();
  }

  /** A live token; returns the text to show (none when it was shown, or a hole comes before it). */
  live(segment: number, iteration: number, offset: number, text: string): string | undefined {
    if (segment !== this.segment) return undefined;
    const shown = this.shown.get(iteration) ?? 0;
    const end = offset + text.length;
    if (offset > shown || end <= shown) return undefined;
    this.shown.set(iteration, end);
    return text.slice(shown - offset);
  }

  /**
   * A recorded token event; returns the text to show (none when all of it was shown live). With
   * `show: false` (an event the follower had before it reconnected) it only counts as shown.
   */
  recordedToken(iteration: number, text: string, show = true): string | undefined {
    const start = this.recorded.get(iteration) ?? 0;
    const end = start + text.length;
    this.recorded.set(iteration, end);
    const shown = this.shown.get(iteration) ?? 0;
    if (end <= shown) return undefined;
    this.shown.set(iteration, end);
    if (!show) return undefined;
    return text.slice(Math.max(0, shown - start));
  }
}
