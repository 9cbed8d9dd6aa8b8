import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { estimateTextTokens } from "./estimate-tokens";
import { mediaTokens } from "./media-tokens";

/** What a chat API adds around each message (role and separators): OpenAI documents 3 plus the role. */
const MESSAGE_OVERHEAD = 4;
/** What wraps each tool call besides its name and arguments (an estimate: providers do not document it). */
const TOOL_CALL_OVERHEAD = 3;
/** An image, priced as OpenAI prices a 1024×1024 image in high detail. */
const IMAGE_TOKENS = 765;
/** An image sent with `detail: "low"`: OpenAI's fixed price. */
const LOW_DETAIL_IMAGE_TOKENS = 85;
/** Block types that hold an image, whatever the provider's format (OpenAI's chat and responses APIs, Anthropic, LangChain's standard blocks). */
const IMAGE_BLOCKS = new Set(["image_url", "image", "input_image"]);

interface ContentBlock {
  type?: unknown;
  text?: unknown;
  detail?: unknown;
  image_url?: { detail?: unknown };
  mime_type?: unknown;
  mimeType?: unknown;
}

/** The tokens of an image block, or `undefined` when the block holds no image (a Gemini `media` block holds one when its MIME type says so). */
function imageTokens(block: ContentBlock): number | undefined {
  const mime = block.mime_type ?? block.mimeType;
  if (!IMAGE_BLOCKS.has(block.type as string) && !(typeof mime === "string" && mime.startsWith("image/"))) return undefined;
  const detail = block.detail ?? (typeof block.image_url === "object" && block.image_url !== null ? block.image_url.detail : undefined);
  return detail === "low" ? LOW_DETAIL_IMAGE_TOKENS : IMAGE_TOKENS;
}

function contentTokens(content: BaseMessage["content"]): number {
  if (typeof content === "string") return estimateTextTokens(content);
  let tokens = 0;
  for (const block of content as unknown[]) {
    if (typeof block === "string") tokens += estimateTextTokens(block);
    else if (block !== null && typeof block === "object") {
      const { type, text } = block as ContentBlock;
      if (typeof text === "string" && (type === "text" || type === undefined)) tokens += estimateTextTokens(text);
      else tokens += imageTokens(block as ContentBlock) ?? mediaTokens(block) ?? estimateTextTokens(JSON.stringify(block));
    }
  }
  return tokens;
}

/**
 * The token count `ThreadMemory` gives a message when no `countTokens` is passed: an offline
 * estimate, without tokenizer tables, of what the message costs in a prompt. Its text is priced by
 * {@link estimateTextTokens}; each message adds 4 tokens (role and separators), each tool call its
 * name, its arguments as JSON and 3 more, each image 765 (85 in low detail); a file, audio or video
 * block as providers price it, not as its base64 text: a document 1,500 a page, audio 32 a second,
 * video 300 a second, a text file as its text (docs/memory.md says how their pages and seconds are
 * found). Within a few percent of OpenAI's `o200k_base` on English prose and code; see
 * docs/memory.md for other text.
 *
 * @example
 * ```ts
 * import { estimateMessageTokens } from "@agentrx/runs";
 * import { HumanMessage } from "@langchain/core/messages";
 *
 * console.log(estimateMessageTokens(new HumanMessage("What's the weather like in Paris today?"))); // 12
 * ```
 */
export function estimateMessageTokens(message: BaseMessage): number {
  let tokens = MESSAGE_OVERHEAD + contentTokens(message.content);
  if (typeof message.name === "string" && message.name !== "") tokens += 1 + estimateTextTokens(message.name);
  for (const call of (message as AIMessage).tool_calls ?? []) {
    tokens += TOOL_CALL_OVERHEAD + estimateTextTokens(call.name) + estimateTextTokens(JSON.stringify(call.args ?? {}));
  }
  return tokens;
}
