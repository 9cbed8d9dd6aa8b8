import { InvalidArgumentError } from "@agentrx/core";
import { tool } from "@langchain/core/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { RetryableToolError } from "../errors/retryable-tool-error";
import { ToolRetriesExhaustedError } from "../errors/tool-retries-exhausted-error";
import { retryPolicy, withRetry } from "./retry-policy";
import { configWithMetadata } from "./test-helpers";
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
