export { handoff } from "./handoff";
export type { HandoffConversation, HandoffOptions } from "./handoff";
