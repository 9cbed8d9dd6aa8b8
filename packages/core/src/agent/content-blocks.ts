// What the content blocks of a message or a tool's result are: text, a plain-text document, or
// media (an image, a file, audio, video), whichever provider's shape they come in. Shared by the
// executor (which keeps a tool's result as blocks when it has more than text), the text agents'
// notes, the tool-calling agent's `toolImages` and the OpenAI message conversion (see
// docs/models.md#images).
type Block = Record<string, unknown>;

/**
 * What a content block is, for deciding where it can go:
 *
 * - `"text"`: a `text` block;
 * - `"text-document"`: a plain-text document, LangChain's `text-plain` block (v0: a `file` block with
 *   `source_type: "text"`) or a `file` block of a `text/*` media type (`text/csv`);
 * - `"image"`: LangChain's `image` or `image_url` block, OpenAI's `input_image`;
 * - `"file"`: any other file, LangChain's `file` block (a PDF) or OpenAI's `input_file`;
 *   Anthropic's `document` block is a `"text-document"` when it holds text, else a `"file"`;
 * - `"audio"`: LangChain's `audio` block or OpenAI's `input_audio`;
 * - `"video"`: a `video` block.
 */
export type ContentBlockKind = "text" | "text-document" | "image" | "file" | "audio" | "video";

/**
 * What kind of content a block is (see {@link ContentBlockKind}); undefined for a block that is no
 * content of its own (reasoning, a tool call) or of a type it does not know.
 *
 * @example
 * ```ts
 * import { contentBlockKind } from "@agentrx/core";
 *
 * console.log(contentBlockKind({ type: "file", mimeType: "application/pdf", data: "JVBERi0=" })); // "file"
 * console.log(contentBlockKind({ type: "file", mimeType: "text/csv", data: "YSxiCjEsMg==" })); // "text-document"
 * console.log(contentBlockKind({ type: "reasoning", reasoning: "..." })); // undefined
 * ```
 */
export function contentBlockKind(block: unknown): ContentBlockKind | undefined {
  if (typeof block !== "object" || block === null) return undefined;
  const type = (block as Block)["type"];
  if (type === "text") return typeof (block as Block)["text"] === "string" ? "text" : undefined;
  if (isImageBlock(block)) return "image";
  if (type === "audio" || type === "input_audio") return "audio";
  if (type === "video") return "video";
  if (type === "text-plain") return "text-document";
  if (type === "document") return contentBlockKind(standardDocumentBlock(block as Block));
  if (type === "file") return isTextFile(block as Block) ? "text-document" : "file";
  if (type === "input_file") return "file";
  return undefined;
}

/** A `file` block holding plain text: v0's `source_type: "text"`, or a media type `text/*` (not OpenAI's nested `file` part). */
function isTextFile(block: Block): boolean {
  if (block["source_type"] === "text") return true;
  if (typeof block["file"] === "object" && block["file"] !== null) return false;
  return /^text\//i.test(blockMediaType(block) ?? "");
}

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
  const source = isObject(image["source"]) ? image["source"] : undefined;
  const imageUrl = image["image_url"];
  if (typeof imageUrl === "string") return imageUrl;
  if (isObject(imageUrl) && typeof imageUrl["url"] === "string") return imageUrl["url"];
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

/**
 * A block's media type: its `mimeType` (v0: `mime_type`; Anthropic: `source.media_type`), else that
 * of its `data:` URL; undefined when it tells none.
 *
 * @internal
 */
export function blockMediaType(block: Block): string | undefined {
  const source = isObject(block["source"]) ? block["source"] : undefined;
  const declared = block["mimeType"] ?? block["mime_type"] ?? source?.["media_type"];
  if (typeof declared === "string" && declared.trim()) return declared.trim();
  const url = blockUrl(block);
  return url?.startsWith("data:") ? /^data:([^;,]+)/.exec(url)?.[1]?.trim() : undefined;
}

/** A block's URL, wherever its shape keeps it (`url`, `image_url`, Anthropic's `source.url`, OpenAI's `file.file_data`). */
function blockUrl(block: Block): string | undefined {
  const nested = [block["image_url"], block["source"], block["file"]].find(isObject);
  const candidates = [block["url"], block["image_url"], nested?.["url"], nested?.["file_data"]];
  return candidates.find((value): value is string => typeof value === "string");
}

/**
 * The media type and size of a media block, as far as it tells (`application/pdf, 1.2 KB`, or
 * `image at https://…` for one known by its URL), for a note in place of it.
 *
 * @internal
 */
