export { ThreadMemory } from "./thread-memory";
export type { AddThreadMessagesOptions, ThreadMemoryOptions } from "./thread-memory";
export { estimateMessageTokens } from "./estimate-message-tokens";
export { estimateTextTokens } from "./estimate-tokens";
