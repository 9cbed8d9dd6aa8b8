import { contentBlockKind, imageBlockUrl, InvalidArgumentError, observationText, showValue, toChatCompletionsMediaPart } from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, ToolMessage, type MessageContentComplex } from "@langchain/core/messages";

/**
 * Where a tool-calling agent puts the images a tool returned (a chart, a screenshot), and with
 * them the files (a PDF) and audio, for its model to see them. Despite its name, the option covers
 * all three:
 *
 * - `"tool-result"`: in the tool's result, as content blocks (Anthropic, Gemini; for OpenAI's
 *   Responses API, items of the function call's output: images as `input_image`, files as
 *   `input_file`, the rest as `input_text`). A plain-text document goes as its text; for
 *   Anthropic, which takes neither there, audio and video as a note.
 * - `"user-message"`: the tool's result keeps its text and says where each image, file and audio
 *   clip went (`[file 1: in the user message after the tool results]`), and they follow the turn's
 *   results in one user message (OpenAI's Chat Completions, which takes text only in a tool
 *   message and answers 400 to an image there). A plain-text document (a `text-plain` block, or a
 *   `file` of a `text/*` type) becomes its text in the tool message; a video stays there, as Chat
 *   Completions takes it in no message (the OpenAI conversion says so).
 * - `"text"`: a note in place of each image, file, audio clip and video, with its type and size
 *   (a model that reads text only); a plain-text document becomes its text.
 * - `"auto"`: `"user-message"` for an OpenAI chat model on Chat Completions (`ChatOpenAI`,
 *   `AzureChatOpenAI`, `OpenAIChatModel`), `"tool-result"` for every other model. Chosen for the
 *   model of each call, so a model swapped in by a middleware gets its own. For a model that
 *   answers from a recorded run (`RecordedChatModel` of `@agentrx/runs`, which has
 *   `nextRecordedReply()`), chosen for the model that gave the recorded reply of the call, as its
 *   metadata says (`response_metadata.model_provider`, and for OpenAI whether it came from the
 *   Responses API): a re-run places them as the recorded run did (see docs/runs.md). `"tool-result"`
 *   is chosen that way too, as it differs for OpenAI's Responses API and Anthropic.
 *
 * It applies to every message list the prompt receives (the scratchpad, and a history with tool
 * results in it, such as a thread's memory), and never to the run's steps or record.
 */
export type ToolImages = "auto" | "tool-result" | "user-message" | "text";

/** The values `ToolImages` takes. @internal */
export const TOOL_IMAGES: readonly ToolImages[] = ["auto", "tool-result", "user-message", "text"];

/** How the images (and files and audio) of a tool's result reach one model: `ToolImages` resolved for it. */
type ImagesFor = "blocks" | "anthropic" | "responses" | "user-message" | "text";

/** What `"auto"` and `"tool-result"` go by: the API a model's calls reach. */
type ModelApi = "chat-completions" | "responses" | "anthropic" | "other";

/**
 * A model that answers from a recorded run (`RecordedChatModel` of `@agentrx/runs`): the recorded
 * reply its next call gets (undefined past the end of the recording), read from the record.
 */
interface ReplayingModel {
  nextRecordedReply(): Promise<unknown>;
}

type Block = Record<string, unknown>;

/** Throws an `InvalidArgumentError` naming `constructorName` unless `value` is a `ToolImages`. @internal */
export function assertToolImages(value: unknown, constructorName: string): asserts value is ToolImages {
  if (!TOOL_IMAGES.includes(value as ToolImages)) {
    throw new InvalidArgumentError({
      argument: "toolImages",
      value,
      message: `${constructorName}: \`toolImages\` must be "auto", "tool-result", "user-message" or "text", got ${showValue(value)}.`,
    });
  }
}

/**
 * Rewrites the message lists among a prompt's values so that `model` can take the images, files
 * and audio of the tool results in them (see {@link ToolImages}); undefined when nothing needs
 * rewriting. For a model that replays a recorded run, the rewrite waits for the recorded reply of
 * the call (a promise), when there is a tool result to rewrite.
 *
 * @internal
 */
