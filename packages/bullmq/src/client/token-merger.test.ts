import { describe, expect, it } from "vitest";
import { TokenMerger } from "./token-merger";

describe("TokenMerger", () => {
  it("shows live tokens, then skips the recorded text that repeats them", () => {
    const merger = new TokenMerger();
    merger.startSegment(1);
    expect(merger.live(1, 0, 0, "Hello ")).toBe("Hello ");
    expect(merger.live(1, 0, 6, "world")).toBe("world");
    expect(merger.recordedToken(0, "Hello world")).toBeUndefined();
  });

  it("shows the recorded text whole when it joined in the middle of a model call (a hole before its live tokens)", () => {
    const merger = new TokenMerger();
    merger.startSegment(1);
    expect(merger.live(1, 0, 6, "world")).toBeUndefined();
    expect(merger.recordedToken(0, "Hello world")).toBe("Hello world");
    expect(merger.live(1, 0, 6, "world")).toBeUndefined(); // a late duplicate
  });

  it("shows only the rest of a recorded text when live tokens covered its beginning", () => {
    const merger = new TokenMerger();
    merger.startSegment(1);
    expect(merger.live(1, 2, 0, "Hel")).toBe("Hel");
    // A live token was lost (offset 3..6): the record fills in what was not shown.
    expect(merger.live(1, 2, 6, "world")).toBeUndefined();
    expect(merger.recordedToken(2, "Hello world")).toBe("lo world");
  });

  it("counts records of one iteration in chunks, and live tokens after a recorded chunk", () => {
    const merger = new TokenMerger();
    merger.startSegment(1);
    expect(merger.recordedToken(0, "ab")).toBe("ab");
    expect(merger.live(1, 0, 0, "ab")).toBeUndefined();
    expect(merger.live(1, 0, 2, "cd")).toBe("cd");
    expect(merger.recordedToken(0, "cde")).toBe("e");
  });

  it("counts a recorded token the follower had before it reconnected as shown", () => {
    const merger = new TokenMerger();
    merger.startSegment(1);
    expect(merger.recordedToken(0, "Hello", false)).toBeUndefined();
    expect(merger.live(1, 0, 0, "Hello")).toBeUndefined();
    expect(merger.live(1, 0, 5, "!")).toBe("!");
  });

  it("starts over with each segment, and ignores live tokens of another segment", () => {
    const merger = new TokenMerger();
    merger.startSegment(1);
    expect(merger.live(1, 0, 0, "Hi")).toBe("Hi");
    merger.startSegment(9);
    expect(merger.live(1, 0, 2, "!")).toBeUndefined();
    expect(merger.live(9, 0, 0, "Hi")).toBe("Hi");
  });
});
