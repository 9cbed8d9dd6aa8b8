import type { BaseMessage } from "@langchain/core/messages";
import { encodeValue } from "./json-value";

/**
 * A short digest of a conversation: two 32-bit FNV-1a-style hashes over each message's type, name,
 * content, tool calls and tool-call id. It is what a recorded model call keeps of its input, so
 * `RecordedChatModel` can tell when a conversation differs from the recording without storing the
 * conversation again for every call. Cheap: it walks the messages once and builds no copies.
 *
 * @example
 * ```ts
 * import { digestMessages } from "@agentrx/executors";
 * import { HumanMessage } from "@langchain/core/messages";
 *
 * digestMessages([new HumanMessage("hi")]) === digestMessages([new HumanMessage("hi")]); // true
 * ```
 */
export function digestMessages(messages: readonly BaseMessage[]): string {
  const hash = new Fnv();
  for (const message of messages) {
    hash.add(message.getType());
    hash.add(message.name ?? "");
    const content = message.content;
    hash.add(typeof content === "string" ? content : jsonText(content));
    const calls = (message as { tool_calls?: { name: string; args: unknown; id?: string }[] }).tool_calls;
    if (calls) for (const call of calls) hash.add(`${call.id ?? ""}\u0001${call.name}\u0001${jsonText(call.args)}`);
    const callId = (message as { tool_call_id?: string }).tool_call_id;
    if (callId !== undefined) hash.add(callId);
    hash.add("\u0002");
  }
  return hash.digest();
}

/**
 * `JSON.stringify(value)`; for a value nested too deeply for it (tool-call arguments a model wrote
 * thousands of levels deep), the JSON of its recorded form (see `MAX_RECORDED_DEPTH`), so
 * digesting never fails a run.
 */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return JSON.stringify(encodeValue(value, "value"));
  }
}

class Fnv {
  private h1 = 0x811c9dc5;
  private h2 = 0x01000193;

  add(text: string): void {
    let { h1, h2 } = this;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    }
    // A separator, so ("ab", "c") and ("a", "bc") differ.
    this.h1 = Math.imul(h1 ^ 0xff, 0x01000193);
    this.h2 = Math.imul(h2 ^ 0xff, 0x5bd1e995);
  }

  digest(): string {
    return (this.h1 >>> 0).toString(16).padStart(8, "0") + (this.h2 >>> 0).toString(16).padStart(8, "0");
  }
}

/**
 * A 64-bit FNV-1a-style hash of a text, as 16 hex digits: the key of a recorded prompt's
 * content-addressed parts. @internal
 */
export function hashText(text: string): string {
  const hash = new Fnv();
  hash.add(text);
  return hash.digest();
}
