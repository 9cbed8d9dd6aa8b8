import { DynamicStructuredTool, tool, type StructuredToolInterface } from "@langchain/core/tools";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { concurrencyLimitPolicy } from "./concurrency-limit-policy";
import { RetryableToolError } from "../errors/retryable-tool-error";
import { retryPolicy } from "./retry-policy";
import { abortWhenUnlistened, configWithMetadata, deferred } from "./test-helpers";
import { withPolicies } from "./with-policies";

function gatedTool(name: string) {
  const gates: Array<ReturnType<typeof deferred<string>>> = [];
  const gated = tool(
    () => {
      const gate = deferred<string>();
      gates.push(gate);
      return gate.promise;
    },
    { name, description: "Waits for its gate.", schema: z.object({ n: z.number() }) },
  );
  return { gated, gates };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("concurrencyLimitPolicy", () => {
  it("runs at most maxConcurrent calls, shared across tools, first come first served", async () => {
    const limit = concurrencyLimitPolicy({ maxConcurrent: 2 });
    const a = gatedTool("a");
    const b = gatedTool("b");
    const results = [
      withPolicies(a.gated, [limit]).invoke({ n: 1 }),
      withPolicies(b.gated, [limit]).invoke({ n: 2 }),
      withPolicies(a.gated, [limit]).invoke({ n: 3 }),
    ];
    await tick();
    expect([limit.active, limit.queued]).toEqual([2, 1]);
    expect(a.gates).toHaveLength(1);
    b.gates[0]?.resolve("b1");
    await tick();
    expect(a.gates).toHaveLength(2);
    a.gates[0]?.resolve("a1");
    a.gates[1]?.resolve("a2");
    await expect(Promise.all(results)).resolves.toEqual(["a1", "b1", "a2"]);
    expect([limit.active, limit.queued]).toEqual([0, 0]);
  });

  it("lets a waiting caller leave the line when it aborts", async () => {
    const limit = concurrencyLimitPolicy({ maxConcurrent: 1 });
    const { gated, gates } = gatedTool("g");
    const limited = withPolicies(gated, [limit]);
    const running = limited.invoke({ n: 1 });
    const controller = new AbortController();
    const waiting = limited.invoke({ n: 2 }, { signal: controller.signal });
    await tick();
    expect(limit.queued).toBe(1);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect(limit.queued).toBe(0);
    gates[0]?.resolve("done");
    await expect(running).resolves.toBe("done");
    expect(gates).toHaveLength(1);
    expect(limit.active).toBe(0);
  });

  it("does not start a caller aborted after it was handed a slot, and hands the slot to the next in line", async () => {
    const limit = concurrencyLimitPolicy({ maxConcurrent: 1 });
    const started: number[] = [];
    const gates = new Map<number, ReturnType<typeof deferred<string>>>();
    // A tool that does not look at its signal before it starts (as tools made with DynamicStructuredTool).
    const counted = new DynamicStructuredTool({
      name: "counted",
      description: "Records that it started.",
      schema: z.object({ n: z.number() }),
      func: ({ n }) => {
        started.push(n);
        const gate = deferred<string>();
        gates.set(n, gate);
        return gate.promise;
      },
    });
    const limited = withPolicies(counted, [limit]);
    const first = limited.invoke({ n: 1 });
    const { controller, arm } = abortWhenUnlistened();
    // The caller aborts in the moment it is handed the slot (when the line stops listening for its
    // abort), before its call resumes: deterministic, where a real abort would need a race.
    const second = limited.invoke({ n: 2 }, { signal: controller.signal });
    const third = limited.invoke({ n: 3 });
    await tick();
    expect([limit.active, limit.queued]).toEqual([1, 2]);
    arm();
    gates.get(1)?.resolve("one");
    await expect(first).resolves.toBe("one");
    await expect(second).rejects.toMatchObject({ name: "AbortError" });
    await tick();
    expect(started).toEqual([1, 3]);
    gates.get(3)?.resolve("three");
    await expect(third).resolves.toBe("three");
    expect([limit.active, limit.queued]).toEqual([0, 0]);
  });

  it("gives the slot back when a running call aborts, even if its tool ignores the abort", async () => {
    const limit = concurrencyLimitPolicy({ maxConcurrent: 1 });
    // A tool whose invoke never looks at its signal (a @langchain/core tool() would at least reject on abort).
    const gates: Array<ReturnType<typeof deferred<string>>> = [];
    const deaf = {
      name: "deaf",
      description: "Ignores aborts.",
      schema: z.object({ n: z.number() }),
      returnDirect: false,
      invoke: () => {
        const gate = deferred<string>();
        gates.push(gate);
        return gate.promise;
      },
    } as unknown as StructuredToolInterface;
    const limited = withPolicies(deaf, [limit]);
    const controller = new AbortController();
    const hung = limited.invoke({ n: 1 }, { signal: controller.signal });
    await tick();
    expect(limit.active).toBe(1);
    controller.abort();
    await expect(hung).rejects.toMatchObject({ name: "AbortError" });
    await tick();
    expect(limit.active).toBe(0);
    const next = limited.invoke({ n: 2 });
    await tick();
    expect(gates).toHaveLength(2);
    gates[1]?.resolve("second");
    await expect(next).resolves.toBe("second");
    gates[0]?.resolve("too late");
    await tick();
    expect([limit.active, limit.queued]).toEqual([0, 0]);
  });

  it("sums the time spent waiting for a slot over the attempts of a retry policy outside it", async () => {
    vi.useFakeTimers();
    try {
      const limit = concurrencyLimitPolicy({ maxConcurrent: 1 });
      const { gated, gates } = gatedTool("g");
      const blocker = withPolicies(gated, [limit]).invoke({ n: 1 });
      let calls = 0;
      const flaky = tool(
        async () => {
          calls += 1;
          if (calls === 1) throw new RetryableToolError({ message: "busy" });
          return "ok";
        },
        { name: "flaky", description: "Fails once.", schema: z.object({}) },
      );
      const { config, metadata } = configWithMetadata();
      const result = withPolicies(flaky, [retryPolicy({ initialDelayMs: 1, jitter: false }), limit]).invoke({}, config);
      await vi.advanceTimersByTimeAsync(100);
      gates[0]?.resolve("done");
      await expect(blocker).resolves.toBe("done");
      await vi.advanceTimersByTimeAsync(1);
      await expect(result).resolves.toBe("ok");
      expect(calls).toBe(2);
      // 100 ms of the fake clock in line before the first attempt, none before the second.
      expect(metadata.queuedMs).toBe(100);
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses a bad limit at construction", () => {
    expect(() => concurrencyLimitPolicy({ maxConcurrent: 0 })).toThrow(/maxConcurrent must be an integer >= 1, got 0/);
  });
});
