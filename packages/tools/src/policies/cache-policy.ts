import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { copyPlainData } from "./copy-plain-data";
import { stableStringify } from "./stable-stringify";
import { checkNumberOption } from "../internal/check-number-option";
import { raceAbort } from "../internal/race-abort";
import { withPolicies, type PolicyTool, type ToolPolicy } from "./with-policies";

/** Options of {@link cachePolicy} and {@link withCache}. */
export interface CachePolicyOptions {
  /** How long a result stays fresh, in milliseconds (> 0). @default 300000 (5 minutes) */
  ttlMs?: number;
  /** The most results kept; the least recently used one goes first (integer >= 1). @default 100 */
  maxEntries?: number;
  /**
   * The cache key of a call, from the arguments after the schema's validation and transforms.
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
 * call's result (reported `cached: true`) instead of calling the tool too; if that call fails, it
 * calls the tool itself. One policy object is one cache: share it between tools to share the cache (keys include the tool name).
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
  // Calls under way, by key: a caller that misses while one runs waits for its result instead of
  // calling the tool too (parallel tool calls, or runs of a server, asking the same thing at once).
  const inFlight = new Map<string, Promise<Entry | undefined>>();
  // Bumped by clear(): a call that started before it must not put its (possibly stale) result back.
  let generation = 0;

  const policy: ToolPolicy = async ({ toolName, args, input, config, metadata }, next) => {
    // The default key reads the arguments as the caller sent them (JSON from a model): what a
    // schema's transform makes of them (a class instance with private fields) may not show in a key.
    const cacheKey = key === defaultKey ? defaultKey(toolName, input) : key(toolName, args);
    const hit = entries.get(cacheKey);
    if (hit && hit.expiresAt > Date.now()) {
      entries.delete(cacheKey); // re-insert: most recently used goes last
      entries.set(cacheKey, hit);
      metadata.cached = true;
      // Every caller gets its own copy: one that changes its result cannot change what the next one gets.
      return copyPlainData(hit.value)!.copy;
    }
    if (hit) entries.delete(cacheKey);
    const pending = inFlight.get(cacheKey);
    if (pending !== undefined) {
      // A caller whose signal aborts while it waits leaves at once (an AbortError), as in a queue.
      const shared = await raceAbort(pending, config.signal);
      if (shared !== undefined) {
        metadata.cached = true;
        return copyPlainData(shared.value)!.copy;
      }
      // The call waited for failed, aborted or returned what cannot be cached: this caller calls the tool itself.
    }
    metadata.cached = false;
    const startedIn = generation;
    let settle!: (entry: Entry | undefined) => void;
    const mine = new Promise<Entry | undefined>((resolve) => (settle = resolve));
    if (!inFlight.has(cacheKey)) inFlight.set(cacheKey, mine);
    let entry: Entry | undefined;
    try {
      const value = await next(config);
      // A call aborted meanwhile may have resolved with whatever the tool had when it stopped: not a result to reuse.
      if (config.signal?.aborted) return value;
      // The cache was cleared while the call ran (the data changed): its result may be from before.
      if (generation !== startedIn) return value;
      // A result that is not plain data (a class instance) cannot be handed out as a copy: not cached.
      const stored = copyPlainData(value);
      if (!stored) return value;
      entry = { value: stored.copy, expiresAt: Date.now() + ttlMs };
      entries.set(cacheKey, entry);
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
      }
      return value;
    } finally {
      if (inFlight.get(cacheKey) === mine) inFlight.delete(cacheKey);
      settle(entry);
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
export function withCache(tool: StructuredToolInterface, options?: CachePolicyOptions): PolicyTool {
  return withPolicies(tool, [cachePolicy(options)]);
}
