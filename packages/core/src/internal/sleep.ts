import { AbortError } from "../errors/abort-error";

/** The longest delay one timer holds (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `ms` milliseconds; rejects with the signal's reason (or an `AbortError`) as soon as the
 * signal aborts, clearing the timer, so nothing is left to keep the process alive.
 *
 * A wait longer than one timer holds (2^31 - 1 ms) is waited in full, on timers of at most that
 * length one after the other; `Infinity` waits until the signal aborts (without a signal, for
 * ever). While it waits, its timer keeps the process alive, as any pending timer does. `ms` of 0
 * or less resolves at once; callers check that `ms` is not `NaN`.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    let left = ms;
    let timer: ReturnType<typeof setTimeout>;
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const wait = () => {
      const step = Math.min(left, MAX_TIMER_MS);
      left -= step; // Infinity stays Infinity
      // Named, so that tests can tell these timers from the HTTP client's own.
      timer =
        left > 0
          ? setTimeout(function sleepContinues() {
              wait();
            }, step)
          : setTimeout(function sleepEnded() {
              signal?.removeEventListener("abort", onAbort);
              resolve();
            }, step);
    };
    wait();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new AbortError();
}