export function toolImagesFor(
  mode: ToolImages,
  model: BaseChatModel,
): ((values: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>) | undefined {
  if ((mode === "auto" || mode === "tool-result") && isReplayingModel(model)) {
    const own = resolve(mode, apiOf(model));
    return (values) => {
      // Most calls have no tool result with media: those need no recorded reply read.
      if (!Object.values(values).some((value) => Array.isArray(value) && value.some((message) => needsRewrite(message, "responses")))) return values;
      return model.nextRecordedReply().then(
        (reply) => placed(values, resolve(mode, apiOfReply(reply) ?? apiOf(model))),
        // The recording cannot be read: the model's call reads it again, and says why it failed.
        () => placed(values, own),
      );
    };
  }
  const imagesFor = resolve(mode, apiOf(model));
  return (values) => placed(values, imagesFor);
}

/** `values` with each message list that has a tool result to rewrite for `imagesFor` rewritten. */
function placed(values: Record<string, unknown>, imagesFor: ImagesFor): Record<string, unknown> {
  let changed: Record<string, unknown> | undefined;
  for (const key in values) {
    const value = values[key];
    if (!Array.isArray(value) || !value.some((message) => needsRewrite(message, imagesFor))) continue;
    changed ??= { ...values };
    changed[key] = rewrite(value as unknown[], imagesFor);
  }
  return changed ?? values;
}

function resolve(mode: ToolImages, api: ModelApi): ImagesFor {
  if (mode === "text" || mode === "user-message") return mode;
  if (api === "responses" || api === "anthropic") return api;
  return mode === "auto" && api === "chat-completions" ? "user-message" : "blocks";
}

/**
 * The API a model's calls reach: OpenAI's (`ChatOpenAI`, `AzureChatOpenAI`, `OpenAIChatModel`
 * report `_llmType()` "openai" or "azure_openai") Chat Completions or Responses API, Anthropic's
 * (`@langchain/anthropic`, "anthropic", whose tool results take fewer kinds), or another.
 */
function apiOf(model: BaseChatModel): ModelApi {
  const type = typeof model._llmType === "function" ? model._llmType() : undefined;
  if (type === "openai" || type === "azure_openai") return usesResponsesApi(model) ? "responses" : "chat-completions";
  return type === "anthropic" ? "anthropic" : "other";
}

/**
 * The API that gave a recorded reply, as its metadata says: `response_metadata.model_provider`
 * ("openai", "anthropic", ...), and for OpenAI the Responses API when the reply is a response
 * (`response_metadata.object` "response", or an id `resp_...`); undefined when it does not say.
 */
function apiOfReply(reply: unknown): ModelApi | undefined {
  const { response_metadata: metadata, id } = (reply ?? {}) as { response_metadata?: Record<string, unknown>; id?: unknown };
  const provider = metadata?.["model_provider"];
  if (typeof provider !== "string" || provider === "") return undefined;
  if (provider === "openai") return metadata?.["object"] === "response" || (typeof id === "string" && id.startsWith("resp_")) ? "responses" : "chat-completions";
  return provider === "anthropic" ? "anthropic" : "other";
}

/** Whether `model` answers from a recorded run (see {@link ReplayingModel}). */
function isReplayingModel(model: BaseChatModel): model is BaseChatModel & ReplayingModel {
  return typeof (model as Partial<ReplayingModel>).nextRecordedReply === "function";
}

/** Whether `ChatOpenAI` calls the Responses API for a plain call (its `useResponsesApi`, or a model that prefers it). */
function usesResponsesApi(model: BaseChatModel): boolean {
  const probe = (model as { _useResponsesApi?: (options: object) => unknown })._useResponsesApi;
  if (typeof probe !== "function") return false;
  try {
    return probe.call(model, {}) === true;
  } catch {
    return false;
  }
}

/**
 * Whether a block goes in the user message after the tool results, which takes it where a tool
 * message does not: an image, a file (LangChain's `file` block, a PDF; Anthropic's `document`), audio. A plain-text
 * document stays (the OpenAI conversion reads it as text), and so does a video: Chat Completions
 * takes none (the conversion says so), and OpenAI's Responses-only `input_file`, which it refuses.
 */
function movesToUserMessage(block: unknown): boolean {
  const kind = contentBlockKind(block);
  const type = (block as Block)["type"];
  return kind === "image" || kind === "audio" || (kind === "file" && (type === "file" || type === "document"));
}

/** Whether a block is more than text: media, or a plain-text document. */
function isMoreThanText(block: unknown): boolean {
  const kind = contentBlockKind(block);
  return kind !== undefined && kind !== "text";
}

/** Whether a message is a tool's result that has to be rewritten for the model. */
function needsRewrite(message: unknown, imagesFor: ImagesFor): boolean {
  // Runs on every message of every call: the common string content is ruled out first.
  const blocks = (message as { content?: unknown } | null)?.content;
  if (!Array.isArray(blocks) || !ToolMessage.isInstance(message)) return false;
  if (imagesFor === "user-message") return blocks.some((block) => movesToUserMessage(block) || contentBlockKind(block) === "text-document");
  if (imagesFor === "blocks" || imagesFor === "anthropic") return blocks.some((block) => inBlocksAsText(block, imagesFor));
  return blocks.some(isMoreThanText);
}

/**
 * Whether a block of a tool result sent as blocks goes as text instead: a plain-text document
 * always (`@langchain/anthropic` drops a `text-plain` block without a word), and for Anthropic,
 * whose tool results take text, images and documents only, audio and video too (dropped as well).
 */
function inBlocksAsText(block: unknown, imagesFor: "blocks" | "anthropic"): boolean {
  const kind = contentBlockKind(block);
  return kind === "text-document" || (imagesFor === "anthropic" && (kind === "audio" || kind === "video"));
}

/** A block of a tool result sent as blocks, as `inBlocksAsText` says: a document's text, a note in place of audio or video. */
function blockAsText(block: MessageContentComplex, imagesFor: "blocks" | "anthropic"): MessageContentComplex {
  if (!inBlocksAsText(block, imagesFor)) return block;
  const kind = contentBlockKind(block);
  const text = observationText([block]);
  return { type: "text", text: kind === "text-document" ? text : text.replace("this agent reads text only", `Anthropic's API takes no ${kind} in a tool result`) };
}

/** What a kind is called in the user message's heading and before each of its blocks. */
const KIND_NAMES: Readonly<Record<"image" | "file" | "audio", { plural: string; label: string }>> = {
  image: { plural: "images", label: "Image" },
  file: { plural: "files", label: "File" },
  audio: { plural: "audio", label: "Audio" },
};

function rewrite(messages: readonly unknown[], imagesFor: ImagesFor): unknown[] {
  const result: unknown[] = [];
  // The images, files and audio of the tool results read so far, sent once the run of tool messages ends.
  let pending: MessageContentComplex[] = [];
  let kinds = new Set<keyof typeof KIND_NAMES>();
  // Numbered by kind across the whole list, so that each note names one block of a user message.
  const counts = { image: 0, file: 0, audio: 0 };
  const flush = () => {
    if (pending.length === 0) return;
    const names = (["image", "file", "audio"] as const).filter((kind) => kinds.has(kind)).map((kind) => KIND_NAMES[kind].plural);
    const heading = `The ${names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0]} the tools above returned:`;
    result.push(new HumanMessage({ content: [{ type: "text", text: heading }, ...pending] as HumanMessage["content"] }));
    pending = [];
    kinds = new Set();
  };
  for (const message of messages) {
    if (imagesFor === "user-message" && !ToolMessage.isInstance(message)) flush();
    if (!needsRewrite(message, imagesFor)) {
      result.push(message);
      continue;
    }
    const tool = message as ToolMessage;
    const blocks = tool.content as MessageContentComplex[];
    if (imagesFor === "text") {
      result.push(withContent(tool, observationText(blocks)));
      continue;
    }
    if (imagesFor === "responses") {
      result.push(withContent(tool, blocks.map(responsesItem)));
      continue;
    }
    if (imagesFor === "blocks" || imagesFor === "anthropic") {
      result.push(withContent(tool, blocks.map((block) => blockAsText(block, imagesFor))));
      continue;
    }
    const parts = blocks.map((block): string | MessageContentComplex => {
      if (!movesToUserMessage(block)) return keptPart(block);
      const kind = contentBlockKind(block) as keyof typeof KIND_NAMES;
      let sent: MessageContentComplex = block;
      if (kind === "image") {
        const url = imageBlockUrl(block);
        // An image known only by a provider's file id cannot go in a Chat Completions message.
        if (url === undefined) return observationText([block]);
        sent = { type: "image_url", image_url: { url } };
      } else {
        // As the API's own part, which every OpenAI chat model sends as it is (`ChatOpenAI` sends
        // LangChain's `file` and `audio` blocks unconverted, and the API answers 400); a block
        // without inline data or a file id stays, for the model's conversion to refuse by name.
        sent = (toChatCompletionsMediaPart(block) as MessageContentComplex | undefined) ?? block;
      }
      counts[kind] += 1;
      kinds.add(kind);
      pending.push({ type: "text", text: `${KIND_NAMES[kind].label} ${counts[kind]} (from ${tool.name ?? "the tool"}, call ${tool.tool_call_id}):` }, sent);
      return `[${kind} ${counts[kind]}: in the user message after the tool results]`;
    });
    result.push(withContent(tool, joinParts(parts)));
  }
  flush();
  return result;
}

/**
 * A block that stays in the tool message, which takes text only: its text, a plain-text
 * document's text (`ChatOpenAI` sends a `text-plain` block as it is, and the API answers 400), or
 * the block itself for media no message of Chat Completions takes (a video), which the OpenAI
 * conversion refuses with a message naming it rather than sending it as JSON.
 */
function keptPart(block: MessageContentComplex): string | MessageContentComplex {
  const kind = contentBlockKind(block);
  if (kind === "text-document") return observationText([block]);
  return kind !== undefined && kind !== "text" ? block : blockText(block);
}

/** The tool message's content: its text when every part is text, else text blocks between the blocks kept. */
function joinParts(parts: readonly (string | MessageContentComplex)[]): string | MessageContentComplex[] {
  if (parts.every((part) => typeof part === "string")) return parts.join("\n");
  const content: MessageContentComplex[] = [];
  let lines: string[] = [];
  for (const part of parts) {
    if (typeof part === "string") {
      lines.push(part);
      continue;
    }
    if (lines.length > 0) content.push({ type: "text", text: lines.join("\n") });
    lines = [];
    content.push(part);
  }
  if (lines.length > 0) content.push({ type: "text", text: lines.join("\n") });
  return content;
}

/**
 * A block of a function call's output on OpenAI's Responses API, which takes `input_text`,
 * `input_image` and `input_file` items there: an image as `input_image`, a file with its data as
 * `input_file`, anything else as text (a plain-text document's text, a note for audio or video).
 */
function responsesItem(block: MessageContentComplex): MessageContentComplex {
  const kind = contentBlockKind(block);
  if (kind === "image") {
    const url = imageBlockUrl(block);
    return url === undefined ? { type: "input_text", text: observationText([block]) } : { type: "input_image", image_url: url, detail: "auto" };
  }
  if ((block as Block)["type"] === "input_file") return block;
  const file = kind === "file" ? inputFile(block as Block) : undefined;
  return file ?? { type: "input_text", text: kind === undefined ? blockText(block) : observationText([block]) };
}

/** A file block as a Responses `input_file` item (`file_data` a `data:` URL with a file name, or `file_id`), from the Chat Completions part of the same file; undefined for one known only by an `https:` URL. */
function inputFile(block: Block): MessageContentComplex | undefined {
  const part = toChatCompletionsMediaPart(block);
  if (part?.type !== "file") return undefined;
  const { file_id: fileId, file_data: data, filename } = part.file;
  if (fileId !== undefined) return { type: "input_file", file_id: fileId };
  return data === undefined ? undefined : { type: "input_file", file_data: data, ...(filename === undefined ? {} : { filename }) };
}

function blockText(block: MessageContentComplex): string {
  const text = (block as { text?: unknown }).text;
  return typeof text === "string" ? text : observationText(block);
}

function withContent(message: ToolMessage, content: string | MessageContentComplex[]): ToolMessage {
  return new ToolMessage({
    content: content as ToolMessage["content"],
    tool_call_id: message.tool_call_id,
    name: message.name,
    id: message.id,
    status: message.status,
    artifact: message.artifact,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

