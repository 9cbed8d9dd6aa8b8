// One subscriber connection shared by every listener of a process: channels are subscribed while
// someone listens, and listeners hear when the connection came back (messages may have been lost
// meanwhile, so they catch up from the store). @internal
import type { Redis } from "ioredis";

type Listener = (message: string) => void;

export class ChannelHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  /** The pending SUBSCRIBE of each channel (resolved once Redis acknowledged it). */
  private readonly subscribed = new Map<string, Promise<unknown>>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly closeListeners = new Set<(error: Error) => void>();
  private connectedOnce = false;

  constructor(private readonly subscriber: Redis) {
    subscriber.on("message", (channel: string, message: string) => {
      const listeners = this.listeners.get(channel);
      if (listeners === undefined) return;
      for (const listener of [...listeners]) listener(message);
    });
    subscriber.on("ready", () => {
      if (!this.connectedOnce) {
        this.connectedOnce = true;
        return;
      }
      // ioredis says "ready" before it subscribes to the channels again: a PING answered after
      // those SUBSCRIBEs says they are heard, so a listener that reads the store then misses
      // nothing published after that read. (A connection lost again says "ready" again.)
      subscriber.ping().then(
        () => {
          for (const listener of [...this.reconnectListeners]) listener();
        },
        () => undefined,
      );
    });
    if (subscriber.status === "ready") this.connectedOnce = true;
  }

  /**
   * Listens on `channel`; resolves once Redis has acknowledged the subscription (so anything
   * published from then on is heard) with the function that stops listening.
   */
  async listen(channel: string, listener: Listener): Promise<() => void> {
    let listeners = this.listeners.get(channel);
    if (listeners === undefined) {
      this.listeners.set(channel, (listeners = new Set()));
      this.subscribed.set(channel, this.subscriber.subscribe(channel));
    }
    listeners.add(listener);
    const stop = () => {
      const current = this.listeners.get(channel);
      if (current === undefined || !current.delete(listener) || current.size > 0) return;
      this.listeners.delete(channel);
      this.subscribed.delete(channel);
      this.subscriber.unsubscribe(channel).catch(() => undefined);
    };
    try {
      await this.subscribed.get(channel);
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  /** Calls `listener` when the hub is closed under its listeners (the client closed). */
  onClose(listener: (error: Error) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Tells every close listener that the hub is closing. */
  closeAll(error: Error): void {
    for (const listener of [...this.closeListeners]) listener(error);
  }

  /** Calls `listener` whenever the subscriber connection is back after a disconnect, subscribed again. */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }
}
