import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stableStringify } from "./stable-stringify";

describe("stableStringify", () => {
  it("sorts keys at every level and keeps array order", () => {
    expect(stableStringify({ b: 1, a: [3, { d: 1, c: 2 }] })).toBe('{"a":[3,{"c":2,"d":1}],"b":1}');
    expect(stableStringify([2, 1])).toBe("[2,1]");
    expect(stableStringify(undefined)).toBe("undefined");
    expect(stableStringify(JSON.parse('{"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1}}');
  });

  it("gives the same text for any key order of the same value", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse());
        expect(stableStringify(reversed)).toBe(stableStringify(value));
        expect(JSON.parse(stableStringify(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 200 },
    );
  });
});
