import { describeThrown, refusePromise } from "@agentrx/core";

/**
 * The worker's `onError` made safe to call from anywhere (an `'error'` listener, a promise's
 * `.catch`, a job's processor): one that throws, or returns a Promise that rejects, crashes nothing;
 * the error it was given and its own failure go to `console.error` instead.
 *
 * @internal
 */
export function guardOnError(onError: (error: unknown) => unknown): (error: unknown) => void {
  const failed = (how: "threw" | "rejected", error: unknown, failure: unknown) =>
    console.error(`@agentrx/bullmq worker: onError ${how} (${describeThrown(failure, "onError")}) while reporting:`, error);
  return (error) => {
    let result: unknown;
    try {
      result = onError(error);
    } catch (failure) {
      failed("threw", error, failure);
      return;
    }
    refusePromise(result, (failure) => failed("rejected", error, failure));
  };
}
