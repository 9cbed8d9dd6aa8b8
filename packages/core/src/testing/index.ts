export { ScriptedChatModel } from "./scripted-chat-model";
export type {
  ScriptedCall,
  ScriptedChatModelCallOptions,
  ScriptedChatModelOptions,
  ScriptedMessage,
  ScriptedResponse,
  ScriptedToolCall,
} from "./scripted-chat-model";
export { ScriptExhaustedError } from "./script-exhausted-error";
export { startOpenAICompatibleServer } from "./openai-compatible-server/index";
export type {
  LoopbackCompletion,
  LoopbackHttpError,
  LoopbackRawReply,
  LoopbackReply,
  LoopbackRequest,
  LoopbackToolCall,
  OpenAICompatibleServer,
  OpenAICompatibleServerOptions,
} from "./openai-compatible-server/index";
export { deferred, latch } from "./deferred";
export type { Deferred, Latch } from "./deferred";
