// The browser build of `@agentrx/core/testing` (its `browser` export condition): everything of
// ./index.ts except `startOpenAICompatibleServer`, a Node HTTP server. Leaving it out, rather than
// exporting a stub that throws, lets a bundler name the missing export when a browser build
// imports it.
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
export { deferred, latch } from "./deferred";
export type { Deferred, Latch } from "./deferred";
