import { InvalidArgumentError } from "@agentrx/core";
import { DynamicStructuredTool, tool } from "@langchain/core/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { withInDoubt } from "../approval/with-in-doubt";
import { ToolRetriesExhaustedError } from "../errors/tool-retries-exhausted-error";
import { ToolTimeoutError } from "../errors/tool-timeout-error";
import { retryPolicy } from "./retry-policy";
import { configWithMetadata } from "./test-helpers";
import { timeoutPolicy, withTimeout } from "./timeout-policy";
import { withPolicies } from "./with-policies";

let seenSignal: AbortSignal | undefined;
// Never finishes on its own and ignores its signal: the policy must still give up.
const stuck = tool(
  (_input, config) => {
    seenSignal = config?.signal;
    return new Promise<string>(() => undefined);
  },
  { name: "stuck", description: "Never answers.", schema: z.object({}) },
);
const quick = tool(async () => "fast", { name: "quick", description: "Answers at once.", schema: z.object({}) });

beforeEach(() => {
  vi.useFakeTimers();
  seenSignal = undefined;
});
afterEach(() => {
  vi.useRealTimers();
});

describe("timeoutPolicy", () => {
  it("fails with a ToolTimeoutError naming the tool and aborts the tool's signal", async () => {
    const { config, metadata } = configWithMetadata();
    const result = withTimeout(stuck, { ms: 100 }).invoke({}, config);
    const assertion = expect(result).rejects.toThrow('Tool "stuck" timed out after 100 ms');
    await vi.advanceTimersByTimeAsync(100);
    await assertion;
    await result.catch((error) => expect(ToolTimeoutError.isInstance(error)).toBe(true));
    expect(seenSignal?.aborted).toBe(true);
    expect(ToolTimeoutError.isInstance(seenSignal?.reason)).toBe(true);
    expect(metadata).toMatchObject({ timedOut: true, error: expect.stringContaining("timed out") });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not fire before the limit, and clears its timer when the tool answers", async () => {
    const pending = withTimeout(stuck, { ms: 100 }).invoke({});
    pending.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(99);
    expect(seenSignal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(seenSignal?.aborted).toBe(true);
    await expect(withTimeout(quick, { ms: 100 }).invoke({})).resolves.toBe("fast");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("honours the caller's abort", async () => {
    const controller = new AbortController();
    const result = withTimeout(stuck, { ms: 10_000 }).invoke({}, { signal: controller.signal });
    const assertion = expect(result).rejects.toMatchObject({ name: "AbortError" });
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    await assertion;
    expect(seenSignal?.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ends the call on the caller's abort even if the tool ignores its signal", async () => {
    const deaf = new DynamicStructuredTool({
      name: "deaf",
      description: "Ignores its signal.",
      schema: z.object({}),
      func: () => new Promise<string>(() => undefined),
    });
    const controller = new AbortController();
    const result = withTimeout(deaf, { ms: 10_000 }).invoke({}, { signal: controller.signal });
    const assertion = expect(result).rejects.toMatchObject({ name: "AbortError" });
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    await assertion;
    expect(vi.getTimerCount()).toBe(0);
    const timedOut = withTimeout(deaf, { ms: 30 }).invoke({});
    const timeoutAssertion = expect(timedOut).rejects.toThrow(ToolTimeoutError);
    await vi.advanceTimersByTimeAsync(30);
    await timeoutAssertion;
  });

  it("refuses a bad limit at construction", () => {
    expect(() => timeoutPolicy({ ms: 0 })).toThrow(InvalidArgumentError);
    expect(() => timeoutPolicy({ ms: Number.NaN })).toThrow(/timeoutPolicy ms must be a number between 1 and 2147483647/);
    // setTimeout fires at once for longer delays: "no limit" written as Infinity would time out every call
    expect(() => timeoutPolicy({ ms: Number.POSITIVE_INFINITY })).toThrow(/timeoutPolicy ms must be a number between 1 and 2147483647, got Infinity/);
    expect(() => timeoutPolicy({ ms: 2 ** 31 })).toThrow(InvalidArgumentError);
  });

  describe("whether its timeout may be retried", () => {
    let calls = 0;
    const charge = tool(
      () => {
        calls += 1;
        return new Promise<string>(() => undefined);
      },
      { name: "charge", description: "Charges a card.", schema: z.object({}) },
    );
    /** How many times the tool ran under a retry policy of 3 attempts around `wrapped`'s timeout, and the error. */
    const attempts = async (wrapped: { invoke: (input: object) => Promise<unknown> }) => {
      calls = 0;
      const result = wrapped.invoke({});
      result.catch(() => undefined);
      await vi.advanceTimersByTimeAsync(1000);
      const error = await result.then(() => undefined, (caught: unknown) => caught);
      return { calls, error };
    };
    const around = (inner: Parameters<typeof withPolicies>[0], options: { retryable?: boolean } = {}) =>
      withPolicies(inner, [retryPolicy({ maxAttempts: 3, initialDelayMs: 1, jitter: false }), timeoutPolicy({ ms: 10, ...options })]);
    const expectNoRetry = ({ calls: made, error }: { calls: number; error: unknown }) => {
      expect(made).toBe(1);
      expect(ToolTimeoutError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ retryable: false });
    };
    const expectRetries = ({ calls: made, error }: { calls: number; error: unknown }) => {
      expect(made).toBe(3);
      expect(ToolRetriesExhaustedError.isInstance(error)).toBe(true);
    };

    it("is not retried for a tool marked withInDoubt interrupt or fail, inside or outside the policies", async () => {
      expectNoRetry(await attempts(around(withInDoubt(charge, "interrupt"))));
      expectNoRetry(await attempts(withInDoubt(around(charge), "fail")));
      expectRetries(await attempts(around(charge)));
      expectRetries(await attempts(around(withInDoubt(charge, "retry"))));
    });

    it("follows the retryable option when it is given", async () => {
      expectNoRetry(await attempts(around(charge, { retryable: false })));
      expectNoRetry(await attempts(around(withInDoubt(charge, "retry"), { retryable: false })));
      expectRetries(await attempts(around(withInDoubt(charge, "interrupt"), { retryable: true })));
      expect(() => timeoutPolicy({ ms: 10, retryable: "no" as never })).toThrow(/timeoutPolicy retryable must be true or false, got "no"/);
    });

    it("refuses a retryable that JSON cannot write (a BigInt, a cycle) naming the option, not with a TypeError", () => {
      const cyclic: Record<string, unknown> = {};
      cyclic["self"] = cyclic;
      expect(() => timeoutPolicy({ ms: 10, retryable: 1n as never })).toThrow(/^timeoutPolicy retryable must be true or false, got 1n\.$/);
      expect(() => timeoutPolicy({ ms: 10, retryable: cyclic as never })).toThrow(/^timeoutPolicy retryable must be true or false, got an object\.$/);
      expect(() => timeoutPolicy({ ms: 10, retryable: 1n as never })).toThrow(InvalidArgumentError);
    });
  });
});
