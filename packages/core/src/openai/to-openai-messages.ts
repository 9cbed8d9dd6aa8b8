import { contentBlockKind, isImageBlock, standardDocumentBlock } from "../agent/content-blocks";
import { observationText } from "../agent/observation-text";
import type { BaseMessage } from "@langchain/core/messages";
import type OpenAI from "openai";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { strictToolCalls } from "../messages/strict-tool-calls";
import { reasoningParams } from "./reasoning-fields";
import { plainTextPart, refuse, toOpenAIUserContent, type Place } from "./to-openai-user-content";

type MessageParam = OpenAI.Chat.ChatCompletionMessageParam;
type Block = Record<string, any>;
/** The roles whose content the Chat Completions API takes as text only (the assistant's refusals aside). */
type TextRole = "system" | "developer" | "assistant" | "tool" | "function";

/** How messages are converted for one model. */
export interface ToOpenAIMessagesOptions {
  /** Send system messages with the `developer` role (what OpenAI's reasoning models expect). */
  systemAsDeveloper?: boolean;
}

/**
 * Converts `@langchain/core` messages to Chat Completions messages; an assistant message with tool
 * calls keeps its `additional_kwargs.reasoning_content` (as `reasoning_content`, or as `reasoning`
 * when `reasoning_field` says it came in that field), and any assistant message its
 * `additional_kwargs.reasoning_details`, unchanged. System, developer, assistant, tool and function
 * messages go as text: a plain-text document in them (a `text-plain` block, or a `file` block of a
 * `text/*` media type) as its decoded text, an image in a tool message as a note. Throws an
 * `InvalidArgumentError` for a message the API would reject for want of an id (a tool message
 * without `tool_call_id`, a tool call without `id`), and for an image, audio, video or other file
 * in a message of a role that takes text only, so the caller learns which message is at fault
 * instead of getting a 400 or a reply to a message that lost part of its content.
 */
export function toOpenAIMessages(messages: BaseMessage[], options: ToOpenAIMessagesOptions = {}): MessageParam[] {
  return messages.map((message, index) => withName(toOpenAIMessage(message, index, options), message));
}

/** Keeps the message's `name` (a participant's name) on the roles that take one. */
function withName(param: MessageParam, message: BaseMessage): MessageParam {
  const name = message.name;
  if (typeof name !== "string" || !name || param.role === "tool" || "name" in param) return param;
  return { ...param, name } as MessageParam;
}

function missingId(index: number, message: BaseMessage, what: string): never {
  throw new InvalidArgumentError({
    argument: `messages[${index}]`,
    value: message,
    message:
      `OpenAIChatModel: messages[${index}] (${message.getType()}) ${what}. The Chat Completions API pairs every ` +
      "tool result with its tool call by id: give each AIMessage tool call an `id` and each ToolMessage the " +
      "`tool_call_id` of the call it answers.",
  });
}

function toOpenAIMessage(message: BaseMessage, index: number, options: ToOpenAIMessagesOptions): MessageParam {
  const type = message.getType();
  switch (type) {
    case "system": {
      const developer = options.systemAsDeveloper || message.additional_kwargs?.__openai_role__ === "developer";
      const role = developer ? "developer" : "system";
      return { role, content: textContent(message, index, role) };
    }
    case "human":
      return { role: "user", content: toOpenAIUserContent(message, index) };
    case "ai": {
      // A message concatenated from streamed chunks has its calls rebuilt from the chunks: its own
      // `tool_calls` hold arguments "repaired" from partial JSON, not what the model produced.
      const { toolCalls: valid, invalidToolCalls: invalid } = strictToolCalls(message);
      const toolCalls = [
        ...valid.map((call) => ({ id: call.id, name: call.name, args: JSON.stringify(call.args ?? {}) })),
        ...invalid.map((call) => ({ id: call.id, name: call.name ?? "", args: call.args ?? "" })),
      ];
      const unnamed = toolCalls.find((call) => !call.id);
      if (unnamed) missingId(index, message, `has a tool call ("${unnamed.name}") without an \`id\``);
      const functionCall = message.additional_kwargs?.function_call as { name: string; arguments: string } | undefined;
      // A reasoning model behind a compatible API (DeepSeek's thinking mode, Kimi, OpenRouter)
      // needs the reasoning of a turn that called tools back with it, as it came.
      return {
        role: "assistant",
        content: textContent(message, index, "assistant") || (toolCalls.length || functionCall ? null : ""),
        ...(toolCalls.length
          ? {
              tool_calls: toolCalls.map((call) => ({
                id: call.id as string,
                type: "function" as const,
                function: { name: call.name, arguments: call.args },
              })),
            }
          : {}),
        ...(functionCall ? { function_call: { name: functionCall.name, arguments: functionCall.arguments } } : {}),
        ...reasoningParams(message.additional_kwargs, toolCalls.length > 0),
      } as MessageParam;
    }
    case "tool": {
      const id = (message as BaseMessage & { tool_call_id?: unknown }).tool_call_id;
      if (typeof id !== "string" || !id) missingId(index, message, "has no `tool_call_id`");
      return { role: "tool", tool_call_id: id as string, content: textContent(message, index, "tool") };
    }
    case "function":
      return { role: "function", name: message.name ?? "", content: textContent(message, index, "function") };
    case "generic": {
      const role = (message as BaseMessage & { role?: string }).role;
      if (role === "system" || role === "developer") {
        const sent = options.systemAsDeveloper ? "developer" : role;
        return { role: sent, content: textContent(message, index, sent) };
      }
      if (role === "assistant" || role === "ai") return { role: "assistant", content: textContent(message, index, "assistant") };
      return { role: "user", content: toOpenAIUserContent(message, index) };
    }
    default:
      return { role: "user", content: message.text };
  }
}

