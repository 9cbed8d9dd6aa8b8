// One attempt of an OpenAIChatModel request: its own abort signal, aborted when the caller's
// signal aborts or when the attempt's deadline passes. The `openai` SDK's `timeout` covers the
// wait for the response's headers only; the deadline here also covers reading the body.

/** An attempt took longer than `ms` milliseconds, its body included. */
export class AttemptTimeout extends Error {
  constructor(readonly ms: number) {
    super(`No complete response within ${ms} ms.`);
    this.name = "AttemptTimeout";
  }
}

/** A running attempt; see {@link startAttempt}. */
export interface Attempt {
  /** The signal to hand to the SDK for this attempt. */
  readonly signal: AbortSignal;
  /** The error an attempt that failed with `error` reports: an {@link AttemptTimeout} when the deadline aborted it. */
  failure(error: unknown): unknown;
  /** Stops the deadline (the headers of a stream arrived: its idle timeout takes over). */
  clearDeadline(): void;
  /** Stops the deadline and detaches from the caller's signal; call it once the attempt is over. */
  release(): void;
}

/**
 * Starts an attempt that aborts when `callerSignal` aborts (with its reason) or after
 * `deadlineMs`. Nothing stays attached to `callerSignal` after `release()`, so many calls
 * under one long-lived signal do not pile up listeners on it.
 */
export function startAttempt(callerSignal: AbortSignal | undefined, deadlineMs: number | undefined): Attempt {
  const controller = new AbortController();
  let timeout: AttemptTimeout | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onAbort();
  else callerSignal?.addEventListener("abort", onAbort, { once: true });
  if (deadlineMs !== undefined && !controller.signal.aborted) {
    timer = setTimeout(() => {
      timeout = new AttemptTimeout(deadlineMs);
      controller.abort(timeout);
    }, deadlineMs);
  }
  const clearDeadline = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return {
    signal: controller.signal,
    failure: (error) => timeout ?? error,
    clearDeadline,
    release() {
      clearDeadline();
      callerSignal?.removeEventListener("abort", onAbort);
    },
  };
}
