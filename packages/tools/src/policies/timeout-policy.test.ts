import { InvalidArgumentError } from "@agentrx/core";
import { DynamicStructuredTool, tool } from "@langchain/core/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ToolTimeoutError } from "../errors/tool-timeout-error";
import { configWithMetadata } from "./test-helpers";
import { timeoutPolicy, withTimeout } from "./timeout-policy";

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
});
