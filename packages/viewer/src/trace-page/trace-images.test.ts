import { describe, expect, it } from "vitest";
import type { TraceImage } from "./trace-data";
import { TraceImageCollector } from "./trace-images";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("TraceImageCollector", () => {
  it("replaces every image block, at any depth and in every form, by a placeholder, and keeps small raster ones as data: URLs", () => {
    const images: TraceImage[] = [];
    const value = {
      messages: [
        {
          role: "human",
          content: [
            { type: "text", text: "Look:" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: "image", source: { type: "base64", media_type: "image/jpeg", data: PNG } },
            { type: "image_url", image_url: "https://example.com/cat.png" },
            { type: "image", mimeType: "image/svg+xml", data: "PHN2Zz48L3N2Zz4=" },
          ],
        },
      ],
    };
    const stripped = new TraceImageCollector().strip(value, images) as typeof value;
    expect(stripped.messages[0]?.content.map((block) => (block as { text?: string }).text)).toEqual([
      "Look:",
      "[image 1: image/png, 70 B]",
      "[image 2: image/jpeg, 70 B]",
      "[image 3: image at https://example.com/cat.png]",
      "[image 4: image/svg+xml, 11 B]",
    ]);
    expect(images).toEqual([
      { mime: "image/png", bytes: 70, dataUrl: `data:image/png;base64,${PNG}` },
      { mime: "image/jpeg", bytes: 70, dataUrl: `data:image/jpeg;base64,${PNG}` },
      { mime: "image", url: "https://example.com/cat.png" },
      { mime: "image/svg+xml", bytes: 11 }, // not a raster image: not embedded
    ]);
    expect(JSON.stringify(stripped)).not.toContain(PNG);
  });

  it("reads the record's note for an image it left out, and embeds images only up to its budget", () => {
    const images: TraceImage[] = [];
    const collector = new TraceImageCollector(PNG.length * 2);
    const hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    collector.strip(
      [
        { type: "text", text: `[image/jpeg image of 2048 KB, sha256 ${hash}, left out of the run record: too large to keep]` },
        { type: "text", text: "[image/png image of 700 KB, left out of the run record: too large to keep]" },
        ...[1, 2, 3].map(() => ({ type: "image", mimeType: "image/png", data: PNG })),
      ],
      images,
    );
    expect(images.slice(0, 2)).toEqual([
      { mime: "image/jpeg", bytes: 2048 * 1024, leftOut: true, sha256: hash },
      { mime: "image/png", bytes: 700 * 1024, leftOut: true },
    ]);
    expect(images.slice(2).map((image) => image.dataUrl !== undefined)).toEqual([true, true, false]);
  });
});
