import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringifyJson } from "./stringify-json";

function nested(depth: number): unknown {
  let value: unknown = { leaf: [1, "two", null] };
  for (let level = 0; level < depth; level++) value = level % 2 ? [value, level] : { level, next: value };
  return value;
}

describe("stringifyJson", () => {
  it("writes what JSON.stringify writes for any JSON-like value", () => {
    const extra = fc.constantFrom(undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, () => 1, Symbol("s"), new Date(0), new Number(3), new String("x"));
    fc.assert(
      fc.property(fc.anything({ values: [fc.jsonValue(), extra] as never, maxDepth: 4 }), (value) => {
        let expected: string | undefined;
        try {
          expected = JSON.stringify(value);
        } catch {
          return; // BigInt and the like: covered below
        }
        expect(stringifyJson(value)).toBe(expected);
      }),
      { seed: 15, numRuns: 300 },
    );
  });

  it("writes a value nested 100,000 levels deep, which JSON.stringify cannot", () => {
    const value = nested(100_000);
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    const text = stringifyJson(value) as string;
    expect(text.startsWith('[{"level":99998,"next":[{"level":99996,')).toBe(true);
    expect(text.endsWith('},99997]},99999]')).toBe(true);
    // JSON.parse is not recursive: the text reads back to the same structure.
    let back = JSON.parse(text) as { next?: unknown } | unknown[];
    for (let level = 0; level < 100_000; level++) back = (Array.isArray(back) ? back[0] : back.next) as typeof back;
    expect(back).toEqual({ leaf: [1, "two", null] });
  });

  it("throws a TypeError for a deep circular structure, as JSON.stringify does for a shallow one", () => {
    const value = nested(50_000) as { next: unknown };
    let inner: any = value;
    for (let level = 0; level < 20_000 || Array.isArray(inner); level++) inner = Array.isArray(inner) ? inner[0] : inner.next;
    inner.next = value;
    expect(() => stringifyJson(value)).toThrow(TypeError);
  });
});
