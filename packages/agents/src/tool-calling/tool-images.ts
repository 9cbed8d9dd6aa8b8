import { imageBlockUrl, InvalidArgumentError, isImageBlock, observationText } from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, ToolMessage, type MessageContentComplex } from "@langchain/core/messages";

/**
 * Where a tool-calling agent puts the images a tool returned (a chart, a screenshot), for its model
 * to see them:
 *
 * - `"tool-result"`: in the tool's result, as content blocks (Anthropic, Gemini; for OpenAI's
 *   Responses API as `input_text` and `input_image` items of the function call's output).
 * - `"user-message"`: the tool's result keeps its text and says where each image went, and the
 *   images follow the turn's results in one user message (OpenAI's Chat Completions, which takes
 *   text only in a tool message and answers 400 to an image there).
 * - `"text"`: a note in place of each image, with its type and size (a model that reads no images).
 * - `"auto"`: `"user-message"` for an OpenAI chat model on Chat Completions (`ChatOpenAI`,
 *   `AzureChatOpenAI`, `OpenAIChatModel`), `"tool-result"` for every other model. Chosen for the
 *   model of each call, so a model swapped in by a middleware gets its own.
 *
 * It applies to every message list the prompt receives (the scratchpad, and a history with tool
 * results in it, such as a thread's memory), and never to the run's steps or record.
 */
export type ToolImages = "auto" | "tool-result" | "user-message" | "text";

/** The values `ToolImages` takes. @internal */
export const TOOL_IMAGES: readonly ToolImages[] = ["auto", "tool-result", "user-message", "text"];

/** How the images of a tool's result reach one model: `ToolImages` resolved for it. */
type ImagesFor = "blocks" | "responses" | "user-message" | "text";

/** Throws an `InvalidArgumentError` naming `constructorName` unless `value` is a `ToolImages`. @internal */
export function assertToolImages(value: unknown, constructorName: string): asserts value is ToolImages {
  if (!TOOL_IMAGES.includes(value as ToolImages)) {
    throw new InvalidArgumentError({
      argument: "toolImages",
      value,
      message: `${constructorName}: \`toolImages\` must be "auto", "tool-result", "user-message" or "text", got ${JSON.stringify(value) ?? String(value)}.`,
    });
  }
}

/**
 * Rewrites the message lists among a prompt's values so that `model` can take the images of the
 * tool results in them (see {@link ToolImages}); undefined when nothing needs rewriting.
 *
 * @internal
 */
export function toolImagesFor(mode: ToolImages, model: BaseChatModel): ((values: Record<string, unknown>) => Record<string, unknown>) | undefined {
  const imagesFor = resolve(mode, model);
  if (imagesFor === "blocks") return undefined;
  return (values) => {
    let changed: Record<string, unknown> | undefined;
    for (const key in values) {
      const value = values[key];
      if (!Array.isArray(value) || !value.some(hasToolImages)) continue;
      changed ??= { ...values };
      changed[key] = rewrite(value as unknown[], imagesFor);
    }
    return changed ?? values;
  };
}

function resolve(mode: ToolImages, model: BaseChatModel): ImagesFor {
  if (mode === "text" || mode === "user-message") return mode;
  const openAI = isOpenAIChatModel(model);
  if (mode === "tool-result") return openAI && usesResponsesApi(model) ? "responses" : "blocks";
  return openAI ? (usesResponsesApi(model) ? "responses" : "user-message") : "blocks";
}

/** `ChatOpenAI`, `AzureChatOpenAI` (from `@langchain/openai`) and `OpenAIChatModel` report these. */
function isOpenAIChatModel(model: BaseChatModel): boolean {
  const type = typeof model._llmType === "function" ? model._llmType() : undefined;
  return type === "openai" || type === "azure_openai";
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

function hasToolImages(message: unknown): boolean {
  return ToolMessage.isInstance(message) && Array.isArray(message.content) && message.content.some(isImageBlock);
}

function rewrite(messages: readonly unknown[], imagesFor: Exclude<ImagesFor, "blocks">): unknown[] {
  const result: unknown[] = [];
  // The images of the tool results read so far, sent once the run of tool messages ends.
  let pending: MessageContentComplex[] = [];
  let count = 0;
  const flush = () => {
    if (pending.length === 0) return;
    result.push(new HumanMessage({ content: [{ type: "text", text: "The images the tools above returned:" }, ...pending] as HumanMessage["content"] }));
    pending = [];
  };
  for (const message of messages) {
    if (imagesFor === "user-message" && !ToolMessage.isInstance(message)) flush();
    if (!hasToolImages(message)) {
      result.push(message);
      continue;
    }
    const tool = message as ToolMessage;
    const blocks = tool.content as MessageContentComplex[];
    if (imagesFor === "text") result.push(withContent(tool, observationText(blocks)));
    else if (imagesFor === "responses") result.push(withContent(tool, blocks.map(responsesItem)));
    else {
      const lines = blocks.map((block) => {
        if (!isImageBlock(block)) return blockText(block);
        const url = imageBlockUrl(block);
        if (url === undefined) return observationText([block]);
        count += 1;
        pending.push({ type: "text", text: `Image ${count} (from ${tool.name ?? "the tool"}, call ${tool.tool_call_id}):` }, { type: "image_url", image_url: { url } });
        return `[image ${count}: in the user message after the tool results]`;
      });
      result.push(withContent(tool, lines.join("\n")));
    }
  }
  flush();
  return result;
}

/** A block of a function call's output on OpenAI's Responses API. */
function responsesItem(block: MessageContentComplex): MessageContentComplex {
  if (!isImageBlock(block)) return { type: "input_text", text: blockText(block) };
  const url = imageBlockUrl(block);
  return url === undefined ? { type: "input_text", text: observationText([block]) } : { type: "input_image", image_url: url, detail: "auto" };
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

