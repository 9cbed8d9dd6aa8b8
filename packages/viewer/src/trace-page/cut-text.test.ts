import { formatRuntime } from "@agentrx/viewer/trace-page";
import { describe, expect, it } from "vitest";
import { cutText, cutTextEnd } from "./cut-text";

const EMOJI = "😀"; // two UTF-16 code units
/** Whether `text` holds half of a surrogate pair without its other half. */
const hasLoneSurrogate = (text: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

describe("cutText", () => {
  it("keeps a text that fits as it is", () => {
    expect(cutText("abc", 3)).toBe("abc");
    expect(cutTextEnd("abc", 5)).toBe("abc");
  });

  it("cuts to the length asked when no surrogate pair is in the way", () => {
    expect(cutText("abcdef", 4)).toBe("abcd");
    expect(cutTextEnd("abcdef", 4)).toBe("cdef");
    expect(cutText("abc", 0)).toBe("");
  });

  it("cuts a text of emoji at an odd length one code unit earlier, keeping whole emoji", () => {
    expect(cutText(EMOJI.repeat(5), 5)).toBe(EMOJI.repeat(2));
    expect(cutText(`a${EMOJI.repeat(5)}`, 6)).toBe(`a${EMOJI.repeat(2)}`);
    expect(cutTextEnd(EMOJI.repeat(5), 5)).toBe(EMOJI.repeat(2));
    expect(cutTextEnd(`${EMOJI.repeat(5)}a`, 6)).toBe(`${EMOJI.repeat(2)}a`);
    expect(cutText(EMOJI, 1)).toBe("");
  });
});

describe("the trace page's one-line texts", () => {
  it("never end in half an emoji", () => {
    const line = formatRuntime().oneLine(EMOJI.repeat(50), 10); // 9 code units, then the ellipsis
    expect(line).toBe(`${EMOJI.repeat(4)}…`);
    expect(hasLoneSurrogate(line)).toBe(false);
    expect(() => encodeURIComponent(line)).not.toThrow();
  });
});
