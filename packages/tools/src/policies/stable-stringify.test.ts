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

  it("never gives two different values the same text, and does not throw on values JSON cannot hold", () => {
    const distinct = [
      { m: new Map([["a", 1]]) },
      { m: new Map([["a", 2]]) },
      { m: new Map() },
      { m: {} },
      { s: new Set([1]) },
      { s: new Set() },
      { n: Number.NaN },
      { n: null },
      { n: Number.POSITIVE_INFINITY },
      { n: 1n },
      { n: 1 },
      { n: "1" },
      { a: [undefined] },
      { a: [null] },
      { z: 0 },
      { z: -0 },
      { d: new Date(0) },
      { d: "1970-01-01T00:00:00.000Z" },
      { d: new Date(Number.NaN) },
      { u: new URL("https://example.com/") },
      { u: "https://example.com/" },
      { j: { toJSON: () => "x" } },
      { j: "x" },
    ];
    const texts = distinct.map(stableStringify);
    expect(new Set(texts).size).toBe(distinct.length);
    expect(stableStringify(new Map([["b", 1], ["a", 2]]))).toBe(stableStringify(new Map([["a", 2], ["b", 1]])));
    expect(stableStringify({ when: new Date(0), skip: undefined, f: () => 1 })).toBe('{"when":Date("1970-01-01T00:00:00.000Z")}');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(stableStringify(cyclic)).toBe('{"a":1,"self":[Circular]}');
    const selfJSON = { toJSON() { return this; } };
    expect(stableStringify(selfJSON)).toBe("Object([Circular])");
  });

  it("gives the same text for any key order of the same value", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse());
        expect(stableStringify(reversed)).toBe(stableStringify(value));
        // JSON text that reads back as the value: -0 too, which JSON.stringify writes as 0.
        expect(JSON.parse(stableStringify(value))).toEqual(value);
        const normal: unknown = JSON.parse(JSON.stringify(value));
        expect(JSON.parse(stableStringify(normal))).toEqual(normal);
      }),
      { numRuns: 200 },
    );
  });
});
