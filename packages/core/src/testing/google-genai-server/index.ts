export { startGoogleGenAIServer } from "./start-google-genai-server";
export type { GeminiLoopbackReply, GeminiRejectedRequest, GoogleGenAIServer, GoogleGenAIServerOptions } from "./start-google-genai-server";
export type { GeminiLoopbackError, GeminiLoopbackToolCall, GeminiLoopbackTurn, GeminiUsageMetadata } from "./gemini-reply";
