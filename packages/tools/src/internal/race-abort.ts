import { AbortError } from "@agentrx/core";

/**
 * Settles like `work`, unless `signal` aborts first: then rejects at once with an AbortError (or
 * with the signal's reason when `keepReason(reason)` says so), even if `work` ignores the signal.
 * The listener is removed when either settles.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined, keepReason: (reason: unknown) => boolean = () => false): Promise<T> {
  if (!signal) return work;
  const toError = () => (keepReason(signal.reason) ? signal.reason : new AbortError({ reason: signal.reason }));
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(toError());
  }
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(toError());
    signal.addEventListener("abort", onAbort, { once: true });
  });
  work.catch(() => undefined); // a late failure after the abort is not unhandled
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}
