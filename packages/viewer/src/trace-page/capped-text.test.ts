import { describe, expect, it } from "vitest";
import { CappedText, capTexts } from "./capped-text";

describe("capTexts", () => {
  it("keeps every text whole when they fit the budget", () => {
    const texts = [new CappedText("a".repeat(10)), new CappedText("b".repeat(20))];
    capTexts(texts, 30);
    expect(texts.map((text) => JSON.stringify(text))).toEqual([JSON.stringify("a".repeat(10)), JSON.stringify("b".repeat(20))]);
  });

  it("cuts the longest texts to one common limit, keeping short ones whole", () => {
    const texts = [new CappedText("s".repeat(10)), new CappedText("m".repeat(100)), new CappedText("l".repeat(1000))];
    capTexts(texts, 110);
    // 10 stays whole; the 100 left are shared by the two longer ones: 50 each.
    expect(texts.map((text) => text.toJSON())).toEqual(["s".repeat(10), { head: "m".repeat(50), length: 100 }, { head: "l".repeat(50), length: 1000 }]);
  });

  it("keeps one huge text whole when the budget allows, and shares the budget among many", () => {
    const one = [new CappedText("x".repeat(1_000_000)), new CappedText("short")];
    capTexts(one, 2_500_000);
    expect(one[0]?.toJSON()).toBe("x".repeat(1_000_000));
    const long = "y".repeat(100_000);
    const many = Array.from({ length: 1000 }, () => new CappedText(long));
    capTexts(many, 2_500_000);
    const total = many.reduce((sum, text) => sum + JSON.stringify(text).length, 0);
    expect(total).toBeLessThan(2_600_000);
    expect(many[999]?.toJSON()).toEqual({ head: "y".repeat(2500), length: 100_000 });
  });

  it("never splits a surrogate pair", () => {
    const text = new CappedText("ab😀cd");
    text.limit = 3; // would end between the two halves of 😀
    expect(text.toJSON()).toEqual({ head: "ab", length: 6 });
  });
});
