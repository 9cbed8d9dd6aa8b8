import { checkOptionKeys, linkAbortSignal } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { ToolTimeoutError } from "../errors/tool-timeout-error";
import { raceAbort } from "../internal/race-abort";
import { checkNumberOption, MAX_TIMER_MS } from "../internal/check-number-option";
import { withPolicies, type PolicyTool, type ToolPolicy } from "./with-policies";

/** Options of {@link timeoutPolicy} and {@link withTimeout}. */
export interface TimeoutPolicyOptions {
  /** The time limit of one call in milliseconds (1 to 2147483647, what setTimeout can wait). */
  ms: number;
}

/**
 * A policy that aborts a tool call after `ms` milliseconds: the tool's `config.signal` (a child of
 * the caller's) fires, and the call fails at once with a {@link ToolTimeoutError}, even if the tool
 * ignores its signal. The caller's own abort still aborts the call.
 *
 * @example
 * ```ts
 * import { timeoutPolicy } from "@agentrx/tools";
 *
 * const fiveSeconds = timeoutPolicy({ ms: 5000 });
 * ```
 */
export function timeoutPolicy(options: TimeoutPolicyOptions): ToolPolicy {
  checkOptionKeys("timeoutPolicy", options, ["ms"] satisfies (keyof TimeoutPolicyOptions)[]);
  const { ms } = options ?? ({} as Partial<TimeoutPolicyOptions>);
  checkNumberOption("timeoutPolicy ms", ms, { min: 1, max: MAX_TIMER_MS });
  return ({ toolName, config, metadata }, next) => {
    const controller = new AbortController();
    const unlink = linkAbortSignal(config.signal, controller);
    const timer = setTimeout(() => {
      metadata.timedOut = true;
      controller.abort(new ToolTimeoutError({ toolName, timeoutMs: ms }));
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
export function withTimeout(tool: StructuredToolInterface, options: TimeoutPolicyOptions): PolicyTool {
  return withPolicies(tool, [timeoutPolicy(options)]);
}
