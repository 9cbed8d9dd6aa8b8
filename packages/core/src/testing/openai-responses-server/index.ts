export { startOpenAIResponsesServer } from "./start-openai-responses-server";
export type {
  OpenAIResponsesServer,
  OpenAIResponsesServerOptions,
  ResponsesLoopbackError,
  ResponsesLoopbackReply,
  ResponsesRejectedRequest,
} from "./start-openai-responses-server";
export type { ResponsesLoopbackToolCall, ResponsesLoopbackTurn } from "./responses-reply";
