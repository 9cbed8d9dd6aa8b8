// The content of a user message as Chat Completions content parts: LangChain's content blocks
// (v1's standard `image`, `file`, `audio` and `text-plain` blocks, v0's with a `source_type`), OpenAI's
// Responses `input_image` and Anthropic's `image` converted to the parts the API takes.
import { base64Data, imageBlockUrl, isImageBlock, standardDocumentBlock, textDocumentBytes } from "../agent/content-blocks";
import type { BaseMessage } from "@langchain/core/messages";
import type OpenAI from "openai";
import { InvalidArgumentError } from "../errors/invalid-argument-error";

type UserContentPart = OpenAI.Chat.ChatCompletionContentPart;
type Block = Record<string, any>;

/** Where a block is, for an error message: the message and its index in the request. */
export interface Place {
  message: BaseMessage;
  index: number;
}

/**
 * A user message's content for the Chat Completions API: a string as it is; `text` blocks as text
 * parts; every image block (LangChain's `image` with a URL or base64 data, `image_url`, OpenAI's
 * `input_image`, Anthropic's `image`) as an `image_url` part; LangChain's `file` block as a `file`
 * part (`file_data` as a data URL with its `metadata.filename`, else a name such as `file.pdf`
 * made from its media type, which OpenAI requires; or `file_id`); LangChain's `audio`
 * block as an `input_audio` part (wav or mp3 only); LangChain's `text-plain` block (and v0's
 * `file` block with `source_type: "text"`) as a text part, its `text` or its data decoded as
 * UTF-8 (a `fileId` as a `file` part); Anthropic's `document` block as the `file` or text part of
 * the same content (a PDF's base64 data, a file id; text); OpenAI's own parts as they are. Throws an
 * `InvalidArgumentError` naming the message for a block the API cannot take (an image, file,
 * audio or plain text known only by an `https:` URL where the API takes data, audio of another
 * format, or a `video` block: the Chat Completions API takes no video).
 */
export function toOpenAIUserContent(message: BaseMessage, index: number): string | UserContentPart[] {
  const content = message.content;
  if (typeof content === "string") return content;
  const place = { message, index };
  return content.map((block): UserContentPart => {
    // Anthropic's `document` block, as the standard block of the same content.
    const part = standardDocumentBlock(block as Block) as Block;
    if (part.type === "text" && typeof part.text === "string") return { type: "text", text: part.text };
    if (part.type === "image_url" && typeof part.image_url === "object" && part.image_url !== null) return { type: "image_url", image_url: part.image_url };
    if (isImageBlock(part)) return imagePart(part, place);
    if (isPlainTextBlock(part)) return plainTextPart(part, place);
    if (part.type === "file" && (typeof part.file !== "object" || part.file === null)) return partOrRefuse(place, part, filePart(part));
    if (part.type === "audio") return partOrRefuse(place, part, audioPart(part));
    if (part.type === "video") {
      refuse(
        place,
        part,
        'a "video" block',
        "The Chat Completions API takes no video: take frames of it as images, or use a model whose API takes video (Gemini's, for one).",
      );
    }
    return part as UserContentPart;
  });
}

function imagePart(part: Block, place: Place): UserContentPart {
  const url = imageBlockUrl(part);
  if (url === undefined) {
    refuse(
      place,
      part,
      "an image block without a URL or base64 data",
      "The Chat Completions API takes images by URL or as base64 data only.",
    );
  }
  const detail = part.detail ?? part.metadata?.detail;
  return { type: "image_url", image_url: { url, ...(typeof detail === "string" ? { detail } : {}) } } as UserContentPart;
}

/** What is wrong with a block the API cannot take, and how to give it instead (for `refuse`). */
interface Refusal {
  refused: string;
  fix: string;
}

/** The part, or the refusal as `refuse` words it. */
function partOrRefuse(place: Place, part: Block, converted: UserContentPart | Refusal): UserContentPart {
  if ("refused" in converted) refuse(place, part, converted.refused, converted.fix);
  return converted;
}

