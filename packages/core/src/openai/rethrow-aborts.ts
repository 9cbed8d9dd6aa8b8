import { AbortError } from "../errors/abort-error";

/** The `AbortError` for an aborted signal: its reason when that is one, else one carrying it. */
export function abortErrorOf(signal: AbortSignal): AbortError {
  return AbortError.isInstance(signal.reason) ? signal.reason : new AbortError({ reason: signal.reason });
}

/**
 * Passes `source` through, turning any failure after `signal` aborted into its `AbortError`
 * (`@langchain/core` rejects an aborted `stream()` with a plain `Error` of the reason's text).
 */
export async function* rethrowAborts<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (error) {
    throw signal.aborted ? abortErrorOf(signal) : error;
  }
}
