import { describe, expect, it } from "vitest";
import { formatRuntime } from "./format-runtime";

const fmt = formatRuntime();

describe("the pages' dollar amounts", () => {
  it("keep two significant digits of a tiny amount, written out, never as an exponent", () => {
    expect(fmt.usd(0.000042)).toBe("$0.000042");
    expect(fmt.usd(0.0000003)).toBe("$0.0000003");
    expect(fmt.usd(3.14159e-9)).toBe("$0.0000000031");
    expect(fmt.usd(0.00009999)).toBe("$0.0001");
  });

  it("write other amounts to four decimals under $100, to cents above", () => {
    expect(fmt.usd(0)).toBe("$0");
    expect(fmt.usd(0.0123)).toBe("$0.0123");
    expect(fmt.usd(123.456)).toBe("$123.46");
  });
});
