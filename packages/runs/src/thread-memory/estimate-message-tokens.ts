import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { estimateTextTokens } from "./estimate-tokens";

/** What a chat API adds around each message (role and separators): OpenAI documents 3 plus the role. */
const MESSAGE_OVERHEAD = 4;
/** What wraps each tool call besides its name and arguments (an estimate: providers do not document it). */
const TOOL_CALL_OVERHEAD = 3;
/** An image, priced as OpenAI prices a 1024×1024 image in high detail (low detail: 85). */
const IMAGE_TOKENS = 765;

function contentTokens(content: BaseMessage["content"]): number {
  if (typeof content === "string") return estimateTextTokens(content);
  let tokens = 0;
  for (const block of content as unknown[]) {
    if (typeof block === "string") tokens += estimateTextTokens(block);
    else if (block !== null && typeof block === "object") {
      const { type, text } = block as { type?: unknown; text?: unknown };
      if (typeof text === "string" && (type === "text" || type === undefined)) tokens += estimateTextTokens(text);
      else if (type === "image_url" || type === "image") tokens += IMAGE_TOKENS;
      else tokens += estimateTextTokens(JSON.stringify(block));
    }
  }
  return tokens;
}

/**
 * The token count `ThreadMemory` gives a message when no `countTokens` is passed: an offline
 * estimate, without tokenizer tables, of what the message costs in a prompt. Its text is priced by
 * {@link estimateTextTokens}; each message adds 4 tokens (role and separators), each tool call its
 * name, its arguments as JSON and 3 more, each image 765. Within a few percent of OpenAI's
 * `o200k_base` on English prose and code; see docs/memory.md for other text.
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
