import { type BaseMessage, convertToOpenAIImageBlock, isBase64ContentBlock, isURLContentBlock } from "@langchain/core/messages";

/**
 * `messages` as `BaseChatModel` hands them to `handleChatModelStart`, which is what the executor
 * digests when it records a model call: in a message whose content has URL or base64 data blocks,
 * the first such block becomes an OpenAI image block and the message is rebuilt from its fields
 * (as `@langchain/core` 1.x formats messages for tracing). Returns `messages` itself when no
 * message changes.
 *
 * @internal
 */
export function asTracedMessages(messages: BaseMessage[]): BaseMessage[] {
  let changed = false;
  const traced = messages.map((message) => {
    const content = message.content;
    if (!Array.isArray(content)) return message;
    const index = content.findIndex(isDataBlock);
    if (index === -1) return message;
    changed = true;
    const Kind = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
    const block = content[index] as Parameters<typeof convertToOpenAIImageBlock>[0];
    return new Kind({ ...message, content: [...content.slice(0, index), convertToOpenAIImageBlock(block), ...content.slice(index + 1)] });
  });
  return changed ? traced : messages;
}

function isDataBlock(block: unknown): boolean {
  return typeof block === "object" && block !== null && (isURLContentBlock(block) || isBase64ContentBlock(block));
}
