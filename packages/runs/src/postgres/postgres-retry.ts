import { isConnectionLost } from "./postgres-errors";

/**
 * How many times in all (the first try included) the store sends a call whose connection was lost:
 * one `pg_terminate_backend` sweep, or a server restart, ends every connection of the pool at once,
 * and a retry sent at once may go out on another connection the same sweep ended.
 */
export const LOST_CONNECTION_ATTEMPTS = 4;

/** The pause before each retry, in milliseconds (each between half and one and a half times this). */
const BACKOFF_MS = [10, 50, 200] as const;

/** How {@link retryLostConnection} tries a call again. */
export interface RetryLostConnectionOptions {
  /**
   * Whether the error of a try may be retried.
   * @default isConnectionLost
   */
  retryable?: (error: unknown) => boolean;
  /** Told before each retry, with the number of the try about to start (2 for the first retry). */
  onRetry?: (attempt: number) => void;
  /**
   * The call's time budget in milliseconds, from the first try: no retry starts after it (the
   * store's `statementTimeoutMs`, which bounds each try too). 0 or undefined: no budget.
   */
  budgetMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt`, and again, up to {@link LOST_CONNECTION_ATTEMPTS} times in all, while it fails
 * with a lost connection (see `isConnectionLost`), after a short jittered pause (10, 50, 200 ms) and
 * within `budgetMs`: the pool's connections a sweep ended are dropped meanwhile. The last error is
 * thrown as it is. Only for calls whose repeat is safe (docs/runs.md, "Store timeouts and busy
 * files").
 */
export async function retryLostConnection<T>(attempt: (n: number) => Promise<T>, { retryable = isConnectionLost, onRetry, budgetMs }: RetryLostConnectionOptions = {}): Promise<T> {
  const deadline = budgetMs ? Date.now() + budgetMs : Infinity;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      const pause = BACKOFF_MS[n - 1];
      if (pause === undefined || n >= LOST_CONNECTION_ATTEMPTS || !retryable(error)) throw error;
      const wait = Math.round(pause * (0.5 + Math.random()));
      if (Date.now() + wait >= deadline) throw error;
      await sleep(wait);
      onRetry?.(n + 1);
    }
  }
}
