// The Node build of `@agentrx/core/testing`: the browser build's exports (./index.browser.ts) and
// the loopback OpenAI-compatible server, a Node HTTP server.
export * from "./index.browser";
export { startOpenAICompatibleServer } from "./openai-compatible-server/index";
export type {
  LoopbackCompletion,
  LoopbackHttpError,
  LoopbackRawReply,
  LoopbackReply,
  LoopbackRequest,
  LoopbackToolCall,
  OpenAICompatibleRejection,
  OpenAICompatibleServer,
  OpenAICompatibleServerOptions,
} from "./openai-compatible-server/index";
export { startAnthropicMessagesServer } from "./anthropic-messages-server/index";
export type {
  AnthropicLoopbackError,
  AnthropicLoopbackReply,
  AnthropicLoopbackToolCall,
  AnthropicLoopbackTurn,
  AnthropicMessagesServer,
  AnthropicMessagesServerOptions,
  AnthropicRejectedRequest,
  AnthropicUsage,
} from "./anthropic-messages-server/index";
export { startOpenAIResponsesServer } from "./openai-responses-server/index";
export type {
  OpenAIResponsesServer,
  OpenAIResponsesServerOptions,
  ResponsesLoopbackError,
  ResponsesLoopbackReply,
  ResponsesLoopbackToolCall,
  ResponsesLoopbackTurn,
  ResponsesRejectedRequest,
} from "./openai-responses-server/index";
export { startGoogleGenAIServer } from "./google-genai-server/index";
export type {
  GeminiLoopbackError,
  GeminiLoopbackReply,
  GeminiLoopbackToolCall,
  GeminiLoopbackTurn,
  GeminiRejectedRequest,
  GeminiUsageMetadata,
  GoogleGenAIServer,
  GoogleGenAIServerOptions,
} from "./google-genai-server/index";
