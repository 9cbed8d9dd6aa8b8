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
