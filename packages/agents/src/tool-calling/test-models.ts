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
