export { startOpenAICompatibleServer } from "./start-openai-compatible-server";
export type { OpenAICompatibleServer, OpenAICompatibleServerOptions } from "./start-openai-compatible-server";
export type {
  LoopbackCompletion,
  LoopbackHttpError,
  LoopbackReply,
  LoopbackRequest,
  LoopbackToolCall,
} from "./server-reply";
