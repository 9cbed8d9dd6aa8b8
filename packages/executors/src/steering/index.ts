export { RunFinishedError } from "./run-finished-error";
export { sendRunMessage } from "./send-run-message";
export type { SendMessageOptions, SendMessageResult, SteeringMessage } from "./send-run-message";
