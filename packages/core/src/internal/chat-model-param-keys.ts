import type { BaseChatModelParams } from "@langchain/core/language_models/chat_models";

/**
 * The options a `@langchain/core` chat model takes whatever its provider (`callbacks`, `tags`,
 * `metadata`, `verbose`, `cache`, `maxRetries`, `maxConcurrency`, `onFailedAttempt`, ...): the
 * chat models here pass them on to `BaseChatModel`, so their option checks accept them. Typed
 * against `BaseChatModelParams`, so a key `@langchain/core` adds fails `tsc` until it is listed.
 * @internal
 */
export const BASE_CHAT_MODEL_PARAMS = {
  callbackManager: true,
  callbacks: true,
  cache: true,
  disableStreaming: true,
  maxConcurrency: true,
  maxRetries: true,
  metadata: true,
  onFailedAttempt: true,
  outputVersion: true,
  tags: true,
  verbose: true,
} as const satisfies Record<keyof BaseChatModelParams, true>;
