import { cutText } from "@agentrx/core";
import { describe, expect, it } from "vitest";

describe("cutText", () => {
  it("cuts at a code point: never between the two halves of an emoji", () => {
    const text = "a😀😀😀"; // 1 + 3 × 2 code units
    expect(cutText(text, 3)).toBe("a😀");
    expect(cutText(text, 4)).toBe("a😀"); // 4 would split the second emoji
    expect(cutText(text, 5)).toBe("a😀😀");
    expect(cutText(text, 100)).toBe(text);
    expect(cutText(text, 0)).toBe("");
    for (let max = 0; max <= text.length; max++) expect(encodeURIComponent(cutText(text, max))).toBeTypeOf("string");
  });
});
