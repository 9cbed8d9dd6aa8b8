import type { BaseMessage } from "@langchain/core/messages";
import { encodeMessages } from "./json-value";

/**
 * A short digest of a conversation (FNV-1a, 64 bits, over the messages' stored JSON form): what a
 * recorded model call keeps of its input, so `RecordedChatModel` can tell when a conversation
 * differs from the recording without storing it again for every call.
 */
export function digestMessages(messages: readonly BaseMessage[]): string {
  const text = JSON.stringify(encodeMessages(messages));
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}
