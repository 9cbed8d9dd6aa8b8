export { startOpenAICompatibleServer } from "./start-openai-compatible-server";
export type { OpenAICompatibleRejection, OpenAICompatibleServer, OpenAICompatibleServerOptions } from "./start-openai-compatible-server";
export type {
  LoopbackCompletion,
  LoopbackHttpError,
  LoopbackRawReply,
  LoopbackReply,
  LoopbackRequest,
  LoopbackToolCall,
} from "./server-reply";
