import { InvalidArgumentError } from "@agentrx/core";
import { tool } from "@langchain/core/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { RetryableToolError } from "../errors/retryable-tool-error";
import { ToolRetriesExhaustedError } from "../errors/tool-retries-exhausted-error";
import { retryPolicy, withRetry } from "./retry-policy";
import { configWithMetadata } from "./test-helpers";
import { timeoutPolicy } from "./timeout-policy";
import { withPolicies, type ToolPolicy } from "./with-policies";

function failingTool(failures: unknown[]) {
  const calls = { count: 0 };
  const flaky = tool(
    async () => {
      const failure = failures[calls.count];
      calls.count += 1;
      if (failure) throw failure;
      return `ok after ${calls.count}`;
    },
    { name: "flaky", description: "Fails on cue.", schema: z.object({}) },
  );
  return { flaky, calls };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("retryPolicy", () => {
  it("retries retryable errors with backoff and reports the attempts", async () => {
    const { flaky, calls } = failingTool([
      new RetryableToolError({ message: "busy" }),
      Object.assign(new Error("reset"), { retryable: true }),
    ]);
    const { config, metadata } = configWithMetadata();
    const result = withRetry(flaky, { initialDelayMs: 100, jitter: false }).invoke({}, config);
    await vi.advanceTimersByTimeAsync(99);
    expect(calls.count).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.count).toBe(2);
    await vi.advanceTimersByTimeAsync(199);
    expect(calls.count).toBe(2); // the second wait is doubled
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe("ok after 3");
    expect(metadata).toMatchObject({ attempts: 3, attemptErrors: ["busy", "reset"] });
  });

  it("does not report a call that succeeded after failed attempts as failed", async () => {
    const { flaky } = failingTool([new RetryableToolError({ message: "busy" })]);
    // What a wrapper inside the retries (a nested policy tool) writes when its attempt fails.
    const recordFailure: ToolPolicy = async ({ config, metadata }, next) => {
      try {
        return await next(config);
      } catch (error) {
        metadata.error = (error as Error).message;
        throw error;
      }
    };
    const { config, metadata } = configWithMetadata();
    const result = withPolicies(flaky, [retryPolicy({ initialDelayMs: 1 }), recordFailure]).invoke({}, config);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe("ok after 2");
    expect(metadata).not.toHaveProperty("error");
    expect(metadata).toMatchObject({ attempts: 2, attemptErrors: ["busy"] });
  });

  it("reports what the call threw as its error, and every attempt's error, when all attempts fail", async () => {
    const { flaky } = failingTool([new RetryableToolError({ message: "busy" }), new RetryableToolError({ message: "still busy" })]);
    const { config, metadata } = configWithMetadata();
    const result = withRetry(flaky, { maxAttempts: 2, initialDelayMs: 1 }).invoke({}, config);
    const assertion = expect(result).rejects.toThrow(ToolRetriesExhaustedError);
    await vi.advanceTimersByTimeAsync(1);
    await assertion;
    expect(metadata).toMatchObject({ attempts: 2, attemptErrors: ["busy", "still busy"], error: 'Tool "flaky" failed after 2 attempts: still busy' });
  });

  it("does not retry an error that is not marked retryable", async () => {
    const { flaky, calls } = failingTool([new Error("bad input")]);
    const { config, metadata } = configWithMetadata();
    await expect(withRetry(flaky).invoke({}, config)).rejects.toThrow("bad input");
    expect(calls.count).toBe(1);
    expect(metadata.attempts).toBe(1);
  });

  it("gives up after maxAttempts with an error that says so", async () => {
    const busy = new RetryableToolError({ message: "still busy" });
    const { flaky, calls } = failingTool([busy, busy, busy, busy]);
    const result = withRetry(flaky, { maxAttempts: 3, initialDelayMs: 10 }).invoke({});
    const assertion = expect(result).rejects.toThrow('Tool "flaky" failed after 3 attempts: still busy');
    await vi.advanceTimersByTimeAsync(1000);
    await assertion;
    const error = await result.catch((e: unknown) => e);
    expect(ToolRetriesExhaustedError.isInstance(error)).toBe(true);
    expect((error as ToolRetriesExhaustedError).cause).toBe(busy);
    expect(calls.count).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("waits at least retryAfterMs and uses a custom predicate", async () => {
    const { flaky, calls } = failingTool([new RetryableToolError({ message: "429", retryAfterMs: 500 })]);
    const result = withRetry(flaky, { initialDelayMs: 10, jitter: false }).invoke({});
    await vi.advanceTimersByTimeAsync(499);
    expect(calls.count).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe("ok after 2");

    const custom = failingTool([new Error("ECONNRESET")]);
    const retried = withRetry(custom.flaky, { isRetryable: (e) => String(e).includes("ECONNRESET"), initialDelayMs: 1 }).invoke({});
    await vi.advanceTimersByTimeAsync(10);
    await expect(retried).resolves.toBe("ok after 2");
  });

  it("awaits an async isRetryable, and fails the call naming isRetryable when it says neither true nor false", async () => {
    const permanent = failingTool([new Error("permanent")]);
    await expect(withRetry(permanent.flaky, { isRetryable: async () => false, initialDelayMs: 1 }).invoke({})).rejects.toThrow("permanent");
    expect(permanent.calls.count).toBe(1);

    const transient = failingTool([new Error("ECONNRESET")]);
    const retried = withRetry(transient.flaky, { isRetryable: async (error) => String(error).includes("ECONNRESET"), initialDelayMs: 1, jitter: false }).invoke({});
    await vi.advanceTimersByTimeAsync(1);
    await expect(retried).resolves.toBe("ok after 2");

    for (const [answer, shown] of [[undefined, "undefined"], [1, "1"], [Promise.resolve("yes"), '"yes"']] as const) {
      const { flaky, calls } = failingTool([new Error("boom")]);
      const error = await withRetry(flaky, { isRetryable: (() => answer) as never, initialDelayMs: 1 }).invoke({}).then(() => undefined, (caught: unknown) => caught);
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe("retryPolicy isRetryable");
      expect((error as Error).message).toBe(`retryPolicy isRetryable must return true or false (or a Promise of one), got ${shown} for attempt 1 of tool "flaky", which failed with: boom`);
      expect((error as Error).cause).toMatchObject({ message: "boom" });
      expect(calls.count).toBe(1);
    }

    // A rejection is the call's error, not an unhandled one.
    const rejecting = failingTool([new Error("boom")]);
    await expect(withRetry(rejecting.flaky, { isRetryable: () => Promise.reject(new Error("breaker store down")) }).invoke({})).rejects.toThrow("breaker store down");
  });

  it("stops waiting for an async isRetryable when the caller aborts", async () => {
    const { flaky } = failingTool([new Error("boom")]);
    const controller = new AbortController();
    const result = withRetry(flaky, { isRetryable: () => new Promise<boolean>(() => undefined) }).invoke({}, { signal: controller.signal });
    const assertion = expect(result).rejects.toMatchObject({ name: "AbortError" });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    await assertion;
  });

  it("stops waiting when the caller aborts during the backoff", async () => {
    const { flaky, calls } = failingTool([new RetryableToolError({ message: "busy" })]);
    const controller = new AbortController();
    const result = withRetry(flaky, { initialDelayMs: 10_000 }).invoke({}, { signal: controller.signal });
    const assertion = expect(result).rejects.toMatchObject({ name: "AbortError" });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    await assertion;
    expect(calls.count).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refuses bad options at construction", () => {
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(/maxAttempts must be an integer >= 1/);
    expect(() => retryPolicy({ factor: 0.5 })).toThrow(InvalidArgumentError);
    expect(() => retryPolicy({ isRetryable: "yes" as never })).toThrow(/isRetryable must be a function/);
  });

  it("gives up at once when an error asks for a longer wait than maxDelayMs, instead of retrying too soon", async () => {
    const { flaky, calls } = failingTool([new RetryableToolError({ message: "429 Too Many Requests", retryAfterMs: 3_600_000 })]);
    const { config, metadata } = configWithMetadata();
    const result = withRetry(flaky, { maxDelayMs: 1000, initialDelayMs: 10 }).invoke({}, config);
    const settled = result.then((value) => ({ value }), (error: unknown) => ({ error }));
    await vi.advanceTimersByTimeAsync(1000);
    const outcome = (await settled) as { value?: unknown; error?: unknown };
    expect(outcome.value).toBeUndefined();
    expect(ToolRetriesExhaustedError.isInstance(outcome.error)).toBe(true);
    expect((outcome.error as Error).message).toBe(
      'Tool "flaky" gave up after 1 attempts: the failure asked to wait 3600000 ms before trying again, longer than maxDelayMs (1000 ms). 429 Too Many Requests',
    );
    expect(calls.count).toBe(1);
    expect(metadata.attempts).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("retryPolicy's record of a call: nested policies, aborts and timeouts", () => {
  const busy = (message: string) => new RetryableToolError({ message });

  it("keeps one record across nested retry policies: every attempt counted, every failure listed once", async () => {
    const { flaky, calls } = failingTool([busy("a"), busy("b"), busy("c")]);
    const inner = withRetry(flaky, { maxAttempts: 2, initialDelayMs: 1, jitter: false });
    const outer = withPolicies(inner, [retryPolicy({ maxAttempts: 2, initialDelayMs: 1, jitter: false, isRetryable: () => true })]);
    const { config, metadata } = configWithMetadata();
    const result = outer.invoke({}, config);
    await vi.advanceTimersByTimeAsync(10);
    await expect(result).resolves.toBe("ok after 4");
    expect(calls.count).toBe(4);
    expect(metadata).toMatchObject({ attempts: 4, attemptErrors: ["a", "b", "c"] });
    expect(metadata).not.toHaveProperty("error");
  });

  it("reports what the outermost policy threw as the error when every level gives up", async () => {
    const { flaky } = failingTool([busy("a"), busy("b"), busy("c"), busy("d")]);
    const tool = withPolicies(flaky, [retryPolicy({ maxAttempts: 2, initialDelayMs: 1, isRetryable: () => true }), retryPolicy({ maxAttempts: 2, initialDelayMs: 1 })]);
    const { config, metadata } = configWithMetadata();
    const result = tool.invoke({}, config);
    const assertion = expect(result).rejects.toThrow(ToolRetriesExhaustedError);
    await vi.advanceTimersByTimeAsync(10);
    await assertion;
    expect(metadata).toMatchObject({
      attempts: 4,
      attemptErrors: ["a", "b", "c", "d"],
      error: 'Tool "flaky" failed after 2 attempts: Tool "flaky" failed after 2 attempts: d',
    });
  });

  it("lists a timeout between two retry policies once, in order, and an abandoned inner attempt not at all", async () => {
    const { flaky, calls } = failingTool([busy("busy")]);
    const tool = withPolicies(flaky, [retryPolicy({ initialDelayMs: 1, jitter: false }), timeoutPolicy({ ms: 100 }), retryPolicy({ initialDelayMs: 1000, jitter: false })]);
    const { config, metadata } = configWithMetadata();
    const result = tool.invoke({}, config);
    await vi.advanceTimersByTimeAsync(200);
    await expect(result).resolves.toBe("ok after 2");
    expect(calls.count).toBe(2);
    expect(metadata).toMatchObject({ attempts: 2, attemptErrors: ["busy", expect.stringContaining('Tool "flaky" timed out after 100 ms')], timedOut: true });
    expect(metadata).not.toHaveProperty("error");
  });

  it("leaves the call's error in place when the caller aborts during an attempt, and lists no aborted attempt", async () => {
    const hanging = tool(
      (_input, config) => new Promise<string>((_resolve, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("stopped")))),
      { name: "hanging", description: "Waits for its signal.", schema: z.object({}) },
    );
    const controller = new AbortController();
    const { config, metadata } = configWithMetadata({ signal: controller.signal });
    const result = withRetry(hanging).invoke({}, config);
    const assertion = expect(result).rejects.toMatchObject({ name: "AbortError" });
    await vi.advanceTimersByTimeAsync(1);
    controller.abort();
    await assertion;
    await vi.advanceTimersByTimeAsync(1); // the tool's own rejection reaches the retry policy after the call ended
    expect(metadata.error).toEqual(expect.any(String));
    expect(metadata).not.toHaveProperty("attemptErrors");
  });

  it("keeps timedOut after a timed-out attempt that a retry made good: it says an attempt timed out, not that the call failed", async () => {
    const calls = { count: 0 };
    const slowOnce = tool(
      (_input, config) => {
        calls.count += 1;
        if (calls.count > 1) return Promise.resolve("fast");
        return new Promise<string>((_resolve, reject) => config?.signal?.addEventListener("abort", () => reject(config.signal?.reason)));
      },
      { name: "slow_once", description: "Hangs the first time.", schema: z.object({}) },
    );
    const { config, metadata } = configWithMetadata();
    const result = withPolicies(slowOnce, [retryPolicy({ initialDelayMs: 1, jitter: false }), timeoutPolicy({ ms: 50 })]).invoke({}, config);
    await vi.advanceTimersByTimeAsync(60);
    await expect(result).resolves.toBe("fast");
    expect(metadata).toMatchObject({ timedOut: true, attempts: 2, attemptErrors: [expect.stringContaining("timed out after 50 ms")] });
    expect(metadata).not.toHaveProperty("error");
  });
});
