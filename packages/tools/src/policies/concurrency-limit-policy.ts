import { AbortError, checkOptionKeys } from "@agentrx/core";
import { raceAbort } from "../internal/race-abort";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { checkNumberOption } from "../internal/check-number-option";
import { withPolicies, type PolicyToolOf, type ToolPolicy } from "./with-policies";

/** Options of {@link concurrencyLimitPolicy} and {@link withConcurrencyLimit}. */
export interface ConcurrencyLimitPolicyOptions {
  /** How many calls may run at once (integer >= 1). Further callers wait in line, first come first served. */
  maxConcurrent: number;
}

/** The state of a concurrency limit, for tests and dashboards. */
export interface ConcurrencyLimitState {
  /** Calls running now. */
  readonly active: number;
  /** Calls waiting for a slot. */
  readonly queued: number;
}

interface Waiter {
  start: () => void;
}

/**
 * A policy that lets at most `maxConcurrent` calls run at once. The limit lives in the policy
 * object: it is shared by every run, every call and every tool wrapped with this same policy.
 * A waiting caller whose signal aborts leaves the line at once with an `AbortError`; a running call
 * whose signal aborts (a timeout, the caller) gives its slot back at once, even if the tool ignores
 * the abort and keeps running; a caller that aborts after it was handed a slot, before its call
 * started, does not start it and hands the slot on. Reports the time spent waiting as `queuedMs` in
 * the step metadata (summed over the attempts when a retry policy is outside this one).
 *
 * @example
 * ```ts
 * import { concurrencyLimitPolicy } from "@agentrx/tools";
 *
 * const twoAtATime = concurrencyLimitPolicy({ maxConcurrent: 2 });
 * console.log(twoAtATime.active, twoAtATime.queued); // 0 0
 * ```
 */
export function concurrencyLimitPolicy(options: ConcurrencyLimitPolicyOptions): ToolPolicy & ConcurrencyLimitState {
  checkOptionKeys("concurrencyLimitPolicy", options, ["maxConcurrent"] satisfies (keyof ConcurrencyLimitPolicyOptions)[]);
  const { maxConcurrent } = options ?? ({} as Partial<ConcurrencyLimitPolicyOptions>);
  checkNumberOption("concurrencyLimitPolicy maxConcurrent", maxConcurrent, { min: 1, integer: true });
  let active = 0;
  const line: Waiter[] = [];

  const acquire = (signal: AbortSignal | undefined): Promise<void> => {
    if (signal?.aborted) return Promise.reject(new AbortError({ reason: signal.reason }));
    if (active < maxConcurrent) {
      active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = line.indexOf(waiter);
        if (index >= 0) line.splice(index, 1);
        reject(new AbortError({ reason: signal?.reason }));
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          active += 1;
          resolve();
        },
      };
      line.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  };

  const release = () => {
    active -= 1;
    line.shift()?.start();
  };

  const policy: ToolPolicy = async ({ config, metadata }, next) => {
    const start = performance.now();
    try {
      await acquire(config.signal);
    } finally {
      // Summed over the calls of one step (the attempts of a retry policy outside this one).
      metadata.queuedMs = (typeof metadata.queuedMs === "number" ? metadata.queuedMs : 0) + (performance.now() - start);
    }
    if (config.signal?.aborted) {
      // Aborted after it was handed the slot but before it resumed: it does not start, and the slot
      // goes to the next caller in line.
      release();
      throw new AbortError({ reason: config.signal.reason });
    }
    try {
      // Settles when the call aborts even if the tool ignores its signal, so a hung tool cannot keep the slot.
      return await raceAbort(next(config), config.signal, () => true);
    } finally {
      release();
    }
  };
  Object.defineProperty(policy, "active", { get: () => active });
  Object.defineProperty(policy, "queued", { get: () => line.length });
  return policy as ToolPolicy & ConcurrencyLimitState;
}

/**
 * Returns `tool` with at most `maxConcurrent` calls running at once (see {@link concurrencyLimitPolicy}).
 *
 * @example
 * ```ts
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 * import { withConcurrencyLimit } from "@agentrx/tools";
 *
 * const fetchPage = tool(async ({ page }) => `page ${page}`, {
 *   name: "fetch_page",
 *   description: "Fetches a page.",
 *   schema: z.object({ page: z.number() }),
 * });
 * const limited = withConcurrencyLimit(fetchPage, { maxConcurrent: 1 });
 * console.log(await Promise.all([limited.invoke({ page: 1 }), limited.invoke({ page: 2 })]));
 * ```
 */
export function withConcurrencyLimit<T extends StructuredToolInterface>(tool: T, options: ConcurrencyLimitPolicyOptions): PolicyToolOf<T> {
  return withPolicies(tool, [concurrencyLimitPolicy(options)]);
}
