// OpenAIChatModel's own retry loop. The `openai` SDK (v6) obeys `Retry-After` without a bound and
// sleeps on a timer that no signal can end, so the model asks the SDK for one attempt at a time
// and waits between attempts itself.
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { sleep } from "../internal/sleep";
import { retryDelayMs } from "./retry-delay";
import { AttemptTimeout } from "./start-attempt";

/** Options of {@link withRetries}. */
export interface RetryOptions {
  /** How many times a failed attempt is retried. */
  maxRetries: number;
  /** The cap on one wait. */
  maxRetryDelayMs: number;
  /** Aborting it ends a wait at once, rejecting with the signal's reason and clearing the timer. */
  signal: AbortSignal | undefined;
}

/** How many attempts were made when {@link withRetries} gave up with an error. */
const ATTEMPTS = new WeakMap<object, number>();

/** How many attempts {@link withRetries} made before it rethrew `error` (undefined: it did not). */
export function attemptsOf(error: unknown): number | undefined {
  return typeof error === "object" && error !== null ? ATTEMPTS.get(error) : undefined;
}

/**
 * Runs `attempt` until it succeeds, fails with an error not worth retrying (see
 * {@link isRetryable}), or has failed `maxRetries + 1` times; the last error is rethrown.
 * Between two attempts it waits {@link retryDelayMs}.
 */
export async function withRetries<T>(attempt: () => Promise<T>, { maxRetries, maxRetryDelayMs, signal }: RetryOptions): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= maxRetries || signal?.aborted || !isRetryable(error)) {
        if (typeof error === "object" && error !== null) ATTEMPTS.set(error, retry + 1);
        throw error;
      }
      const headers = error instanceof APIError ? error.headers : undefined;
      await sleep(retryDelayMs(headers, { retry, maxRetryDelayMs }), signal);
    }
  }
}

/**
 * Whether a failed attempt is worth another: a connection error or a timeout, or a response the
 * SDK would retry (`x-should-retry: true`, or 408, 409, 429 or 5xx unless `x-should-retry: false`).
 * An abort never is, nor a 429 that says the account's quota is spent (`insufficient_quota`:
 * waiting does not refill it).
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof AttemptTimeout || error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError) || typeof error.status !== "number") return false;
  if (isQuotaExhausted(error)) return false;
  const header = error.headers?.get("x-should-retry");
  if (header === "true") return true;
  if (header === "false") return false;
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
}

/** Whether OpenAI answered that the account's quota is spent (a 429 with code or type `insufficient_quota`). */
export function isQuotaExhausted(error: APIError): boolean {
  return error.status === 429 && (error.code === "insufficient_quota" || error.type === "insufficient_quota");
}
