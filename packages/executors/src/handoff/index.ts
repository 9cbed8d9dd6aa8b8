export { handoff } from "./handoff";
export type { HandoffConversation, HandoffOptions } from "./handoff";
export { SubRunInterruptedError } from "./sub-run-interrupted-error";
