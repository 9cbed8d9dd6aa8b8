import { AIMessageChunk } from "@langchain/core/messages";
import type { ChatGenerationChunk } from "@langchain/core/outputs";

/**
 * Concatenates a chat model's streamed chunks into one message chunk (an empty one when the
 * stream yields nothing). Used by the models whose `invoke` streams (`streaming: true`).
 */
export async function collectChunks(chunks: AsyncIterable<ChatGenerationChunk>): Promise<AIMessageChunk> {
  let aggregate: ChatGenerationChunk | undefined;
  for await (const chunk of chunks) aggregate = aggregate ? aggregate.concat(chunk) : chunk;
  return (aggregate?.message as AIMessageChunk | undefined) ?? new AIMessageChunk({ content: "" });
}
