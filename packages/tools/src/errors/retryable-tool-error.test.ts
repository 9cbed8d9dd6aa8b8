import { InvalidArgumentError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { RetryableToolError, isRetryableError } from "./retryable-tool-error";

describe("RetryableToolError", () => {
  it("takes its message alone, as an Error does, or in its options", () => {
    const short = new RetryableToolError("Upstream returned 503.");
    expect([short.message, short.retryAfterMs, isRetryableError(short)]).toEqual(["Upstream returned 503.", undefined, true]);
    const cause = new Error("socket hang up");
    const full = new RetryableToolError({ message: "busy", retryAfterMs: 250, cause });
    expect([full.message, full.retryAfterMs, full.cause]).toEqual(["busy", 250, cause]);
  });

  it.each([
    ["no options", undefined, /pass \{ message, retryAfterMs\?, cause\? \} or the message as a string, got undefined/],
    ["null", null, /got null/],
    ["no message", {}, /`message` must be a string, got none/],
    ["a message that is no string", { message: 503 }, /`message` must be a string, got number/],
    ["a wait that is no number", { message: "busy", retryAfterMs: "1000" }, /`retryAfterMs` must be a number of milliseconds, got string/],
  ])("refuses %s, naming it, rather than lose the message", (_name, options, problem) => {
    let error: unknown;
    try {
      new RetryableToolError(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^RetryableToolError: /);
    expect((error as Error).message).toMatch(problem);
  });
});
