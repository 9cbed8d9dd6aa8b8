/** An output item of OpenAI's Responses API, as `@langchain/openai` keeps it in `response_metadata.output`. */
interface OutputItem {
  type?: unknown;
  call_id?: unknown;
  id?: unknown;
}

/**
 * An AI message's `response_metadata` without the `function_call` items of its `output` whose
 * call id `kept` refuses. `@langchain/openai` keeps the Responses API's output items there and
 * sends them back as they are, so a call whose result is not sent with it (a call trimmed away,
 * or a message kept only for its text) would make the next request fail: OpenAI refuses a
 * function call without its output.
 *
 * It is meant for a message that loses calls: a reasoning item must come back followed by the
 * very items it led to, so when the output has one, every reasoning item goes, and the items left
 * lose their ids (sent as new items, they need no reasoning). Metadata without an `output` array comes back as it is; nothing is changed
 * in place.
 *
 * @param metadata - The message's `response_metadata`.
 * @param kept - Whether the call with this `call_id` stays (its result is sent with it).
 * @returns The metadata with only the kept calls in its `output`.
 *
 * @example
 * ```ts
 * import { withoutUnansweredOutput } from "@agentrx/core";
 *
 * const metadata = {
 *   output: [
 *     { type: "message", id: "msg_1", content: [{ type: "output_text", text: "Let me check." }] },
 *     { type: "function_call", id: "fc_1", call_id: "call_1", name: "weather", arguments: "{}" },
 *   ],
 * };
 * // Keep no call: only the message item is sent back.
 * console.log(withoutUnansweredOutput(metadata, () => false).output); // [{ type: "message", id: "msg_1", ... }]
 * ```
 */
export function withoutUnansweredOutput(metadata: Record<string, unknown>, kept: (callId: unknown) => boolean): Record<string, unknown> {
  const output = (metadata as Record<string, unknown> | null | undefined)?.["output"];
  if (!Array.isArray(output)) return metadata;
  const items = output as (OutputItem | null | undefined)[];
  const answered = items.filter((item) => item?.type !== "function_call" || kept(item.call_id));
  if (!items.some((item) => item?.type === "reasoning")) return { ...metadata, output: answered };
  return {
    ...metadata,
    output: answered.filter((item) => item?.type !== "reasoning").map((item) => (item !== null && typeof item === "object" ? withoutId(item) : item)),
  };
}

function withoutId({ id: _id, ...item }: OutputItem): OutputItem {
  return item;
}
