import { describe, expect, it } from "vitest";
import { contentBlockKind, isImageBlock } from "./content-blocks";
import { observationText } from "./observation-text";

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

  it("gives text agents a plain-text document as its text and a note per file, audio clip and video", () => {
    const observation = [
      { type: "text", text: "The report:" },
      { type: "file", mimeType: "application/pdf", data: "JVBERi0xLjQ=", metadata: { filename: "q3.pdf" } },
      { type: "text-plain", mimeType: "text/plain", data: btoa("a,b\n1,2") },
      { type: "file", mimeType: "text/csv", url: "data:text/csv,x%2Cy" },
      { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
      { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
      { type: "video", url: "https://example.com/clip.mp4" },
      { type: "file", fileId: "file-abc" },
      { type: "text-plain", mimeType: "text/plain", data: "////" },
      { type: "document", title: "notes", source: { type: "text", media_type: "text/plain", data: "Refunds within 30 days." } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
    ];
    expect(observationText(observation).split("\n")).toEqual([
      "The report:",
      "[file: application/pdf, 8 B; this agent reads text only]",
      "a,b",
      "1,2",
      "x,y",
      "[audio: audio/wav, 4 B; this agent reads text only]",
      "[audio: audio/mp3, 3 B; this agent reads text only]",
      "[video: video at https://example.com/clip.mp4; this agent reads text only]",
      "[file: file, id file-abc; this agent reads text only]",
      "[document: text/plain, 3 B; its text could not be read]",
      "Refunds within 30 days.",
      "[file: application/pdf, 5 B; this agent reads text only]",
    ]);
  });

  it("tells what kind of content a block is, whichever provider's shape it has", () => {
    const kinds = [
      { type: "text", text: "hi" },
      { type: "text-plain", text: "hi" },
      { type: "file", source_type: "text", text: "hi" },
      { type: "file", mimeType: "text/markdown", data: "aGk=" },
      { type: "file", mime_type: "application/pdf", data: "JVBERi0=" },
      { type: "file", file: { file_data: "data:text/plain;base64,aGk=", filename: "a.txt" } },
      { type: "input_file", file_id: "file-1" },
      { type: "image_url", image_url: { url: "https://example.com/a.png" } },
      { type: "input_audio", input_audio: { data: "", format: "wav" } },
      { type: "video", fileId: "v" },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "hi" } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
      { type: "document", source: { type: "content", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }] } },
      { type: "reasoning", reasoning: "..." },
      { type: "text" },
      null,
    ].map(contentBlockKind);
    expect(kinds).toEqual(["text", "text-document", "text-document", "text-document", "file", "file", "file", "image", "audio", "video", "text-document", "file", "file", undefined, undefined, undefined]);
  });

  it("knows image blocks", () => {
    expect([{ type: "image" }, { type: "image_url" }, { type: "input_image" }, { type: "text" }].map(isImageBlock)).toEqual([true, true, true, false]);
  });
});