export function describeMediaBlock(block: Block): string {
  const kind = contentBlockKind(block) ?? "file";
  const nested = [block["input_audio"], block["file"], block["source"]].find(isObject);
  const format = nested?.["format"];
  const type = blockMediaType(block) ?? (typeof format === "string" ? `${kind}/${format}` : kind);
  const data = block["data"] ?? nested?.["data"];
  const url = blockUrl(block);
  if (typeof data === "string") return `${type}, ${formatBytes(base64Bytes(data))}`;
  if (data instanceof Uint8Array) return `${type}, ${formatBytes(data.byteLength)}`;
  if (url?.startsWith("data:")) return `${type}, ${formatBytes(base64Bytes(url.slice(url.indexOf(",") + 1)))}`;
  if (url !== undefined) return `${type} at ${url}`;
  const fileId = block["fileId"] ?? block["file_id"] ?? nested?.["file_id"];
  return typeof fileId === "string" ? `${type}, id ${fileId}` : type;
}

/** The bytes base64 text decodes to (its `=` padding is no data). */
function base64Bytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

/**
 * The UTF-8 bytes of a plain-text document's `data` (base64 text or a `Uint8Array`) or `data:` URL;
 * `"invalid"` for base64 that is not; undefined when it has neither (its `text`, a file id or an
 * `https:` URL are for the caller to read).
 *
 * @internal Shared with the OpenAI message conversion.
 */
export function textDocumentBytes(block: Block): Uint8Array | "invalid" | undefined {
  if (block["data"] instanceof Uint8Array) return block["data"];
  if (typeof block["data"] === "string") return fromBase64(block["data"]);
  const url = typeof block["url"] === "string" ? block["url"] : undefined;
  const match = url === undefined ? undefined : /^data:([^,]*),(.*)$/s.exec(url);
  if (!match) return undefined;
  const [, params = "", payload = ""] = match;
  if (/;base64$/i.test(params)) return fromBase64(payload);
  try {
    return new TextEncoder().encode(decodeURIComponent(payload));
  } catch {
    return "invalid";
  }
}

/**
 * A plain-text document's text: its `text`, or its data decoded as UTF-8; undefined when it has
 * neither or its data is not UTF-8 text.
 *
 * @internal
 */
export function textDocumentText(block: Block): string | undefined {
  if (block["type"] === "document") return textDocumentText(standardDocumentBlock(block));
  if (typeof block["text"] === "string") return block["text"];
  const bytes = textDocumentBytes(block);
  if (bytes === undefined || bytes === "invalid") return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Anthropic's `document` block as LangChain's standard block of the same content: a `text-plain`
 * block for text (a `source` of type `text`, of type `content` holding text blocks only, or base64
 * of a `text/*` type), else a `file` block (a PDF's base64 `data`, a `url`, or a `fileId`); its
 * `title` becomes the file name. Other blocks are returned as they are.
 *
 * @internal Shared with the OpenAI message conversion.
 */
export function standardDocumentBlock(block: Block): Block {
  if (block["type"] !== "document") return block;
  const source = isObject(block["source"]) ? block["source"] : {};
  const declared = source["media_type"];
  const mimeType = typeof declared === "string" && declared.trim() ? declared.trim() : undefined;
  const named = typeof block["title"] === "string" ? { metadata: { filename: block["title"] } } : {};
  switch (source["type"]) {
    case "text":
      return { type: "text-plain", mimeType: mimeType ?? "text/plain", text: String(source["data"] ?? ""), ...named };
    case "content": {
      const content = source["content"];
      const blocks = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? (content as unknown[]) : [];
      if (!blocks.every((part) => contentBlockKind(part) === "text")) return { type: "file", mimeType: "application/octet-stream", ...named };
      return { type: "text-plain", mimeType: "text/plain", text: blocks.map((part) => (part as { text: string }).text).join("\n"), ...named };
    }
    case "base64":
      return { type: mimeType !== undefined && /^text\//i.test(mimeType) ? "text-plain" : "file", mimeType: mimeType ?? "application/pdf", data: source["data"], ...named };
    case "url":
      return { type: "file", url: source["url"], ...(mimeType === undefined ? {} : { mimeType }), ...named };
    case "file":
      return { type: "file", fileId: source["file_id"], ...named };
    default:
      return { type: "file", ...named };
  }
}

function fromBase64(text: string): Uint8Array | "invalid" {
  let binary: string;
  try {
    binary = atob(text.replace(/\s+/g, ""));
  } catch {
    return "invalid";
  }
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function isObject(value: unknown): value is Block {
  return typeof value === "object" && value !== null;
}
