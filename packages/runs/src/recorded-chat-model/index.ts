export { RecordedChatModel } from "./recorded-chat-model";
export type { RecordedChatModelCallOptions, RecordedChatModelOptions } from "./recorded-chat-model";
export { ReplayDivergenceError } from "./replay-divergence-error";
export type { ModelCallInput, ReplayDivergenceReason } from "./replay-divergence-error";
export type { MessageDifference } from "./replay-divergence-error";
