import { describeThrown } from "@agentrx/core";

/** How long the default `onError` stays quiet about an error it has just printed (ms). */
export const REPEAT_QUIET_MS = 30_000;

/** Socket error codes of a server that cannot be reached: printed as one line, without a stack. */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"]);

/**
 * The worker's `onError` when none is given: `console.error`, readable while Redis is down. An
 * error of a server that cannot be reached (`ECONNREFUSED`, `ENOTFOUND`, ...) is one line (what
 * and where, not a stack), and the same line is not printed again for {@link REPEAT_QUIET_MS} (a
 * worker reconnecting to a Redis that is down gets one every few hundred milliseconds): once that
 * time has passed, it is printed with how many times it came meanwhile. Any other error is
 * printed whole, every time. `now` is for tests.
 *
 * @internal
 */
export function defaultOnError(now: () => number = Date.now): (error: unknown) => void {
  /** By the line an error prints as: when it was last printed, and how many came since. */
  const printed = new Map<string, { at: number; since: number }>();
  return (error) => {
    const unreachable = UNREACHABLE.has(String((error as { code?: unknown } | null)?.code));
    if (!unreachable) {
      console.error("@agentrx/bullmq worker:", error);
      return;
    }
    const line = describeThrown(error, "the worker");
    const at = now();
    const last = printed.get(line);
    if (last !== undefined && at - last.at < REPEAT_QUIET_MS) {
      last.since++;
      return;
    }
    // Old entries go, so that a worker up for months keeps a few lines, not every error it saw.
    for (const [key, entry] of printed) if (at - entry.at >= REPEAT_QUIET_MS) printed.delete(key);
    printed.set(line, { at, since: 0 });
    const repeated = last !== undefined && last.since > 0 ? ` (${last.since} more time${last.since === 1 ? "" : "s"} in the last ${Math.round((at - last.at) / 1000)} s)` : "";
    console.error(`@agentrx/bullmq worker: ${line}${repeated}; retrying.`);
  };
}