/** A media part of a Chat Completions user message: a `file` part or an `input_audio` part. */
export type ChatCompletionsMediaPart = OpenAI.Chat.ChatCompletionContentPart.File | OpenAI.Chat.ChatCompletionContentPartInputAudio;

/**
 * A file or audio block as the part of a Chat Completions user message that carries it, the
 * conversion `OpenAIChatModel` makes: LangChain's `file` block (v1, or v0 with a `source_type`) and
 * Anthropic's `document` block (a PDF's base64 data or a file id) as a `file` part (`file_data`, a
 * `data:` URL with a file name: its metadata's, else one made from its media type, `file.pdf`,
 * which OpenAI requires; or `file_id`); LangChain's `audio` block as an `input_audio` part (wav or
 * mp3); OpenAI's own `file` and `input_audio` parts as they are. Undefined for any other block and
 * for one the API cannot take that way (a file known only by an `https:` URL, audio of another
 * format), which `OpenAIChatModel` refuses by name.
 *
 * Use it to move a tool's file into the user message that follows the tool results, where Chat
 * Completions takes it (`ChatOpenAI` sends LangChain's `file` and `audio` blocks unconverted).
 *
 * @example
 * ```ts
 * import { toChatCompletionsMediaPart } from "@agentrx/core";
 *
 * const part = toChatCompletionsMediaPart({ type: "file", mimeType: "application/pdf", data: "JVBERi0=" });
 * console.log(part); // { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "file.pdf" } }
 * ```
 */
export function toChatCompletionsMediaPart(block: unknown): ChatCompletionsMediaPart | undefined {
  if (typeof block !== "object" || block === null) return undefined;
  const part = standardDocumentBlock(block as Block) as Block;
  if (part.type === "input_audio" && typeof part.input_audio === "object" && part.input_audio !== null) return part as ChatCompletionsMediaPart;
  if (part.type === "file" && typeof part.file === "object" && part.file !== null) return part as ChatCompletionsMediaPart;
  const converted = part.type === "file" && !isPlainTextBlock(part) ? filePart(part) : part.type === "audio" ? audioPart(part) : undefined;
  return converted === undefined || "refused" in converted ? undefined : (converted as ChatCompletionsMediaPart);
}

/** LangChain's `file` block (v1: `data`, `url` or `fileId`; v0: a `source_type`) as OpenAI's `file` part. */
function filePart(part: Block): UserContentPart | Refusal {
  const fileId = stringOf(part.fileId) ?? stringOf(part.file_id) ?? (part.source_type === "id" ? stringOf(part.id) : undefined);
  if (fileId !== undefined) return { type: "file", file: { file_id: fileId } };
  const data = dataUrl(part);
  if (data === undefined) {
    return {
      refused: "a file block without base64 data or a file id",
      fix:
        "The Chat Completions API takes a file as base64 data (`data` with `mimeType`, or a `data:` URL) or as the id of an " +
        "uploaded file (`fileId`), not by an https URL: download it and pass its data, or upload it first.",
    };
  }
  const metadata = part.metadata as Block | undefined;
  const filename = stringOf(metadata?.filename) ?? stringOf(metadata?.name) ?? stringOf(metadata?.title) ?? stringOf(part.filename);
  // OpenAI refuses `file_data` without a `filename`: a block without one gets a name from its media type.
  return { type: "file", file: { file_data: data, filename: filename ?? defaultFilename(data) } };
}

/** `file.pdf` for a `data:application/pdf;...` URL (`file.txt` for text/plain), else `file`. */
function defaultFilename(url: string): string {
  const subtype = /^data:[^/;,]+\/([^;,]+)/.exec(url)?.[1]?.toLowerCase();
  if (subtype === "plain") return "file.txt";
  return subtype && /^[a-z0-9]{1,8}$/.test(subtype) ? `file.${subtype}` : "file";
}

/** Audio formats the Chat Completions API takes, by media type. */
const AUDIO_FORMATS: Readonly<Record<string, "wav" | "mp3">> = {
  "audio/wav": "wav",
  "audio/wave": "wav",
  "audio/x-wav": "wav",
  "audio/vnd.wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/mpeg3": "mp3",
  "audio/x-mp3": "mp3",
};

