import { contentBlockKind, describeMediaBlock, textDocumentText } from "./content-blocks";
import type { Observation } from "./types";
import { valueToText } from "./value-to-text";

type Block = Record<string, unknown>;

/**
 * An observation as text, for agents that read text only (ReAct, structured chat, XML, self-ask,
 * OpenAI functions): a string as it is; message content as its text blocks, a plain-text document
 * (a `text-plain` block, a `file` of a `text/*` type) as its text, and a note in place of each
 * image, file, audio clip or video (`[image: image/png, 12.0 KB; this agent reads text only]`);
 * anything else as JSON.
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
  if (Array.isArray(observation) && observation.some(isMediaOrDocument)) return observation.map(blockText).join("\n");
  if (Array.isArray(observation) && observation.every((block: Block) => block?.["type"] === "text" && typeof block["text"] === "string")) {
    return observation.map((block: Block) => block["text"]).join("\n");
  }
  return safeJson(observation);
}

/** Whether a block is more than text: an image, a file, audio, video, or a plain-text document. */
function isMediaOrDocument(block: unknown): boolean {
  const kind = contentBlockKind(block);
  return kind !== undefined && kind !== "text";
}

/** One block of content as text: its text, a document's text, or a note in place of media. */
function blockText(block: Block): string {
  const kind = contentBlockKind(block);
  if (kind === "text-document") return textDocumentText(block) ?? `[document: ${describeMediaBlock(block)}; its text could not be read]`;
  if (kind !== undefined && kind !== "text") return `[${kind}: ${describeMediaBlock(block)}; this agent reads text only]`;
  return typeof block?.["text"] === "string" ? block["text"] : safeJson(block);
}

/** `value` as JSON (a string quoted), else its `String`; never throws. */
function safeJson(value: unknown): string {
  return valueToText(value, { quoteStrings: true });
}
