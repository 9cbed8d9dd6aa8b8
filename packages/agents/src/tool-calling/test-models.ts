// Test-only: chat models that report themselves as a provider's, for choosing where a tool's
// images and files go (see tool-images.ts).
import { ScriptedChatModel } from "@agentrx/core/testing";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";

/** A model that reports itself as `type` (what `_llmType()` says), optionally on the Responses API. */
export function modelOf(type: string, responses?: boolean): BaseChatModel {
  const model = new ScriptedChatModel({ responses: [] }) as BaseChatModel & { _useResponsesApi?: () => boolean };
  model._llmType = () => type;
  if (responses !== undefined) model._useResponsesApi = () => responses;
  return model;
}

/**
 * A model that replays a recording, as `RecordedChatModel` of `@agentrx/runs` does: its
 * `nextRecordedReply()` resolves with `reply` (or rejects with it, when it is an `Error`), and
 * `reads` counts its calls.
 */
export function replayingModelOf(reply: unknown): BaseChatModel & { nextRecordedReply(): Promise<unknown>; reads: number } {
  const model = new ScriptedChatModel({ responses: [] }) as unknown as BaseChatModel & { nextRecordedReply(): Promise<unknown>; reads: number };
  model.reads = 0;
  model.nextRecordedReply = async () => {
    model.reads++;
    if (reply instanceof Error) throw reply;
    return reply;
  };
  return model;
}
