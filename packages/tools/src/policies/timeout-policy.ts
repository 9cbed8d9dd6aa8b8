import { InvalidArgumentError, MAX_TIMER_DELAY_MS, checkOptionKeys, linkAbortSignal, showValue } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { ToolTimeoutError } from "../errors/tool-timeout-error";
import { raceAbort } from "../internal/race-abort";
import { checkNumberOption } from "../internal/check-number-option";
import { withPolicies, type PolicyToolOf, type ToolPolicy } from "./with-policies";

/** Options of {@link timeoutPolicy} and {@link withTimeout}. */
export interface TimeoutPolicyOptions {
  /** The time limit of one call in milliseconds (1 to 2147483647, what setTimeout can wait). */
  ms: number;
  /**
   * Whether the {@link ToolTimeoutError} may be retried by a retry policy around this one. A call
   * that timed out may have had its effect (and a tool that ignores its signal may still be
   * running), so a retry can carry it out twice: set `false` for a tool that must not run twice,
   * `true` for one that is safe to repeat (read-only, or passing `getIdempotencyKey(config)` to an
   * API that honours it).
   * @default true, unless the tool is marked `withInDoubt(tool, "interrupt")` or `"fail"` (it must not run again unchecked)
   */
  retryable?: boolean;
}

/**
 * A policy that aborts a tool call after `ms` milliseconds: the tool's `config.signal` (a child of
 * the caller's) fires, and the call fails at once with a {@link ToolTimeoutError}, even if the tool
 * ignores its signal. The caller's own abort still aborts the call. The error is retryable (a retry
 * policy outside tries again) unless `retryable: false`, or the tool is marked
 * `withInDoubt(tool, "interrupt" | "fail")`: a call that timed out may have had its effect.
 * Sets `timedOut: true` in the step metadata when an attempt times out, and leaves it set when a
 * retry policy outside then succeeds: it says that an attempt timed out (the tool may have been
 * slow, or have had its effect twice), while the call's `error`, absent then, says whether the call
 * failed (see docs/tools.md#timeout).
 *
 * @example
 * ```ts
 * import { timeoutPolicy } from "@agentrx/tools";
 *
 * const fiveSeconds = timeoutPolicy({ ms: 5000 });
 * ```
 */
export function timeoutPolicy(options: TimeoutPolicyOptions): ToolPolicy {
  checkOptionKeys("timeoutPolicy", options, ["ms", "retryable"] satisfies (keyof TimeoutPolicyOptions)[]);
  const { ms, retryable } = options ?? ({} as Partial<TimeoutPolicyOptions>);
  checkNumberOption("timeoutPolicy ms", ms, { min: 1, max: MAX_TIMER_DELAY_MS });
  if (retryable !== undefined && typeof retryable !== "boolean") {
    throw new InvalidArgumentError({
      argument: "timeoutPolicy retryable",
      value: retryable,
      message: `timeoutPolicy retryable must be true or false, got ${showValue(retryable)}.`,
    });
  }
  return ({ toolName, config, metadata, inDoubt }, next) => {
    const controller = new AbortController();
    const unlink = linkAbortSignal(config.signal, controller);
    const timer = setTimeout(() => {
      metadata.timedOut = true;
      const mayRetry = retryable ?? (inDoubt !== "interrupt" && inDoubt !== "fail");
      controller.abort(new ToolTimeoutError({ toolName, timeoutMs: ms, retryable: mayRetry }));
    }, ms);
    const work = next({ ...config, signal: controller.signal });
    return raceAbort(work, controller.signal, ToolTimeoutError.isInstance).finally(() => {
      clearTimeout(timer);
      unlink();
    });
  };
}

/**
 * Returns `tool` with a time limit on every call (see {@link timeoutPolicy}).
 *
 * @example
 * ```ts
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 * import { withTimeout } from "@agentrx/tools";
 *
 * const slow = tool(async () => "done", { name: "slow", description: "Slow.", schema: z.object({}) });
 * const limited = withTimeout(slow, { ms: 1000 });
 * console.log(await limited.invoke({})); // done
 * ```
 */
export function withTimeout<T extends StructuredToolInterface>(tool: T, options: TimeoutPolicyOptions): PolicyToolOf<T> {
  return withPolicies(tool, [timeoutPolicy(options)]);
}