/**
 * The content of a message whose role takes text only. Its text blocks, as `message.text` has
 * them, with each plain-text document read into the text on lines of its own; in a tool message an
 * image becomes a note (the tool-calling agent moves a tool's images to a user message before
 * this, see docs/models.md). Any other image, audio, video or file is refused: the API would
 * reject it, and leaving it out would have the model answer without it.
 */
function textContent(message: BaseMessage, index: number, role: TextRole): string {
  const content = message.content;
  if (typeof content === "string") return content;
  const place = { message, index };
  const documents = new Set<Block>();
  const blocks = (content as Block[]).map((given) => {
    // Anthropic's `document` block, as the standard block of the same content.
    const block = standardDocumentBlock(given) as Block;
    if (isTextDocument(block)) {
      const text = { type: "text", text: documentText(block, place, role) };
      documents.add(text);
      return text;
    }
    if (!(role === "tool" && isImageBlock(block)) && mediaKind(block) !== undefined) refuseMedia(given, place, role);
    return block;
  });
  if (role === "tool" && blocks.some(isImageBlock)) return observationText(blocks);
  // Without documents the text is LangChain's own, leaving out blocks that are not content (reasoning, tool calls).
  if (documents.size === 0) return message.text;
  return joinText(blocks, documents);
}

/** A plain-text document: LangChain's `text-plain` block, or a `file` block whose media type is `text/*`. */
function isTextDocument(block: Block): boolean {
  return contentBlockKind(block) === "text-document";
}

/** A document's text, read as the user path reads a `text-plain` block; one known only by a file id cannot be sent as text. */
function documentText(block: Block, place: Place, role: TextRole): string {
  const part = plainTextPart(block, place);
  if (part.type === "text") return part.text;
  refuse(
    place,
    block,
    "a plain-text file known only by its id",
    `A ${role} message of the Chat Completions API takes text only, not files: give the block its \`text\` (or its \`data\`), or put the file in a user message.`,
  );
}

/** What kind of content a block is that a text-only role cannot carry, if it is one. */
function mediaKind(block: Block): "image" | "audio" | "video" | "file" | undefined {
  const kind = contentBlockKind(block);
  return kind === "text" || kind === "text-document" ? undefined : kind;
}

function refuseMedia(block: Block, place: Place, role: TextRole): never {
  const type = String(block.type);
  const what = `a${/^[aeiou]/i.test(type) ? "n" : ""} "${type}" block`;
  const takes = `A ${role} message of the Chat Completions API takes text only${role === "assistant" ? " (and refusals)" : ""}`;
  const fixes = {
    image: `${takes}: put images in a user message (a HumanMessage), or describe the image in text.`,
    audio: `${takes}: put audio in a user message (a HumanMessage), as wav or mp3, or give its transcript as text.`,
    video: `${takes}, and the Chat Completions API takes no video in any message: take frames of it as images and put them in a user message.`,
    file: `${takes}: put files in a user message (a HumanMessage), or give plain text as a \`text-plain\` block.`,
  } as const;
  refuse(place, block, what, fixes[mediaKind(block) ?? "file"]);
}

/** The text blocks' text: adjacent text blocks run together (as in `message.text`), a document is set apart by line breaks. */
function joinText(blocks: Block[], documents: Set<Block>): string {
  let text = "";
  let previous: Block | undefined;
  for (const block of blocks) {
    if (block?.type !== "text" || typeof block.text !== "string") continue;
    const apart = previous !== undefined && (documents.has(block) || documents.has(previous));
    text += (apart ? "\n" : "") + block.text;
    previous = block;
  }
  return text;
}
