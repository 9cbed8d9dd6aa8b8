// The diff page's data: the recorded prompts it shows next to each other carry no image as base64.
import { MemoryRunStore, readRunRecord } from "@agentrx/runs";
import { diffPageData } from "@agentrx/viewer/trace-page";
import { describe, expect, it } from "vitest";
import { CHART_PNG, recordImageRun } from "../trace/trace-debugger-fixtures";

describe("the diff page's prompts", () => {
  it("show an image in a prompt message as a placeholder with its type and size, never as base64", async () => {
    const store = new MemoryRunStore();
    await recordImageRun(store, "a");
    await recordImageRun(store, "b");
    const data = diffPageData(await readRunRecord(store, "a"), await readRunRecord(store, "b"), { mode: "file", source: "memory" });
    const second = data.prompts.find((prompt) => prompt.iteration === 1);
    const tool = second?.a.find((message) => message.role === "tool");
    expect(tool?.text).toMatch(/\[image 1: image\/png, \d+ (B|KB)\]/);
    expect(tool?.text).not.toContain(CHART_PNG.slice(0, 40));
    expect(JSON.stringify(data.prompts)).not.toContain(CHART_PNG.slice(0, 40));
  });
});
