import { describe, expect, it } from "vitest";
import { isImageBlock, observationText } from "./observation-text";

describe("observationText", () => {
  it("gives text agents the text of content with a note per image", () => {
    expect(observationText("plain")).toBe("plain");
    const png = "A".repeat(4096);
    expect(
      observationText([
        { type: "text", text: "The chart:" },
        { type: "image", mimeType: "image/png", data: png },
        { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
      ]),
    ).toBe("The chart:\n[image: image/png, 3.0 KB; this agent reads text only]\n[image: image at https://example.com/a.jpg; this agent reads text only]");
    expect(observationText([{ type: "text", text: "a" }, { type: "text", text: "b" }])).toBe("a\nb");
    expect(observationText({ a: 1 })).toBe('{"a":1}');
  });

  it("knows image blocks", () => {
    expect([{ type: "image" }, { type: "image_url" }, { type: "input_image" }, { type: "text" }].map(isImageBlock)).toEqual([true, true, true, false]);
  });
});
