import type { TraceImage } from "./trace-data";
import { cutText } from "./cut-text";

/** The largest inline image a trace page embeds as a thumbnail: 256 K characters of base64 (about 192 KB). */
const MAX_THUMBNAIL_CHARS = 256 * 1024;

/** Raster types a page may show (`<img>` with a `data:` URL); anything else is a placeholder. */
const SHOWN_TYPES = new Set(["image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp", "image/avif", "image/bmp"]);

/** The note a run's record keeps in place of an image too large to keep (see `MAX_RECORDED_IMAGE_CHARS` of `@agentrx/executors`). */
const LEFT_OUT = /^\[([^\s\]]+) image of (\d+) KB(?:, sha256 ([0-9a-f]{16,64}))?, left out of the run record: too large to keep\]$/;

type Block = Record<string, unknown>;

/** Whether a content block is an image (`image`, `image_url`, `input_image`). */
function isImage(block: unknown): block is Block {
  const type = (block as Block | null)?.["type"];
  return typeof block === "object" && block !== null && (type === "image" || type === "image_url" || type === "input_image");
}

/**
 * Takes the images out of recorded values (an observation's content blocks, messages' content,
 * a tool's input) for the trace page: each becomes a {@link TraceImage} (a small inline one with
 * its `data:` URL, for a thumbnail; a larger one, one by URL, or one the record left out, with its
 * type and size only) and, in the text the page shows, a placeholder such as `[image 1: image/png,
 * 12 KB]`, so no base64 is ever shown as text. The images a page embeds share `budget` characters.
 *
 * @internal
 */
export class TraceImageCollector {
  /** Characters of `data:` URLs embedded so far. */
  private embedded = 0;

  constructor(private readonly budget = 1_500_000) {}

  /**
   * `value` with every image block (at any depth) and every left-out-image note replaced by a
   * placeholder text block `{ type: "text", text: "[image N: ...]" }`; the images found are pushed
   * to `images` (N counts from `images.length`).
   */
  strip(value: unknown, images: TraceImage[], depth = 0): unknown {
    if (depth > 50 || value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((item) => this.strip(item, images, depth + 1));
    const block = value as Block;
    const image = isImage(block) ? this.image(block) : typeof block["text"] === "string" && block["type"] === "text" ? leftOut(block["text"]) : undefined;
    if (image !== undefined) {
      images.push(image);
      return { type: "text", text: placeholder(image, images.length) };
    }
    const out: Block = {};
    for (const [key, item] of Object.entries(block)) out[key] = this.strip(item, images, depth + 1);
    return out;
  }

  /** What the page shows of an image block. */
  private image(block: Block): TraceImage {
    const source = block["source"] as Block | undefined;
    const imageUrl = block["image_url"];
    const url = typeof imageUrl === "string" ? imageUrl : typeof (imageUrl as Block | undefined)?.["url"] === "string" ? ((imageUrl as Block)["url"] as string) : typeof block["url"] === "string" ? block["url"] : typeof source?.["url"] === "string" ? (source["url"] as string) : undefined;
    const dataUrl = url?.startsWith("data:") ? /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url) : null;
    const data = typeof block["data"] === "string" ? block["data"] : typeof source?.["data"] === "string" ? (source["data"] as string) : dataUrl?.[2] ? dataUrl[3] : undefined;
    const mime = String(block["mimeType"] ?? block["mime_type"] ?? source?.["media_type"] ?? (dataUrl?.[1] || "image")).toLowerCase();
    if (data === undefined) return url !== undefined && dataUrl === null ? { mime, url: url.length > 500 ? `${cutText(url, 499)}…` : url } : { mime };
    const image: TraceImage = { mime, bytes: Math.floor((data.replace(/=+$/, "").length * 3) / 4) };
    if (SHOWN_TYPES.has(mime) && data.length <= MAX_THUMBNAIL_CHARS && /^[A-Za-z0-9+/]*={0,2}$/.test(data) && this.embedded + data.length <= this.budget) {
      this.embedded += data.length;
      image.dataUrl = `data:${mime};base64,${data}`;
    }
    return image;
  }
}

/** The image a left-out-image note names, if the text is one. */
function leftOut(text: string): TraceImage | undefined {
  const match = LEFT_OUT.exec(text.trim());
  if (match === null) return undefined;
  const image: TraceImage = { mime: match[1] as string, bytes: Number(match[2]) * 1024, leftOut: true };
  if (match[3] !== undefined) image.sha256 = match[3];
  return image;
}

/** `[image 2: image/png, 12 KB]`. */
function placeholder(image: TraceImage, n: number): string {
  const size = image.bytes === undefined ? "" : `, ${image.bytes < 1024 ? `${image.bytes} B` : `${Math.round(image.bytes / 1024)} KB`}`;
  const where = image.leftOut ? ", not in the record" : image.url !== undefined ? ` at ${image.url}` : "";
  return `[image ${n}: ${image.mime}${size}${where}]`;
}
