import { estimateTextTokens } from "./estimate-tokens";

/** A document's page, priced as Anthropic documents a PDF page (1,500 to 3,000 tokens: its text and its image). */
const PAGE_TOKENS = 1_500;
/** A second of audio: Gemini's documented rate (OpenAI's audio models count fewer). */
const AUDIO_TOKENS_PER_SECOND = 32;
/** A second of video: Gemini's documented rate at its default resolution (a frame a second, with its sound). */
const VIDEO_TOKENS_PER_SECOND = 300;
/** How many bytes a page of a PDF whose pages cannot be counted is taken to have. */
const BYTES_PER_PAGE = 50_000;
/** Compressed audio (MP3, AAC, Ogg) is taken to be 128 kbit/s. */
const AUDIO_BYTES_PER_SECOND = 16_000;
/** Video is taken to be 1 Mbit/s. */
const VIDEO_BYTES_PER_SECOND = 125_000;
/** Audio, or video, sent by reference (a URL, a file id), whose length is not known: a minute. */
const UNKNOWN_SECONDS = 60;

type Kind = "audio" | "video" | "text" | "document";

interface MediaBlock {
  type?: unknown;
  text?: unknown;
  data?: unknown;
  url?: unknown;
  source_type?: unknown;
  mime_type?: unknown;
  mimeType?: unknown;
  format?: unknown;
  file_data?: unknown;
  file?: { file_data?: unknown };
  input_audio?: { data?: unknown; format?: unknown };
  source?: { type?: unknown; media_type?: unknown; data?: unknown; url?: unknown };
}

/** Block types that hold a file, audio or video, whatever the provider's format. */
const MEDIA_TYPES: Record<string, Kind> = {
  file: "document",
  input_file: "document",
  document: "document",
  audio: "audio",
  input_audio: "audio",
  video: "video",
  "text-plain": "text",
};

const DATA_URL = /^data:([^;,]*)(?:;[^,]*)?,/;

const string = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The block's data (base64, or bytes), or its text, and the MIME type it names, from whichever field its provider's format uses. */
function payload(block: MediaBlock): { data?: string | Uint8Array; mime?: string; text?: string } {
  const object = <T>(value: T | undefined): T | undefined => (typeof value === "object" && value !== null ? value : undefined);
  const source = object(block.source);
  const audio = object(block.input_audio);
  let mime = string(block.mime_type) ?? string(block.mimeType) ?? string(source?.media_type);
  const withMime = <T extends object>(value: T) => (mime === undefined ? value : { ...value, mime });
  // Text sent as text: a LangChain `source_type: "text"` or `text-plain` block, an Anthropic text document.
  if (block.source_type === "text" || block.type === "text-plain") return withMime({ text: string(block.text) ?? string(block.data) ?? "" });
  if (source?.type === "text") return withMime({ text: string(source.data) ?? "" });
  const format = string(audio?.format) ?? string(block.format);
  if (mime === undefined && format !== undefined && (block.type === "input_audio" || block.type === "audio")) mime = `audio/${format}`;
  if (block.data instanceof Uint8Array) return withMime({ data: block.data });
  // Inline data: raw base64 or a data: URL. A URL that is not a data: URL (https:, gs:) is a reference.
  const inline = [block.data, block.file_data, object(block.file)?.file_data, audio?.data, source?.data].filter((value) => typeof value === "string" && value !== "") as string[];
  const urls = [block.url, source?.url].filter((value) => typeof value === "string" && DATA_URL.test(value)) as string[];
  const found = inline[0] ?? urls[0];
  if (found === undefined) return withMime({});
  const dataUrl = DATA_URL.exec(found);
  if (dataUrl === null) return withMime({ data: found });
  mime ??= dataUrl[1] || undefined;
  return withMime({ data: found.slice(dataUrl[0].length) });
}

