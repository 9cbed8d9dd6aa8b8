import { isFinalAnswerTool, markFinalAnswerTool } from "@agentrx/core";
import { describe, expect, it } from "vitest";

describe("markFinalAnswerTool", () => {
  it("marks the tool itself, not enumerably, and what inherits from it (a wrapped tool) reads as marked", () => {
    const tool = { name: "final_answer" };
    expect(isFinalAnswerTool(tool)).toBe(false);
    expect(markFinalAnswerTool(tool)).toBe(tool);
    expect(isFinalAnswerTool(tool)).toBe(true);
    expect(Object.keys(tool)).toEqual(["name"]);
    expect(isFinalAnswerTool(Object.create(tool))).toBe(true);
    expect(isFinalAnswerTool({ name: "final_answer" })).toBe(false);
    expect([undefined, null, "final_answer"].map(isFinalAnswerTool)).toEqual([false, false, false]);
  });
});
