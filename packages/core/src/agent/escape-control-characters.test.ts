import { InvalidArgumentError, escapeControlCharacters } from "@agentrx/core";
import { describe, expect, it } from "vitest";

describe("escapeControlCharacters", () => {
  it("writes C0, DEL, C1 and bidi formatting characters as escapes and leaves the rest", () => {
    expect(escapeControlCharacters("a\u001b[2Jb")).toBe("a\\u001b[2Jb");
    expect(escapeControlCharacters("\u0000\u007f\u009b")).toBe("\\u0000\\u007f\\u009b");
    expect(escapeControlCharacters("x\u202ey\u2066z\u200f")).toBe("x\\u202ey\\u2066z\\u200f");
    expect(escapeControlCharacters("héllo 😀 — ok")).toBe("héllo 😀 — ok");
  });

  it("escapes tab and line feed unless keepLineBreaks is set", () => {
    expect(escapeControlCharacters("a\tb\nc\rd")).toBe("a\\u0009b\\u000ac\\u000dd");
    expect(escapeControlCharacters("a\tb\nc\rd", { keepLineBreaks: true })).toBe("a\tb\nc\\u000dd");
  });

  it("refuses a text that is not a string and options it does not know", () => {
    expect(() => escapeControlCharacters(42 as unknown as string)).toThrow(/text must be a string, got number/);
    expect(() => escapeControlCharacters("a", { keepLinebreaks: true } as never)).toThrow(InvalidArgumentError);
    expect(() => escapeControlCharacters("a", { keepLinebreaks: true } as never)).toThrow(/did you mean `keepLineBreaks`/);
    expect(() => escapeControlCharacters("a", { keepLineBreaks: "yes" } as never)).toThrow(/must be a boolean, got string/);
    expect(() => escapeControlCharacters("a", null as never)).toThrow(/options must be an object/);
  });
});
