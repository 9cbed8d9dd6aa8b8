/** Resolves after `ms`, or rejects with the signal's reason when it aborts first (as the scripted LangChain model's latency does). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Resolves at `due` (a `performance.now()` time), at once when it has passed: a schedule of such
 * waits keeps its pace however late each wake-up is, as a provider's stream does.
 */
export function sleepUntil(due: number, signal?: AbortSignal): Promise<void> {
  const ms = due - performance.now();
  if (ms > 0) return sleep(ms, signal);
  return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
}
