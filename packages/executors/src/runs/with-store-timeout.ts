import { InvalidArgumentError, describeThrown } from "@agentrx/core";
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

/**
 * Runs a store call; an error that is not a `RunStoreError` (a custom store's) is wrapped in one
 * naming the run and the operation, but an `InvalidArgumentError` (the store refused an argument)
 * reaches the caller as it is.
 *
 * @internal
 */
export async function guarded<T>(operation: string, runId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (cause) {
    // A store refusing what it was given (an id too long, a NUL in it) names the caller's mistake:
    // not a failure of the store, and not to be retried as one.
    if (RunStoreError.isInstance(cause) || InvalidArgumentError.isInstance(cause)) throw cause;
    throw new RunStoreError({ operation, runId, message: `Run "${runId}": the store's ${operation} failed: ${describeThrown(cause, "the store")}`, cause });
  }
}
