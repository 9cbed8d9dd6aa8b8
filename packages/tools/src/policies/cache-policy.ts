import { AbortError, InvalidArgumentError, checkOptionKeys, refusePromise } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { copyPlainData } from "./copy-plain-data";
import { stableStringify } from "./stable-stringify";
import { checkNumberOption } from "../internal/check-number-option";
import { raceAbort } from "../internal/race-abort";
import { withPolicies, type PolicyToolOf, type ToolPolicy } from "./with-policies";
import { checkOptionsObject } from "../internal/check-options";
import { shownResult } from "../internal/hook-result";

/** Options of {@link cachePolicy} and {@link withCache}. */
export interface CachePolicyOptions {
  /** How long a result stays fresh, in milliseconds (> 0). @default 300000 (5 minutes) */
  ttlMs?: number;
  /** The most results kept; the least recently used one goes first (integer >= 1). @default 100 */
  maxEntries?: number;
  /**
   * The cache key of a call, from the arguments after the schema's validation and transforms. It
   * must return a string, synchronously: anything else (`undefined`, a number, an object, a
   * Promise) fails the call with an `InvalidArgumentError` naming `cachePolicy key`.
   * @default the tool name and the arguments as the caller sent them (before the schema's transforms), as JSON with sorted keys
   */
  key?: (toolName: string, args: unknown) => string;
}

/** A tool-result cache you can inspect or clear; {@link cachePolicy} returns one. */
export interface ToolResultCache {
  /** How many results are held (expired ones included until they are next looked up). */
  readonly size: number;
  /** Forgets every result; a call under way when it is called does not put its result back. */
  clear(): void;
}

interface Entry {
  value: unknown;
  expiresAt: number;
}

/** How a call under way ended, for the callers waiting for it: its result, or nothing to share. */
interface Outcome {
  /** The cached result, when the call succeeded with plain data. */
  entry?: Entry;
  /** The call succeeded with a result that cannot be copied (so it was not cached). */
  uncopyable?: boolean;
}

/** The options {@link cachePolicy} takes: a misspelt one would leave its default in place. */
const CACHE_OPTION_KEYS = Object.keys({ ttlMs: true, maxEntries: true, key: true } satisfies Record<keyof CachePolicyOptions, true>);

/**
 * A policy that remembers successful results per tool name and arguments (key order does not
 * matter) for `ttlMs`, holding at most `maxEntries` (least recently used evicted). Failures, and
 * results of calls whose signal aborted, are not cached. Results are plain data (strings, numbers,
 * arrays, plain objects, dates, maps, sets): the cache keeps a copy and hands every hit a copy of
 * its own, so a caller that changes its result changes nobody else's; a result that is not plain
 * data (a class instance, a function) is not cached. Reports `cached: true | false` in the step
 * metadata. A call that misses while another call with the same key is under way waits for that
 * call's result (reported `cached: true`) instead of calling the tool too. If that call fails (or
 * its caller aborts, which ends it for the waiting callers at once), the callers that waited do
 * not all call the tool at the same time: the first of them calls it, the others wait for that
 * call, and so on, so every caller that gets an error got it from its own call (under a lasting
 * failure they fail one after another: give the tool a `timeoutPolicy` inside the cache). One
 * policy object is one cache: share it between tools to share the cache (keys include the tool name).
 *
 * @example
 * ```ts
 * import { cachePolicy } from "@agentrx/tools";
 *
 * const cache = cachePolicy({ ttlMs: 60_000, maxEntries: 500 });
 * cache.clear();
 * ```
 */
