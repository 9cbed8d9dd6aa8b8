import type { Observation } from "./types";

type Block = Record<string, unknown>;

/**
 * Whether a content block is an image: LangChain's `image` (by data or URL) or `image_url` block,
 * or OpenAI's `input_image`.
 *
 * @example
 * ```ts
 * import { isImageBlock } from "@agentrx/core";
 *
 * console.log(isImageBlock({ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" })); // true
 * console.log(isImageBlock({ type: "text", text: "hi" })); // false
 * ```
 */
export function isImageBlock(block: unknown): boolean {
  const type = (block as Block | null)?.["type"];
  return type === "image" || type === "image_url" || type === "input_image";
}

/**
 * The URL of an image block, a `data:` URL for base64 data: LangChain's `image` block (`url`, or
 * `data` with `mimeType`, the data as base64 text or as a `Uint8Array`), an `image_url` block,
 * OpenAI's `input_image`, or Anthropic's `image` (a `source` of type `base64` or `url`).
 * Undefined for anything else, and for an image known only by a provider's file id.
 *
 * @example
 * ```ts
 * import { imageBlockUrl } from "@agentrx/core";
 *
 * console.log(imageBlockUrl({ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" })); // "data:image/png;base64,iVBORw0KGgo="
 * console.log(imageBlockUrl({ type: "image_url", image_url: { url: "https://example.com/a.png" } })); // "https://example.com/a.png"
 * ```
 */
export function imageBlockUrl(block: unknown): string | undefined {
  if (!isImageBlock(block)) return undefined;
  const image = block as Block;
  const source = typeof image["source"] === "object" && image["source"] !== null ? (image["source"] as Block) : undefined;
  const imageUrl = image["image_url"];
  if (typeof imageUrl === "string") return imageUrl;
  if (typeof (imageUrl as Block | null)?.["url"] === "string") return (imageUrl as Block)["url"] as string;
  if (typeof image["url"] === "string") return image["url"];
  const data = base64Data(image["data"]);
  if (data !== undefined) return `data:${String(image["mimeType"] ?? image["mime_type"] ?? "image/png")};base64,${data}`;
  if (source?.["type"] === "url" && typeof source["url"] === "string") return source["url"];
  if (source?.["type"] === "base64" && typeof source["data"] === "string") return `data:${String(source["media_type"] ?? "image/png")};base64,${source["data"]}`;
  return undefined;
}

/**
 * The base64 text of a content block's `data`: a string as it is, bytes (a `Uint8Array`, as
 * LangChain v1's standard blocks may carry) encoded; undefined for anything else.
 *
 * @internal Shared with the OpenAI message conversion; not exported from the package.
 */
export function base64Data(data: unknown): string | undefined {
  if (typeof data === "string") return data;
  if (!(data instanceof Uint8Array)) return undefined;
  let binary = "";
  // In slices, so that no call gets more arguments than an engine takes.
  for (let start = 0; start < data.length; start += 0x8000) binary += String.fromCharCode(...data.subarray(start, start + 0x8000));
  return btoa(binary);
}

/** The media type and size (bytes of base64 data) of an image block, as far as it tells. */
function describeImage(block: Block): string {
  const source = block["source"] as Block | undefined;
  const mime = block["mimeType"] ?? block["mime_type"] ?? source?.["media_type"] ?? "image";
  const data = block["data"] ?? source?.["data"];
  const url = block["url"] ?? source?.["url"] ?? (typeof block["image_url"] === "string" ? block["image_url"] : (block["image_url"] as Block | undefined)?.["url"]);
  if (typeof data === "string") return `${String(mime)}, ${formatBytes(Math.floor((data.length * 3) / 4))}`;
  if (data instanceof Uint8Array) return `${String(mime)}, ${formatBytes(data.byteLength)}`;
  if (typeof url === "string" && url.startsWith("data:")) return `${url.slice(5, url.indexOf(";")) || String(mime)}, ${formatBytes(Math.floor(((url.length - url.indexOf(",") - 1) * 3) / 4))}`;
  if (typeof url === "string") return `${String(mime)} at ${url}`;
  return String(mime);
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * An observation as text, for agents that read text only (ReAct, structured chat, XML, self-ask,
 * OpenAI functions): a string as it is; message content as its text blocks, with a note in place
 * of each image (`[image: image/png, 12.0 KB; this agent reads text only]`); anything else as JSON.
 *
 * @example
 * ```ts
 * import { observationText } from "@agentrx/core";
 *
 * console.log(observationText("Sunny")); // "Sunny"
 * console.log(observationText([{ type: "text", text: "The chart:" }, { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }]));
 * // "The chart:\n[image: image/png, 8 B; this agent reads text only]"
 * ```
 */
export function observationText(observation: Observation | unknown): string {
  if (typeof observation === "string") return observation;
  if (Array.isArray(observation) && observation.some(isImageBlock)) {
    return observation
      .map((block: Block) =>
        isImageBlock(block) ? `[image: ${describeImage(block)}; this agent reads text only]` : typeof block?.["text"] === "string" ? block["text"] : safeJson(block),
      )
      .join("\n");
  }
  if (Array.isArray(observation) && observation.every((block: Block) => block?.["type"] === "text" && typeof block["text"] === "string")) {
    return observation.map((block: Block) => block["text"]).join("\n");
  }
  return safeJson(observation);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
