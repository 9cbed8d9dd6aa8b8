export { RunFinishedError } from "./run-finished-error";
export { sendRunMessage } from "./send-run-message";
export type { SendMessageOptions, SendMessageResult, SteeringMessage } from "./send-run-message";
export { SteeringInboxFullError } from "./steering-inbox-full-error";
export { ThreadBusyError } from "./thread-busy-error";
export type { FollowUp } from "./follow-up";
export { runInboxId } from "./run-inbox";
