export { handoff } from "./handoff";
export type { HandoffConversation, HandoffOptions } from "./handoff";
export { SubRunInterruptedError } from "./sub-run-interrupted-error";
export { HandoffFailedError } from "./handoff-failed-error";
export { SubRunDepthError } from "./sub-run-depth-error";
