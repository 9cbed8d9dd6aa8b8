import { describe, expect, it } from "vitest";
import { AbortError, isAbortError } from "./abort-error";
import { AgentRxError } from "./agentrx-error";
import { InvalidArgumentError } from "./invalid-argument-error";

/** Simulates an error thrown by a second copy of the package: same markers, different classes. */
function foreignCopy(marker: string, name: string): Error {
  const error = new Error("from another copy");
  error.name = name;
  Object.defineProperty(error, Symbol.for("agentrx.error"), { value: true });
  Object.defineProperty(error, Symbol.for(marker), { value: true });
  return error;
}

describe("AgentRxError", () => {
  it("carries name, message and cause", () => {
    const cause = new Error("root");
    const error = new AgentRxError({ name: "SomethingError", message: "it broke", cause });
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.message, error.cause]).toEqual(["SomethingError", "it broke", cause]);
    expect("cause" in new AgentRxError({ name: "X", message: "y" })).toBe(false);
  });

  it("recognises its own errors and errors from another copy by marker", () => {
    expect(AgentRxError.isInstance(new AgentRxError({ name: "X", message: "y" }))).toBe(true);
    expect(AgentRxError.isInstance(new InvalidArgumentError({ argument: "a", value: 1, message: "m" }))).toBe(true);
    expect(AgentRxError.isInstance(foreignCopy("agentrx.error.AbortError", "AbortError"))).toBe(true);
    for (const value of [new Error("plain"), null, undefined, "agentrx.error", { name: "AgentRxError" }]) {
      expect(AgentRxError.isInstance(value)).toBe(false);
    }
  });
});

describe("InvalidArgumentError", () => {
  it("carries the argument and value, and is told apart from other AgentRx errors", () => {
    const error = new InvalidArgumentError({ argument: "maxIterations", value: -1, message: "maxIterations must be >= 0" });
    expect([error.name, error.argument, error.value]).toEqual(["InvalidArgumentError", "maxIterations", -1]);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(InvalidArgumentError.isInstance(new AbortError())).toBe(false);
    expect(InvalidArgumentError.isInstance(foreignCopy("agentrx.error.InvalidArgumentError", "InvalidArgumentError"))).toBe(true);
  });
});

describe("AbortError", () => {
  it("is named AbortError and explains the reason", () => {
    expect(new AbortError().message).toBe("The run was aborted.");
    expect(new AbortError({ reason: "user pressed stop" }).message).toBe("The run was aborted: user pressed stop");
    const reason = new Error("deadline");
    const error = new AbortError({ reason });
    expect([error.name, error.reason, error.cause]).toEqual(["AbortError", reason, reason]);
    expect(new AbortError({ message: "custom" }).message).toBe("custom");
  });

  it("is told apart by marker, and isAbortError accepts any abort-shaped error", () => {
    expect(AbortError.isInstance(new AbortError())).toBe(true);
    expect(AbortError.isInstance(new InvalidArgumentError({ argument: "a", value: 1, message: "m" }))).toBe(false);
    expect(AbortError.isInstance(foreignCopy("agentrx.error.AbortError", "AbortError"))).toBe(true);
    const dom = new DOMException("aborted", "AbortError");
    expect(AbortError.isInstance(dom)).toBe(false);
    expect(isAbortError(dom)).toBe(true);
    expect(isAbortError(new AbortError())).toBe(true);
    expect(isAbortError(new Error("nope"))).toBe(false);
    expect(isAbortError(null)).toBe(false);
  });
});
