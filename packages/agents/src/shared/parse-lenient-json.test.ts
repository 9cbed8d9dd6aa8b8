import { PerformanceObserver } from "node:perf_hooks";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeControlCharactersInStrings, parseLenientJson } from "./parse-lenient-json";

/** Runs `work` and counts the garbage collections that happen meanwhile. */
async function collections(work: () => void): Promise<number> {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    count += list.getEntries().length;
  });
  observer.observe({ entryTypes: ["gc"] });
  await new Promise((resolve) => setTimeout(resolve, 20));
  count = 0;
  work();
  // GC entries are delivered asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();
  return count;
}

describe("parseLenientJson", () => {
  it("accepts raw control characters inside strings, and only there", () => {
    expect(parseLenientJson('{"code": "a = 1\nprint(a)\t#", "b\r": ["\u0001"]}')).toEqual({ code: "a = 1\nprint(a)\t#", "b\r": ["\u0001"] });
    expect(parseLenientJson('{\n\t"a":\r\n 1}')).toEqual({ a: 1 });
    expect(parseLenientJson('{"escaped": "q\\"\n\\\\", "u": "\\u0041\n"}')).toEqual({ escaped: 'q"\n\\', u: "A\n" });
    expect(parseLenientJson('{"lone": "\ud800\n\udfff"}')).toEqual({ lone: "\ud800\n\udfff" });
    expect(() => parseLenientJson('{"a": 1\u0001}')).toThrow(SyntaxError);
    expect(() => parseLenientJson('{"a": "\n')).toThrow(SyntaxError);
  });

  it("reads any JSON text whose strings hold raw control characters as JSON.parse reads it escaped", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }), (value) => {
        // Every escaped control character written raw; other escapes (\\, \") left as they are.
        const raw = JSON.stringify(value).replace(/\\(?:u00([01][0-9a-f])|([ntrbf])|[\s\S])/g, (match, hex: string | undefined, letter: string | undefined) =>
          hex !== undefined ? String.fromCharCode(Number.parseInt(hex, 16)) : ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" } as Record<string, string>)[letter as string] ?? match,
        );
        expect(parseLenientJson(raw)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { seed: 15, numRuns: 300 },
    );
  });

  it("escapes a megabyte of control characters without allocating per character", async () => {
    // The escaping used to build the text one control character at a time: a million small
    // strings, which made 1 MB of them cost 0.3 to 0.6 s (and a dozen or more collections).
    const text = `{"a": "${"\u0001".repeat(1_000_000)}", "b": [${'"\t",'.repeat(100_000)}""]}`;
    expect(await collections(() => escapeControlCharactersInStrings(text))).toBeLessThanOrEqual(3);
    expect((parseLenientJson(text) as { a: string }).a).toHaveLength(1_000_000);
  });

  it("reads over a million characters of control characters in one pass (a quadratic scan would take hours)", () => {
    // Not a timing comparison: a scan that copied the text per character would do ~10^11 steps
    // here and never end within the test's timeout; a linear one takes milliseconds.
    const size = 1_200_000;
    const text = `["${"\n\u0001\t".repeat(size / 3)}", ${'"\r",'.repeat(size / 4)} ""]`;
    const parsed = parseLenientJson(text) as string[];
    expect(parsed[0]).toHaveLength(size);
    expect(parsed).toHaveLength(size / 4 + 2);
    expect(parsed[1]).toBe("\r");
  });
});
