import { InvalidArgumentError } from "@agentrx/core";
import { DynamicStructuredTool, tool } from "@langchain/core/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { cachePolicy, withCache } from "./cache-policy";
import { abortWhenUnlistened, configWithMetadata, deferred } from "./test-helpers";
import { withPolicies, type ToolPolicy } from "./with-policies";

function countingTool(name = "lookup") {
  const calls: unknown[] = [];
  const lookup = tool(
    async (args) => {
      calls.push(args);
      if (args.q === "fail") throw new Error("upstream down");
      return `result ${calls.length}`;
    },
    { name, description: "Looks up.", schema: z.object({ q: z.string(), page: z.number().optional() }) },
  );
  return { lookup, calls };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("cachePolicy", () => {
  it("answers repeated calls from the cache, whatever the key order, and reports it", async () => {
    const { lookup, calls } = countingTool();
    const cached = withCache(lookup);
    const first = configWithMetadata();
    const second = configWithMetadata();
    await expect(cached.invoke({ q: "a", page: 1 }, first.config)).resolves.toBe("result 1");
    await expect(cached.invoke({ page: 1, q: "a" }, second.config)).resolves.toBe("result 1");
    await expect(cached.invoke({ q: "a", page: 2 })).resolves.toBe("result 2");
    expect(calls).toHaveLength(2);
    expect(first.metadata.cached).toBe(false);
    expect(second.metadata.cached).toBe(true);
  });

  it("expires results after ttlMs", async () => {
    const { lookup, calls } = countingTool();
    const cached = withCache(lookup, { ttlMs: 1000 });
    await cached.invoke({ q: "a" });
    vi.advanceTimersByTime(999);
    await cached.invoke({ q: "a" });
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await expect(cached.invoke({ q: "a" })).resolves.toBe("result 2");
  });

  it("evicts the least recently used result beyond maxEntries", async () => {
    const { lookup, calls } = countingTool();
    const cache = cachePolicy({ maxEntries: 2 });
    const cached = withPolicies(lookup, [cache]);
    await cached.invoke({ q: "a" });
    await cached.invoke({ q: "b" });
    await cached.invoke({ q: "a" }); // a is now the most recent
    await cached.invoke({ q: "c" }); // evicts b
    expect(cache.size).toBe(2);
    await cached.invoke({ q: "a" });
    expect(calls).toHaveLength(3);
    await cached.invoke({ q: "b" });
    expect(calls).toHaveLength(4);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it("does not cache failures and keys on the tool name", async () => {
    const { lookup, calls } = countingTool();
    const other = countingTool("other");
    const cache = cachePolicy();
    await expect(withPolicies(lookup, [cache]).invoke({ q: "fail" })).rejects.toThrow("upstream down");
    await expect(withPolicies(lookup, [cache]).invoke({ q: "fail" })).rejects.toThrow("upstream down");
    expect(calls).toHaveLength(2);
    await withPolicies(lookup, [cache]).invoke({ q: "x" });
    await withPolicies(other.lookup, [cache]).invoke({ q: "x" });
    expect(other.calls).toHaveLength(1);
  });

  it("does not cache what a call returned after its signal aborted", async () => {
    let calls = 0;
    const started = deferred<void>();
    const slow = tool(
      () => {
        calls += 1;
        if (calls > 1) return "complete";
        started.resolve();
        return new Promise<string>(() => undefined);
      },
      { name: "slow", description: "Slow the first time.", schema: z.object({ q: z.string() }) },
    );
    // A policy inside the cache that turns an abort into a value, as a fallback policy might.
    const giveUp: ToolPolicy = async ({ config }, next) => {
      try {
        return await next(config);
      } catch (error) {
        if (config.signal?.aborted) return "partial";
        throw error;
      }
    };
    const settled = deferred<void>();
    const watch: ToolPolicy = async ({ config }, next) => {
      try {
        return await next(config);
      } finally {
        settled.resolve();
      }
    };
    const cache = cachePolicy();
    const cached = withPolicies(slow, [watch, cache, giveUp]);
    const controller = new AbortController();
    const aborted = cached.invoke({ q: "a" }, { signal: controller.signal });
    await started.promise;
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    await settled.promise;
    expect(cache.size).toBe(0);
    await expect(cached.invoke({ q: "a" })).resolves.toBe("complete");
    expect(cache.size).toBe(1);
  });

  it("keys arguments JSON cannot tell apart on their real values", async () => {
    const calls: unknown[] = [];
    const tagged = tool(
      async ({ tags }) => {
        calls.push(tags);
        return [...tags].join("+") || "none";
      },
      { name: "tagged", description: "Joins tags.", schema: z.object({ tags: z.array(z.string()).transform((list) => new Set(list)) }) },
    );
    const cached = withCache(tagged);
    await expect(cached.invoke({ tags: ["a"] })).resolves.toBe("a");
    await expect(cached.invoke({ tags: ["b"] })).resolves.toBe("b");
    await expect(cached.invoke({ tags: [] })).resolves.toBe("none");
    expect(calls).toHaveLength(3);
  });

  it("keys a Date apart from its ISO string, and -0 apart from 0, when the tool can tell them apart", async () => {
    const describeWhen = tool(async ({ when }) => (typeof when === "string" ? `text ${when}` : `date ${when.getTime()}`), {
      name: "describe_when",
      description: "Says what it got.",
      schema: z.object({ when: z.union([z.date(), z.string()]) }),
    });
    const cachedWhen = withCache(describeWhen);
    await expect(cachedWhen.invoke({ when: new Date(0) })).resolves.toBe("date 0");
    await expect(cachedWhen.invoke({ when: "1970-01-01T00:00:00.000Z" })).resolves.toBe("text 1970-01-01T00:00:00.000Z");
    const sign = tool(async ({ x }) => String(Math.sign(1 / x)), { name: "sign", description: "Sign of 1/x.", schema: z.object({ x: z.number() }) });
    const cachedSign = withCache(sign);
    await expect(cachedSign.invoke({ x: 0 })).resolves.toBe("1");
    await expect(cachedSign.invoke({ x: -0 })).resolves.toBe("-1");
  });

  it("refuses bad options at construction", () => {
    expect(() => cachePolicy({ ttlMs: -1 })).toThrow(InvalidArgumentError);
    expect(() => cachePolicy({ maxEntries: 1.5 })).toThrow(/cachePolicy maxEntries must be an integer >= 1/);
  });

  it("fails a call whose key is not a string, naming key, instead of sharing or missing an entry", async () => {
    vi.useRealTimers();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const bad: [() => unknown, string][] = [
        [() => undefined, "undefined"],
        [() => 42, "42"],
        [() => ({ q: "a" }), '{"q":"a"}'],
        [async () => "k", "a Promise"],
        [() => Promise.reject(new Error("key store down")), "a Promise"],
      ];
      for (const [key, shown] of bad) {
        const { lookup, calls } = countingTool();
        const cached = withCache(lookup, { key: key as () => string });
        const error = await cached.invoke({ q: "alice" }).then(() => undefined, (caught: unknown) => caught);
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        expect((error as InvalidArgumentError).argument).toBe("cachePolicy key");
        expect((error as Error).message).toBe(`cachePolicy key must return a string (synchronously), got ${shown} for a call of tool "lookup".`);
        expect(calls).toEqual([]);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("hands every caller its own copy of a cached result, so changing one changes no other", async () => {
    let calls = 0;
    const report = tool(
      async () => {
        calls += 1;
        return { rows: [{ id: 1 }], at: new Date(0), seen: new Set(["a"]) };
      },
      { name: "report", description: "Builds a report.", schema: z.object({ q: z.string() }) },
    );
    const cached = withCache(report);
    const first = (await cached.invoke({ q: "x" })) as unknown as { rows: Array<{ id: number }>; at: Date; seen: Set<string> };
    first.rows.push({ id: 2 });
    first.seen.add("b");
    const second = (await cached.invoke({ q: "x" })) as unknown as typeof first;
    expect(second).toEqual({ rows: [{ id: 1 }], at: new Date(0), seen: new Set(["a"]) });
    second.rows[0]!.id = 99;
    second.at.setTime(5);
    await expect(cached.invoke({ q: "x" })).resolves.toEqual({ rows: [{ id: 1 }], at: new Date(0), seen: new Set(["a"]) });
    expect(calls).toBe(1);
  });

  it("does not cache a result it cannot copy (a class instance)", async () => {
    class Handle {
      constructor(readonly id: number) {}
    }
    let calls = 0;
    const open = tool(async () => new Handle((calls += 1)), { name: "open", description: "Opens.", schema: z.object({ q: z.string() }) });
    const cache = cachePolicy();
    const cached = withPolicies(open, [cache]);
    const { config, metadata } = configWithMetadata();
    const first = await cached.invoke({ q: "x" }, config);
    expect(first).toBeInstanceOf(Handle);
    expect(await cached.invoke({ q: "x" })).not.toBe(first);
    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
    expect(metadata.cached).toBe(false);
  });

  it("keys on the arguments as sent, so values a transform hides from JSON (private fields) do not share an entry", async () => {
    class Money {
      readonly #cents: number;
      constructor(text: string) {
        this.#cents = Math.round(Number(text) * 100);
      }
      toString() {
        return `${this.#cents} cents`;
      }
    }
    const price = tool(async ({ amount }) => `charged ${String(amount)}`, {
      name: "price",
      description: "Charges an amount.",
      schema: z.object({ amount: z.string().transform((text) => new Money(text)) }),
    });
    const cached = withCache(price);
    await expect(cached.invoke({ amount: "1" })).resolves.toBe("charged 100 cents");
    await expect(cached.invoke({ amount: "2" })).resolves.toBe("charged 200 cents");
    await expect(cached.invoke({ amount: "1" })).resolves.toBe("charged 100 cents");
  });

  describe("calls under way", () => {
    function gatedTool() {
      const gates: Array<ReturnType<typeof deferred<{ city: string; temp: number }>>> = [];
      const weather = tool(
        async () => {
          const gate = deferred<{ city: string; temp: number }>();
          gates.push(gate);
          return gate.promise;
        },
        { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) },
      );
      return { weather, gates };
    }
    const flush = () => vi.advanceTimersByTimeAsync(0);

    it("shares one call between callers that miss at the same time, each with its own copy", async () => {
      const { weather, gates } = gatedTool();
      const cached = withCache(weather);
      const first = configWithMetadata();
      const second = configWithMetadata();
      const a = cached.invoke({ city: "Oslo" }, first.config);
      await flush();
      const b = cached.invoke({ city: "Oslo" }, second.config);
      await flush();
      expect(gates).toHaveLength(1);
      gates[0]!.resolve({ city: "Oslo", temp: 3 });
      const [resultA, resultB] = await Promise.all([a, b]);
      expect(resultA).toEqual({ city: "Oslo", temp: 3 });
      expect(resultB).toEqual({ city: "Oslo", temp: 3 });
      expect(resultB).not.toBe(resultA);
      expect(first.metadata.cached).toBe(false);
      expect(second.metadata.cached).toBe(true);
      expect(gates).toHaveLength(1);
    });

    it("does not keep the result of a call that was under way when clear() was called", async () => {
      const { weather, gates } = gatedTool();
      const cache = cachePolicy();
      const cached = withPolicies(weather, [cache]);
      const before = cached.invoke({ city: "Oslo" });
      await flush();
      cache.clear(); // the data changed while the call ran
      gates[0]!.resolve({ city: "Oslo", temp: 3 });
      await expect(before).resolves.toEqual({ city: "Oslo", temp: 3 });
      expect(cache.size).toBe(0);
      const after = configWithMetadata();
      const again = cached.invoke({ city: "Oslo" }, after.config);
      await flush();
      expect(gates).toHaveLength(2);
      gates[1]!.resolve({ city: "Oslo", temp: 9 });
      await expect(again).resolves.toEqual({ city: "Oslo", temp: 9 });
      expect(after.metadata.cached).toBe(false);
    });

    it("calls the tool itself when the call it waited for fails", async () => {
      const { weather, gates } = gatedTool();
      const cached = withCache(weather);
      const a = cached.invoke({ city: "Oslo" });
      await flush();
      const second = configWithMetadata();
      const b = cached.invoke({ city: "Oslo" }, second.config);
      await flush();
      gates[0]!.reject(new Error("upstream down"));
      await expect(a).rejects.toThrow("upstream down");
      await flush();
      expect(gates).toHaveLength(2);
      gates[1]!.resolve({ city: "Oslo", temp: 4 });
      await expect(b).resolves.toEqual({ city: "Oslo", temp: 4 });
      expect(second.metadata.cached).toBe(false);
    });

    it("has one of the callers waiting for a call that failed call the tool, the others waiting for it", async () => {
      const { weather, gates } = gatedTool();
      const cached = withCache(weather);
      const leader = cached.invoke({ city: "Oslo" });
      await flush();
      const waiting = [configWithMetadata(), configWithMetadata(), configWithMetadata()];
      const results = waiting.map(({ config }) => cached.invoke({ city: "Oslo" }, config));
      await flush();
      expect(gates).toHaveLength(1);
      gates[0]!.reject(new Error("upstream down"));
      await expect(leader).rejects.toThrow("upstream down");
      await flush();
      expect(gates).toHaveLength(2); // one new call, not three
      gates[1]!.reject(new Error("still down"));
      await expect(results[0]).rejects.toThrow("still down");
      await flush();
      expect(gates).toHaveLength(3); // each caller's error comes from its own call
      gates[2]!.resolve({ city: "Oslo", temp: 6 });
      await expect(Promise.all(results.slice(1))).resolves.toEqual([{ city: "Oslo", temp: 6 }, { city: "Oslo", temp: 6 }]);
      expect(gates).toHaveLength(3);
      expect(waiting.map(({ metadata }) => metadata.cached)).toEqual([false, false, true]);
    });

    it("does not call the tool for a waiting caller that aborted just as the call it waited for failed", async () => {
      const gates: Array<ReturnType<typeof deferred<string>>> = [];
      // A tool that does not look at its signal before it starts (as tools made with DynamicStructuredTool).
      const unchecked = new DynamicStructuredTool({
        name: "unchecked",
        description: "Does not look at its signal.",
        schema: z.object({ city: z.string() }),
        func: () => {
          const gate = deferred<string>();
          gates.push(gate);
          return gate.promise;
        },
      });
      const cached = withCache(unchecked);
      const leader = cached.invoke({ city: "Oslo" });
      await flush();
      const { controller, arm } = abortWhenUnlistened();
      // The caller aborts in the moment the call it waits for ends (when it stops listening for its
      // abort while waiting), before it resumes: deterministic, where a real abort would need a race.
      const aborted = cached.invoke({ city: "Oslo" }, { signal: controller.signal });
      // With a signal too, so that it resumes after the aborted caller (not before it, as one without would).
      const other = cached.invoke({ city: "Oslo" }, { signal: new AbortController().signal });
      await flush();
      arm();
      gates[0]!.reject(new Error("upstream down"));
      await expect(leader).rejects.toThrow("upstream down");
      await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
      await flush();
      expect(gates).toHaveLength(2); // the other caller's call, and none for the aborted one
      gates[1]!.resolve("sunny");
      await expect(other).resolves.toBe("sunny");
      expect(gates).toHaveLength(2);
    });

    it("lets every caller that waited for a result it cannot copy call the tool at once", async () => {
      class Handle {
        constructor(readonly id: number) {}
      }
      const gates: Array<ReturnType<typeof deferred<Handle>>> = [];
      const open = tool(
        () => {
          const gate = deferred<Handle>();
          gates.push(gate);
          return gate.promise;
        },
        { name: "open", description: "Opens.", schema: z.object({ q: z.string() }) },
      );
      const cached = withCache(open);
      const first = cached.invoke({ q: "x" });
      await flush();
      const others = [cached.invoke({ q: "x" }), cached.invoke({ q: "x" })];
      await flush();
      gates[0]!.resolve(new Handle(1));
      await expect(first).resolves.toEqual(new Handle(1));
      await flush();
      // Nothing wrong with the tool and nothing to share: they do not wait for one another.
      expect(gates).toHaveLength(3);
      gates[1]!.resolve(new Handle(2));
      gates[2]!.resolve(new Handle(3));
      await expect(Promise.all(others)).resolves.toEqual([new Handle(2), new Handle(3)]);
    });

    it("does not keep waiting callers on a call whose caller aborted, even if its tool ignores the abort", async () => {
      const gates: Array<ReturnType<typeof deferred<string>>> = [];
      const deaf = new DynamicStructuredTool({
        name: "deaf",
        description: "Ignores its signal.",
        schema: z.object({ city: z.string() }),
        func: () => {
          const gate = deferred<string>();
          gates.push(gate);
          return gate.promise;
        },
      });
      const cache = cachePolicy();
      const cached = withPolicies(deaf, [cache]);
      const controller = new AbortController();
      const abandoned = cached.invoke({ city: "Oslo" }, { signal: controller.signal });
      await flush();
      const waiting = cached.invoke({ city: "Oslo" });
      await flush();
      controller.abort();
      await expect(abandoned).rejects.toMatchObject({ name: "AbortError" });
      await flush();
      expect(gates).toHaveLength(2);
      gates[1]!.resolve("sunny");
      await expect(waiting).resolves.toBe("sunny");
      gates[0]!.resolve("late");
      await flush();
      await expect(cached.invoke({ city: "Oslo" })).resolves.toBe("sunny");
      expect(gates).toHaveLength(2);
    });

    it("lets a waiting caller whose signal aborts leave at once; the call under way still fills the cache", async () => {
      const { weather, gates } = gatedTool();
      const cache = cachePolicy();
      const cached = withPolicies(weather, [cache]);
      const a = cached.invoke({ city: "Oslo" });
      await flush();
      const controller = new AbortController();
      const b = cached.invoke({ city: "Oslo" }, { signal: controller.signal });
      await flush();
      controller.abort();
      await expect(b).rejects.toMatchObject({ name: "AbortError" });
      gates[0]!.resolve({ city: "Oslo", temp: 5 });
      await expect(a).resolves.toEqual({ city: "Oslo", temp: 5 });
      expect(cache.size).toBe(1);
      expect(gates).toHaveLength(1);
    });
  });
});
