import type { Redis } from "ioredis";
import { type WireItem, encodeWire } from "../internal/wire";

/**
 * Publishes what the runs of one worker send their followers, each run on its own channel. What is
 * sent while the event loop turns goes out together at the turn's end: one message a channel, and
 * one write to Redis for all of them (a pipeline). Many runs streaming tokens at once then cost a
 * write per turn of the loop instead of one per run and token (each write is a system call).
 * Messages of one channel keep their order: they go out in order on one connection.
 *
 * @internal
 */
export class WirePublisher {
  private pending = new Map<string, WireItem[]>();
  private scheduled = false;

  constructor(
    private readonly redis: Pick<Redis, "publish" | "pipeline">,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Queues `items` for `channel`; they go out at the end of this turn of the event loop (or at `flush`). */
  send(channel: string, items: readonly WireItem[]): void {
    const queued = this.pending.get(channel);
    if (queued === undefined) this.pending.set(channel, [...items]);
    else for (const item of items) queued.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  /** Publishes what is queued now. */
  readonly flush = (): void => {
    this.scheduled = false;
    const pending = this.pending;
    if (pending.size === 0) return;
    this.pending = new Map();
    if (pending.size === 1) {
      for (const [channel, items] of pending) this.redis.publish(channel, encodeWire(items)).catch(this.onError);
      return;
    }
    const pipeline = this.redis.pipeline();
    for (const [channel, items] of pending) pipeline.publish(channel, encodeWire(items));
    pipeline.exec().then((results) => {
      for (const [error] of results ?? []) if (error) this.onError(error);
    }, this.onError);
  };
}
