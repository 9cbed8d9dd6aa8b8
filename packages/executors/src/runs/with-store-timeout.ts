import { RunStoreError } from "./run-store-errors";

/**
 * `promise`, unless it takes longer than `timeoutMs`: then a `RunStoreError` with `reason:
 * "timeout"` naming the operation and the run. The timer never keeps the process alive.
 *
 * @internal
 */
export function withStoreTimeout<T>(promise: Promise<T>, timeoutMs: number, operation: string, runId: string | undefined): Promise<T> {
  if (!Number.isFinite(timeoutMs)) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new RunStoreError({
          operation,
          runId,
          reason: "timeout",
          message: `${runId === undefined ? "The run store" : `Run "${runId}"`}: the store's ${operation} did not answer within ${timeoutMs} ms (storeTimeoutMs); the run stops here and starts nothing more.`,
        }),
      );
    }, timeoutMs);
    (timer as { unref?: () => void }).unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
