export { startAnthropicMessagesServer } from "./start-anthropic-messages-server";
export type {
  AnthropicLoopbackReply,
  AnthropicMessagesServer,
  AnthropicMessagesServerOptions,
  AnthropicRejectedRequest,
} from "./start-anthropic-messages-server";
export type { AnthropicLoopbackError, AnthropicLoopbackToolCall, AnthropicLoopbackTurn, AnthropicUsage } from "./anthropic-reply";