/** LangChain's `audio` block (base64 data, or a `data:` URL) as OpenAI's `input_audio` part. */
function audioPart(part: Block): UserContentPart | Refusal {
  const url = dataUrl(part);
  const match = url === undefined ? undefined : /^data:([^;,]*)(?:;[^,]*)?,(.*)$/s.exec(url);
  if (!match) {
    return {
      refused: "an audio block without base64 data",
      fix: "The Chat Completions API takes audio as base64 data only (`data` with `mimeType`, or a `data:` URL).",
    };
  }
  const mimeType = (match[1] ?? "").trim().toLowerCase();
  const format = AUDIO_FORMATS[mimeType];
  if (format === undefined) {
    return {
      refused: `an audio block of type "${mimeType || "unknown"}"`,
      fix: 'The Chat Completions API takes wav or mp3 audio only: give `mimeType` "audio/wav" or "audio/mpeg", converting the audio if need be.',
    };
  }
  return { type: "input_audio", input_audio: { data: match[2] ?? "", format } };
}

/** Whether a block is LangChain's `text-plain` block (v1), or v0's `file` block with `source_type: "text"`. */
export function isPlainTextBlock(part: Block): boolean {
  return part.type === "text-plain" || (part.type === "file" && part.source_type === "text");
}

/**
 * LangChain's `text-plain` block (v1: `text`, or `data` with its UTF-8 bytes, as base64 or a
 * `Uint8Array`, or a `data:` URL, or a `fileId`; v0: `source_type` `"text"` or `"base64"`) as a
 * text part, or a `file` part for a file id. Chat Completions has no part for plain-text files.
 * Also reads a `file` block of a text media type for the roles that take text only (see
 * `to-openai-messages.ts`). Throws an `InvalidArgumentError` naming the message for a block
 * without its text (an `https:` URL) or whose data is not base64 of UTF-8 text.
 */
export function plainTextPart(part: Block, place: Place): UserContentPart {
  if (typeof part.text === "string") return { type: "text", text: part.text };
  const fileId = stringOf(part.fileId) ?? stringOf(part.file_id) ?? (part.source_type === "id" ? stringOf(part.id) : undefined);
  if (fileId !== undefined) return { type: "file", file: { file_id: fileId } };
  const bytes = textDocumentBytes(part);
  if (bytes === undefined) {
    refuse(
      place,
      part,
      "a text-plain block without its text",
      "The Chat Completions API takes plain text as text only: give the block `text`, or `data` with the text's UTF-8 bytes (base64), " +
        "or a `data:` URL, not an https URL: download it and pass its text.",
    );
  }
  const fix = "Give the block `text`, or `data` with the text's UTF-8 bytes (base64-encoded, or as a `Uint8Array`).";
  if (bytes === "invalid") refuse(place, part, "a text-plain block whose data is not valid base64", fix);
  try {
    return { type: "text", text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    refuse(place, part, "a text-plain block whose data is not UTF-8 text", fix);
  }
}

/** A `data:` URL for a block's base64 data (v1 `data` with `mimeType`, v0 `source_type: "base64"`), or its `url` when that is one. */
function dataUrl(part: Block): string | undefined {
  const data = base64Data(part.data);
  if (data !== undefined) return `data:${stringOf(part.mimeType) ?? stringOf(part.mime_type) ?? "application/octet-stream"};base64,${data}`;
  const url = stringOf(part.url);
  return url?.startsWith("data:") ? url : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

/** Throws an `InvalidArgumentError` saying that the message at `place` has `what` (the block, previewed), and `fix`. */
export function refuse(place: Place, part: Block, what: string, fix: string): never {
  const { message, index } = place;
  throw new InvalidArgumentError({
    argument: `messages[${index}]`,
    value: message,
    message: `OpenAIChatModel: messages[${index}] (${message.getType()}) has ${what} (${preview(part)}). ${fix}`,
  });
}

/** The start of a block as JSON, with bytes left out. */
function preview(part: Block): string {
  const text = JSON.stringify(part, (_key, value: unknown) => (value instanceof Uint8Array ? `<${value.byteLength} bytes>` : value)) ?? "";
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
