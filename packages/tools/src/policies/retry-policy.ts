import { InvalidArgumentError, MAX_TIMER_DELAY_MS, type StepMetadata, checkOptionKeys, isAbortError, isThenable } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { isRetryableError } from "../errors/retryable-tool-error";
import { ToolRetriesExhaustedError } from "../errors/tool-retries-exhausted-error";
import { abortableDelay } from "../internal/abortable-delay";
import { checkNumberOption } from "../internal/check-number-option";
import { withPolicies, type PolicyToolOf, type ToolPolicy } from "./with-policies";
import { checkBooleanOption, checkOptionsObject } from "../internal/check-options";
import { shownResult } from "../internal/hook-result";
import { raceAbort } from "../internal/race-abort";

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
   * Decides whether an error is worth another attempt: true or false, or a Promise of one (awaited;
   * the caller's abort ends the wait, and a rejection is the call's error). Any other answer
   * (`undefined`, a number) fails the call with an `InvalidArgumentError` naming
   * `retryPolicy isRetryable`, whose `cause` is the tool's error. Aborts by the caller are never retried.
   * @default isRetryableError: a RetryableToolError, or any error with `retryable: true`
   */
  isRetryable?: (error: unknown, attempt: number) => boolean | PromiseLike<boolean>;
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
 * Retry policies nested in one call (a retried tool wrapped in a retry policy again) share one
 * record: `attempts` counts the tool's attempts in all (each retry of any of them is one more), and
 * `attemptErrors` lists each failure once, in order (what an inner policy gives up with, or lets
 * through, is not listed again by the one outside it). An attempt ended by an abort, the caller's
 * or a timeout policy's outside this one, is not listed here: the abort is reported where it
 * happened (see docs/tools.md#retry).
 *
 * @example
 * ```ts
 * import { retryPolicy } from "@agentrx/tools";
 *
 * const retry = retryPolicy({ maxAttempts: 4, initialDelayMs: 100 });
 * ```
 */
export function retryPolicy(options: RetryPolicyOptions = {}): ToolPolicy {
  checkOptionsObject("retryPolicy", options, "{ maxAttempts: 3 }");
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
  checkNumberOption("retryPolicy initialDelayMs", initialDelayMs, { max: MAX_TIMER_DELAY_MS });
  checkNumberOption("retryPolicy factor", factor, { min: 1 });
  checkNumberOption("retryPolicy maxDelayMs", maxDelayMs, { max: MAX_TIMER_DELAY_MS });
  checkBooleanOption("retryPolicy jitter", jitter);
  if (typeof isRetryable !== "function") {
    throw new InvalidArgumentError({
      argument: "retryPolicy isRetryable",
      value: isRetryable,
      message: "retryPolicy isRetryable must be a function (error, attempt) => boolean (or a Promise of one).",
    });
  }

  /** What `isRetryable` says of a failure: awaited when it returns a Promise (the caller's abort ends the wait), checked to be a boolean. */
  const retryable = async (toolName: string, error: unknown, attempt: number, signal: AbortSignal | undefined): Promise<boolean> => {
    let answer: unknown = isRetryable(error, attempt);
    if (isThenable(answer)) answer = await raceAbort(Promise.resolve(answer), signal);
    if (typeof answer === "boolean") return answer;
    throw new InvalidArgumentError({
      argument: "retryPolicy isRetryable",
      value: answer,
      message: `retryPolicy isRetryable must return true or false (or a Promise of one), got ${shownResult(answer)} for attempt ${attempt} of tool "${toolName}", which failed with: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  };

  const waitBefore = (toolName: string, error: unknown, attempt: number): number => {
    const backoff = Math.min(maxDelayMs, initialDelayMs * factor ** (attempt - 1));
    const wait = jitter ? backoff / 2 + Math.random() * (backoff / 2) : backoff;
    const retryAfterMs = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
    const floor = typeof retryAfterMs === "number" && retryAfterMs > 0 ? retryAfterMs : 0;
    if (floor > maxDelayMs) {
      // Asked to wait longer than we may: retrying sooner would ignore the request (a rate limit), so give up now.
      const reason = error instanceof Error ? error.message : String(error);
      const message = `Tool "${toolName}" gave up after ${attempt} attempts: the failure asked to wait ${Math.round(floor)} ms before trying again, longer than maxDelayMs (${maxDelayMs} ms). ${reason}`;
      throw new ToolRetriesExhaustedError({ toolName, attempts: attempt, cause: error, message });
    }
    return Math.max(wait, floor);
  };

  return async ({ toolName, config, metadata }, next) => {
    const { record, release } = enterAttemptRecord(metadata);
    try {
      for (let attempt = 1; ; attempt++) {
        if (attempt > 1) record.attempts += 1;
        metadata.attempts = record.attempts;
        record.handedOut = undefined;
        try {
          return await next(config);
        } catch (error) {
          // Aborted from outside (the caller, or a timeout policy around this one): whoever aborted reports it.
          if (config.signal?.aborted) throw error;
          recordFailure(record, metadata, error);
          // `error` says the call failed: an attempt's error (written by a wrapper inside) is not the
          // call's. If this one ends the call, the wrapper outside records what the call threw.
          delete metadata.error;
          let wait: number;
          try {
            if (isAbortError(error) || !(await retryable(toolName, error, attempt, config.signal))) throw error;
            if (attempt >= maxAttempts) throw new ToolRetriesExhaustedError({ toolName, attempts: attempt, cause: error });
            wait = waitBefore(toolName, error, attempt);
          } catch (final) {
            record.handedOut = final; // recorded already: the policy outside, if any, does not list it again
            throw final;
          }
          await abortableDelay(wait, config.signal);
        }
      }
    } finally {
      release();
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
export function withRetry<T extends StructuredToolInterface>(tool: T, options?: RetryPolicyOptions): PolicyToolOf<T> {
  return withPolicies(tool, [retryPolicy(options)]);
}

/** What the retry policies of one call have recorded: nested ones share it, so none overwrites another's. */
interface AttemptRecord {
  /** The tool's attempts so far: the first, plus each retry of any of the policies. */
  attempts: number;
  /** The failed attempts' error messages, in order. */
  errors: string[];
  /** What a policy inside last threw out of its attempts: recorded already, so the policy outside does not list it again. */
  handedOut: unknown;
}

const attemptRecords = new WeakMap<StepMetadata, AttemptRecord>();

/**
 * The call's attempt record: the outermost retry policy of the call starts it (and drops it when
 * it returns), the retry policies inside it share it.
 */
function enterAttemptRecord(metadata: StepMetadata): { record: AttemptRecord; release: () => void } {
  const shared = attemptRecords.get(metadata);
  if (shared) return { record: shared, release: () => undefined };
  const record: AttemptRecord = { attempts: 1, errors: [], handedOut: undefined };
  attemptRecords.set(metadata, record);
  return { record, release: () => attemptRecords.delete(metadata) };
}

/** Adds a failed attempt's error to the record, unless a retry policy inside recorded it already. */
function recordFailure(record: AttemptRecord, metadata: StepMetadata, error: unknown): void {
  const recorded = record.handedOut !== undefined && record.handedOut === error;
  record.handedOut = undefined;
  if (recorded) return;
  record.errors.push(error instanceof Error ? error.message : String(error));
  metadata.attemptErrors = [...record.errors];
}
