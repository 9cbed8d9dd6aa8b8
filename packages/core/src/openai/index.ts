export { OpenAIChatModel } from "./openai-chat-model";
export type { OpenAIChatModelCallOptions } from "./openai-chat-model";
export type { OpenAIChatModelOptions } from "./openai-chat-model-options";
export {
  OpenAIAuthenticationError,
  OpenAIBadRequestError,
  OpenAIChatModelError,
  OpenAIConnectionError,
  OpenAIRateLimitError,
  OpenAIResponseError,
  OpenAIServerError,
  OpenAITimeoutError,
} from "./openai-chat-model-error";
export type { OpenAIChatModelErrorOptions } from "./openai-chat-model-error";
