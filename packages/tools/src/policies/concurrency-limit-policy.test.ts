import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { concurrencyLimitPolicy } from "./concurrency-limit-policy";
import { deferred } from "./test-helpers";
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

  it("refuses a bad limit at construction", () => {
    expect(() => concurrencyLimitPolicy({ maxConcurrent: 0 })).toThrow(/maxConcurrent must be an integer >= 1, got 0/);
  });
});
