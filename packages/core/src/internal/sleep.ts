import { AbortError } from "../errors/abort-error";

/**
 * Waits `ms` milliseconds; rejects with the signal's reason (or an `AbortError`) as soon as the
 * signal aborts, clearing the timer, so nothing is left to keep the process alive.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    // Named, so that tests can tell these timers from the HTTP client's own.
    const timer = setTimeout(function sleepEnded() {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new AbortError();
}
