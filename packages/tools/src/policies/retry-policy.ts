import { InvalidArgumentError, checkOptionKeys, isAbortError } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { isRetryableError } from "../errors/retryable-tool-error";
import { ToolRetriesExhaustedError } from "../errors/tool-retries-exhausted-error";
import { abortableDelay } from "../internal/abortable-delay";
import { checkNumberOption, MAX_TIMER_MS } from "../internal/check-number-option";
import { withPolicies, type PolicyTool, type ToolPolicy } from "./with-policies";

/** Options of {@link retryPolicy} and {@link withRetry}. */
export interface RetryPolicyOptions {
  /** Attempts in all, the first included (integer >= 1). @default 3 */
  maxAttempts?: number;
  /** Wait before the second attempt, in milliseconds. @default 250 */
  initialDelayMs?: number;
  /** Each further wait is the previous one times this factor (>= 1). @default 2 */
  factor?: number;
  /** No wait is longer than this, in milliseconds; an error asking for a longer `retryAfterMs` ends the retries. @default 10000 */
  maxDelayMs?: number;
  /** Randomise each wait between half and all of it, so that many callers do not retry in step. @default true */
  jitter?: boolean;
  /**
   * Decides whether an error is worth another attempt. Aborts by the caller are never retried.
   * @default isRetryableError: a RetryableToolError, or any error with `retryable: true`
   */
  isRetryable?: (error: unknown, attempt: number) => boolean;
}

/** The options {@link retryPolicy} takes: a misspelt one would leave its default in place. */
const RETRY_OPTION_KEYS = Object.keys({ maxAttempts: true, initialDelayMs: true, factor: true, maxDelayMs: true, jitter: true, isRetryable: true } satisfies Record<keyof RetryPolicyOptions, true>);

/**
 * A policy that retries a tool call that failed with a retryable error, waiting with exponential
 * backoff between attempts (at least an error's `retryAfterMs`, if it has one). Other errors, and
 * the caller's abort, end the call at once. When every attempt failed, or an error's `retryAfterMs`
 * is longer than `maxDelayMs` (a server's Retry-After of an hour is not honoured by retrying
 * sooner), the call fails with a {@link ToolRetriesExhaustedError} whose `cause` is the last error. Reports
 * `attempts` in the step metadata and, when an attempt failed, `attemptErrors`: the failed attempts'
 * error messages in order. A call that succeeds after failed attempts has no `error` in its step
 * metadata: `error` is only there when the call itself failed.
 *
 * @example
 * ```ts
 * import { retryPolicy } from "@agentrx/tools";
 *
 * const retry = retryPolicy({ maxAttempts: 4, initialDelayMs: 100 });
 * ```
 */
export function retryPolicy(options: RetryPolicyOptions = {}): ToolPolicy {
  checkOptionKeys("retryPolicy", options, RETRY_OPTION_KEYS);
  const {
    maxAttempts = 3,
    initialDelayMs = 250,
    factor = 2,
    maxDelayMs = 10_000,
    jitter = true,
    isRetryable = isRetryableError,
  } = options;
  checkNumberOption("retryPolicy maxAttempts", maxAttempts, { min: 1, integer: true });
  checkNumberOption("retryPolicy initialDelayMs", initialDelayMs, { max: MAX_TIMER_MS });
  checkNumberOption("retryPolicy factor", factor, { min: 1 });
  checkNumberOption("retryPolicy maxDelayMs", maxDelayMs, { max: MAX_TIMER_MS });
  if (typeof isRetryable !== "function") {
    throw new InvalidArgumentError({
      argument: "retryPolicy isRetryable",
      value: isRetryable,
      message: "retryPolicy isRetryable must be a function (error, attempt) => boolean.",
    });
  }

  return async ({ toolName, config, metadata }, next) => {
    const attemptErrors: string[] = [];
    for (let attempt = 1; ; attempt++) {
      metadata.attempts = attempt;
      try {
        return await next(config);
      } catch (error) {
        attemptErrors.push(error instanceof Error ? error.message : String(error));
        metadata.attemptErrors = [...attemptErrors];
        // `error` says the call failed: an attempt's error (written by a wrapper inside) is not the
        // call's. If this one ends the call, the wrapper outside records what the call threw.
        delete metadata.error;
        if (config.signal?.aborted || isAbortError(error) || !isRetryable(error, attempt)) throw error;
        if (attempt >= maxAttempts) throw new ToolRetriesExhaustedError({ toolName, attempts: attempt, cause: error });
        const backoff = Math.min(maxDelayMs, initialDelayMs * factor ** (attempt - 1));
        const wait = jitter ? backoff / 2 + Math.random() * (backoff / 2) : backoff;
        const retryAfterMs = (error as { retryAfterMs?: unknown }).retryAfterMs;
        const floor = typeof retryAfterMs === "number" && retryAfterMs > 0 ? retryAfterMs : 0;
        if (floor > maxDelayMs) {
          // Asked to wait longer than we may: retrying sooner would ignore the request (a rate limit), so give up now.
          const reason = error instanceof Error ? error.message : String(error);
          const message = `Tool "${toolName}" gave up after ${attempt} attempts: the failure asked to wait ${Math.round(floor)} ms before trying again, longer than maxDelayMs (${maxDelayMs} ms). ${reason}`;
          throw new ToolRetriesExhaustedError({ toolName, attempts: attempt, cause: error, message });
        }
        await abortableDelay(Math.max(wait, floor), config.signal);
      }
    }
  };
}

/**
 * Returns `tool` retrying retryable failures (see {@link retryPolicy}).
 *
 * @example
 * ```ts
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 * import { RetryableToolError, withRetry } from "@agentrx/tools";
 *
 * let calls = 0;
 * const flaky = tool(
 *   async () => {
 *     calls += 1;
 *     if (calls === 1) throw new RetryableToolError({ message: "Upstream busy." });
 *     return "ok";
 *   },
 *   { name: "flaky", description: "Fails once.", schema: z.object({}) },
 * );
 * console.log(await withRetry(flaky, { initialDelayMs: 1 }).invoke({})); // ok
 * ```
 */
export function withRetry(tool: StructuredToolInterface, options?: RetryPolicyOptions): PolicyTool {
  return withPolicies(tool, [retryPolicy(options)]);
}