export function cachePolicy(options: CachePolicyOptions = {}): ToolPolicy & ToolResultCache {
  checkOptionsObject("cachePolicy", options, "{ ttlMs: 60_000 }");
  checkOptionKeys("cachePolicy", options, CACHE_OPTION_KEYS);
  const { ttlMs = 300_000, maxEntries = 100, key = defaultKey } = options;
  checkNumberOption("cachePolicy ttlMs", ttlMs, { min: 1 });
  checkNumberOption("cachePolicy maxEntries", maxEntries, { min: 1, integer: true });
  if (typeof key !== "function") {
    throw new InvalidArgumentError({
      argument: "cachePolicy key",
      value: key,
      message: "cachePolicy key must be a function (toolName, args) => string.",
    });
  }
  const entries = new Map<string, Entry>();
  // Calls under way, by key: a caller that misses while one runs waits for its outcome instead of
  // calling the tool too (parallel tool calls, or runs of a server, asking the same thing at once).
  const inFlight = new Map<string, Promise<Outcome>>();
  // Bumped by clear(): a call that started before it must not put its (possibly stale) result back.
  let generation = 0;

  const fresh = (cacheKey: string): Entry | undefined => {
    const hit = entries.get(cacheKey);
    if (hit === undefined) return undefined;
    entries.delete(cacheKey);
    if (hit.expiresAt <= Date.now()) return undefined;
    entries.set(cacheKey, hit); // re-insert: most recently used goes last
    return hit;
  };

  const policy: ToolPolicy = async ({ toolName, args, input, config, metadata }, next) => {
    // The default key reads the arguments as the caller sent them (JSON from a model): what a
    // schema's transform makes of them (a class instance with private fields) may not show in a key.
    const cacheKey = key === defaultKey ? defaultKey(toolName, input) : ownKey(key, toolName, args);
    for (;;) {
      const hit = fresh(cacheKey);
      if (hit !== undefined) {
        metadata.cached = true;
        // Every caller gets its own copy: one that changes its result cannot change what the next one gets.
        return copyPlainData(hit.value)!.copy;
      }
      const pending = inFlight.get(cacheKey);
      if (pending === undefined) break;
      // A caller whose signal aborts while it waits leaves at once (an AbortError), as in a queue.
      const outcome = await raceAbort(pending, config.signal);
      if (outcome.entry !== undefined) {
        metadata.cached = true;
        return copyPlainData(outcome.entry.value)!.copy;
      }
      // A result that cannot be copied: nothing to share and nothing wrong with the tool, so every
      // caller that waited calls it now.
      if (outcome.uncopyable) break;
      // The call failed (or was aborted, or its result came from before a clear()): look again. The
      // first caller back finds no call under way and calls the tool; the others wait for its call,
      // so a failing tool is not called by every waiting caller at once.
    }
    // Aborted after the call it waited for ended but before it got here: it does not call the tool
    // (and does not keep the callers behind it waiting on a call nobody wants).
    if (config.signal?.aborted) throw new AbortError({ reason: config.signal.reason });
    metadata.cached = false;
    const startedIn = generation;
    let settle!: (outcome: Outcome) => void;
    const mine = new Promise<Outcome>((resolve) => (settle = resolve));
    if (!inFlight.has(cacheKey)) inFlight.set(cacheKey, mine);
    let outcome: Outcome = {};
    try {
      // A caller that aborts gives up its call at once, also when the tool ignores its signal: the
      // callers waiting for it must not wait on a call that nobody wants (one of them calls the tool).
      const value = await raceAbort(next(config), config.signal);
      // A call aborted meanwhile may have resolved with whatever the tool had when it stopped: not a result to reuse.
      if (config.signal?.aborted) return value;
      // The cache was cleared while the call ran (the data changed): its result may be from before.
      if (generation !== startedIn) return value;
      // A result that is not plain data (a class instance) cannot be handed out as a copy: not cached.
      const stored = copyPlainData(value);
      if (!stored) {
        outcome = { uncopyable: true };
        return value;
      }
      const entry = { value: stored.copy, expiresAt: Date.now() + ttlMs };
      outcome = { entry };
      entries.set(cacheKey, entry);
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
      }
      return value;
    } finally {
      if (inFlight.get(cacheKey) === mine) inFlight.delete(cacheKey);
      settle(outcome);
    }
  };
  Object.defineProperty(policy, "size", { get: () => entries.size });
  return Object.assign(policy as ToolPolicy & ToolResultCache, {
    clear: () => {
      generation += 1;
      entries.clear();
      inFlight.clear();
    },
  });
}

function defaultKey(toolName: string, args: unknown): string {
  return `${toolName}\u0000${stableStringify(args)}`;
}

/**
 * The key a `key` option of the user's gives a call. Anything but a string fails the call: keyed as
 * it is, `undefined` or a number would make calls with other arguments share one entry (the wrong
 * result), an object or a Promise would never hit.
 */
function ownKey(key: (toolName: string, args: unknown) => string, toolName: string, args: unknown): string {
  const cacheKey: unknown = key(toolName, args);
  if (typeof cacheKey === "string") return cacheKey;
  const got = refusePromise(cacheKey) ? "a Promise" : shownResult(cacheKey);
  throw new InvalidArgumentError({
    argument: "cachePolicy key",
    value: cacheKey,
    message: `cachePolicy key must return a string (synchronously), got ${got} for a call of tool "${toolName}".`,
  });
}

/**
 * Returns `tool` with its successful results cached (see {@link cachePolicy}).
 *
 * @example
 * ```ts
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 * import { withCache } from "@agentrx/tools";
 *
 * let calls = 0;
 * const square = tool(async ({ n }) => String((calls += 1, n * n)), {
 *   name: "square",
 *   description: "Squares n.",
 *   schema: z.object({ n: z.number() }),
 * });
 * const cached = withCache(square, { ttlMs: 60_000 });
 * await cached.invoke({ n: 3 });
 * await cached.invoke({ n: 3 });
 * console.log(calls); // 1
 * ```
 */
export function withCache<T extends StructuredToolInterface>(tool: T, options?: CachePolicyOptions): PolicyToolOf<T> {
  return withPolicies(tool, [cachePolicy(options)]);
}