function kindOf(type: unknown, mime: string | undefined): Kind | undefined {
  const lower = mime?.toLowerCase();
  if (lower !== undefined) {
    if (lower.startsWith("audio/")) return "audio";
    if (lower.startsWith("video/")) return "video";
    if (lower.startsWith("text/") || /^application\/(json|xml|x-ndjson|yaml|x-yaml)$|\+(json|xml)$/.test(lower)) return "text";
    if (lower.startsWith("image/")) return undefined; // an image block's price
    if (typeof type === "string" && (type in MEDIA_TYPES || type === "media")) return "document";
  }
  return typeof type === "string" ? MEDIA_TYPES[type] : undefined;
}

/** How many bytes `base64` decodes to. */
function byteLength(base64: string): number {
  const clean = base64.replace(/\s+/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** `base64` decoded, as a binary string (one character a byte), or undefined when it is not base64. */
function decode(base64: string): string | undefined {
  try {
    return atob(base64.replace(/\s+/g, ""));
  } catch {
    return undefined;
  }
}

/** A PDF's pages: its page objects when they are not compressed, else the page count of a linearized PDF, else its size at 50 KB a page. */
function pdfPages(bytes: string | undefined, size: number): number {
  if (bytes !== undefined) {
    const pages = bytes.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
    if (pages > 0) return pages;
    const linearized = /\/Linearized\b[^>]*?\/N\s+(\d+)/.exec(bytes.slice(0, 2_048));
    if (linearized !== null) return Math.max(1, Number(linearized[1]));
  }
  return Math.max(1, Math.ceil(size / BYTES_PER_PAGE));
}

/** `bytes` as a binary string (one character a byte). */
function binary(bytes: Uint8Array): string {
  let text = "";
  for (let index = 0; index < bytes.length; index += 0x8000) text += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return text;
}

/** The seconds of audio of `size` bytes: a WAV file's from its `header`'s byte rate, anything else's at 128 kbit/s. */
function audioSeconds(header: string | undefined, size: number): number {
  if (header !== undefined && header.startsWith("RIFF") && header.slice(8, 12) === "WAVE" && header.length >= 32) {
    const byteRate = header.charCodeAt(28) | (header.charCodeAt(29) << 8) | (header.charCodeAt(30) << 16) | (header.charCodeAt(31) << 24);
    if (byteRate > 0) return Math.max(0, size - 44) / byteRate;
  }
  return size / AUDIO_BYTES_PER_SECOND;
}

/**
 * The tokens of a file, audio or video content block, priced as providers price them rather than
 * as its base64 text: a document 1,500 a page (a PDF's pages counted, else 50 KB a page), audio 32
 * a second and video 300 a second (their length from a WAV header, else from their size at 128
 * kbit/s and 1 Mbit/s), a text file as its text. One sent by reference (a URL, a file id) counts a
 * page, or a minute. `undefined` when the block is none of these (text, an image, a tool call).
 */
export function mediaTokens(block: MediaBlock): number | undefined {
  const { data, mime, text } = payload(block);
  const kind = kindOf(block.type, mime);
  if (kind === undefined) return undefined;
  if (text !== undefined) return estimateTextTokens(text);
  if (data === undefined) return kind === "audio" ? UNKNOWN_SECONDS * AUDIO_TOKENS_PER_SECOND : kind === "video" ? UNKNOWN_SECONDS * VIDEO_TOKENS_PER_SECOND : PAGE_TOKENS;
  const size = typeof data === "string" ? byteLength(data) : data.byteLength;
  const bytes = (): string | undefined => (typeof data === "string" ? decode(data) : binary(data));
  switch (kind) {
    case "audio":
      return Math.ceil(audioSeconds(typeof data === "string" ? decode(data.slice(0, 64)) : binary(data.subarray(0, 48)), size) * AUDIO_TOKENS_PER_SECOND);
    case "video":
      return Math.ceil((size / VIDEO_BYTES_PER_SECOND) * VIDEO_TOKENS_PER_SECOND);
    case "text": {
      const decoded = bytes();
      if (decoded === undefined) return estimateTextTokens(data as string);
      return estimateTextTokens(new TextDecoder().decode(Uint8Array.from(decoded, (char) => char.charCodeAt(0))));
    }
    case "document":
      return pdfPages(mime === undefined || /pdf/i.test(mime) ? bytes() : undefined, size) * PAGE_TOKENS;
  }
}
