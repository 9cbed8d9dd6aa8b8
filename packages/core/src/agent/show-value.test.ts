import { describe, expect, it } from "vitest";
import { showValue } from "./show-value";

/** An object whose cycle makes `JSON.stringify` throw. */
function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { name: "loop" };
  value["self"] = value;
  return value;
}

describe("showValue", () => {
  it("shows ordinary values as JSON, strings quoted and numbers as written", () => {
    expect(showValue("fast")).toBe('"fast"');
    expect(showValue(3)).toBe("3");
    expect(showValue(-0)).toBe("-0");
    expect(showValue(Number.NaN)).toBe("NaN");
    expect(showValue(Number.POSITIVE_INFINITY)).toBe("Infinity");
    expect(showValue(Number.NEGATIVE_INFINITY)).toBe("-Infinity");
    expect(showValue(true)).toBe("true");
    expect(showValue(null)).toBe("null");
    expect(showValue(undefined)).toBe("undefined");
    expect(showValue([1, "a"])).toBe('[1,"a"]');
    expect(showValue({ retries: 2 })).toBe('{"retries":2}');
  });

  it("shows a BigInt with its n, a symbol and a function by kind", () => {
    expect(showValue(10n)).toBe("10n");
    expect(showValue(-3n)).toBe("-3n");
    expect(showValue(Symbol("tag"))).toBe("Symbol(tag)");
    expect(showValue(() => 1)).toBe("a function");
    expect(showValue(class Model {})).toBe("a function");
  });

  it("falls back to the kind of value when JSON cannot write it, and never throws", () => {
    expect(showValue(cyclic())).toBe("an object");
    expect(showValue({ count: 10n })).toBe("an object");
    expect(showValue([1n])).toBe("an array");
    expect(showValue(new (class Budget { self = this })())).toBe("a Budget");
    const throwingGetter = Object.defineProperty({}, "boom", {
      enumerable: true,
      get() {
        throw new Error("getter");
      },
    });
    expect(showValue(throwingGetter)).toBe("an object");
    expect(showValue({ toJSON: () => { throw new Error("toJSON"); } })).toBe("an object");
    const bare = Object.create(null) as Record<string, unknown>;
    expect(showValue(bare)).toBe("{}");
    bare["n"] = 1n;
    expect(showValue(bare)).toBe("an object without a prototype");
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(showValue(proxy)).toBe("an object");
  });

  it("uses `String` when JSON writes nothing, guarded", () => {
    const noJson = { toJSON: () => undefined, toString: () => "custom" };
    expect(showValue(noJson)).toBe("custom");
    const bare = Object.assign(Object.create(null) as object, { toJSON: () => undefined });
    expect(showValue(bare)).toBe("an object without a prototype");
    const throwing = { toJSON: () => undefined, toString: () => { throw new Error("toString"); } };
    expect(showValue(throwing)).toBe("an object");
  });

  it("cuts a value longer than 200 characters to 200, the last an ellipsis", () => {
    const long = "x".repeat(500);
    const shown = showValue(long);
    expect(shown).toBe(`"${"x".repeat(198)}…`);
    expect(shown).toHaveLength(200);
    expect(showValue({ list: Array.from({ length: 100 }, (_, i) => i) })).toMatch(/^\{"list":\[0,1,2,.{150,}…$/);
    expect(showValue(`a${"😀".repeat(150)}`)).not.toMatch(/[\ud800-\udbff]…$/); // no half of an emoji before the ellipsis
    expect(showValue("y".repeat(198))).toBe(`"${"y".repeat(198)}"`); // 200 characters with its quotes: as it is
    expect(showValue("y".repeat(199))).toBe(`"${"y".repeat(198)}…`); // 201: cut
  });
});
