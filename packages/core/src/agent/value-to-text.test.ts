import { describe, expect, it } from "vitest";
import { valueToText } from "./value-to-text";

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { name: "loop" };
  value["self"] = value;
  return value;
}

describe("valueToText", () => {
  it("gives a string as it is and anything else as JSON, however long", () => {
    expect(valueToText("Sunny")).toBe("Sunny");
    expect(valueToText({ city: "Paris" })).toBe('{"city":"Paris"}');
    expect(valueToText([1, 2])).toBe("[1,2]");
    expect(valueToText(3)).toBe("3");
    expect(valueToText(null)).toBe("null");
    expect(valueToText(Number.NaN)).toBe("null");
    expect(valueToText(Number.POSITIVE_INFINITY)).toBe("null");
    const long = { text: "z".repeat(5000) };
    expect(valueToText(long)).toBe(JSON.stringify(long));
  });

  it("quotes a string with `quoteStrings`", () => {
    expect(valueToText("Sunny", { quoteStrings: true })).toBe('"Sunny"');
    expect(valueToText({ a: 1 }, { quoteStrings: true })).toBe('{"a":1}');
  });

  it("gives `String(value)` when JSON writes nothing or cannot write it", () => {
    expect(valueToText(undefined)).toBe("undefined");
    expect(valueToText(Symbol("tag"))).toBe("Symbol(tag)");
    expect(valueToText(10n)).toBe("10");
    expect(valueToText(cyclic())).toBe("[object Object]");
    expect(valueToText({ toJSON: () => { throw new Error("toJSON"); } })).toBe("[object Object]");
    const fn = function answer() {
      return 42;
    };
    expect(valueToText(fn)).toBe(String(fn));
  });

  it("never throws: the kind of value when `String` throws too", () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare["n"] = 1n;
    expect(valueToText(bare)).toBe("an object without a prototype");
    const throwingGetter = Object.defineProperty(Object.create(null) as object, "boom", {
      enumerable: true,
      get() {
        throw new Error("getter");
      },
    });
    expect(valueToText(throwingGetter)).toBe("an object without a prototype");
    const throwing = { self: undefined as unknown, toString: () => { throw new Error("toString"); } };
    throwing.self = throwing;
    expect(valueToText(throwing)).toBe("an object");
    expect(valueToText([1n, { toString: null }])).toBe("an array");
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(valueToText(proxy)).toBe("an object");
  });
});
