import { describe, expect, it } from "vitest";
import { unwrapSingleArgument } from "./unwrap-single-argument";

describe("unwrapSingleArgument", () => {
  it("gives a single-input tool's `{ __arg1 }` as its value", () => {
    expect(unwrapSingleArgument({ __arg1: "Paris" })).toBe("Paris");
    expect(unwrapSingleArgument({ __arg1: { nested: true } })).toEqual({ nested: true });
  });

  it("leaves any other arguments as they are", () => {
    const args = { city: "Paris" };
    expect(unwrapSingleArgument(args)).toBe(args);
    expect(unwrapSingleArgument({ __arg1: "Paris", extra: 1 })).toEqual({ __arg1: "Paris", extra: 1 });
    expect(unwrapSingleArgument({})).toEqual({});
    expect(unwrapSingleArgument("text")).toBe("text");
    expect(unwrapSingleArgument([1, 2])).toEqual([1, 2]);
    expect(unwrapSingleArgument(null)).toBeNull();
  });
});
