import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCodePoints } from "./compare-code-points";

const sign = (n: number) => Math.sign(n);

describe("compareCodePoints", () => {
  it("orders as UTF-8 bytes do, astral characters included", () => {
    const text = fc.string({ unit: "grapheme", maxLength: 6 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(sign(compareCodePoints(a, b))).toBe(sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
    );
  });

  it("puts a character above U+FFFF after one in U+E000 to U+FFFF, unlike UTF-16 order", () => {
    expect(compareCodePoints("\u{1F600}", "\uFF5E")).toBeGreaterThan(0);
    expect("\u{1F600}" < "\uFF5E").toBe(true);
    expect(compareCodePoints("run-1", "run-10")).toBeLessThan(0);
    expect(compareCodePoints("b", "b")).toBe(0);
  });
});
