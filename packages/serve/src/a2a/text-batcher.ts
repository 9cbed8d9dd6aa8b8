// Streamed answer text, gathered into the A2A artifact updates of a task (see ExecutorA2AAgent). @internal

/**
 * How long streamed text is gathered before it goes out as one artifact update (ms). The SDK copies
 * and saves the whole task on every update, so one update per token is quadratic in the answer's
 * length; batching bounds the updates by the time the answer takes, not by its tokens.
 */
const TEXT_FLUSH_MS = 50;

/** Gathered text this long (characters) goes out at once, so one update (and one SSE frame) stays small. */
const TEXT_FLUSH_CHARS = 32 * 1024;

/**
 * Gathers streamed text and sends it in chunks: the first as soon as the current turn of the event
 * loop is over (so a burst of tokens is one chunk), then at most one every {@link TEXT_FLUSH_MS}
 * unless {@link TEXT_FLUSH_CHARS} are waiting.
 */
export class TextBatcher {
  private pending = "";
  private sent = false;
  private lastSent = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly send: (chunk: string, first: boolean) => void) {}

  add(text: string): void {
    if (text === "") return;
    this.pending += text;
    if (this.pending.length >= TEXT_FLUSH_CHARS) return this.flush();
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastSent + TEXT_FLUSH_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Sends what is gathered now. */
  flush(): void {
    this.cancelTimer();
    if (this.pending === "") return;
    const chunk = this.pending;
    this.pending = "";
    this.lastSent = Date.now();
    this.send(chunk, !this.sent);
    this.sent = true;
  }

  /** Forgets what is gathered (the task was cancelled). */
  discard(): void {
    this.cancelTimer();
    this.pending = "";
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
