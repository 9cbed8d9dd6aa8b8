export { a2aTool, createA2AHandler, A2ATaskError } from "./a2a/index";
export type { A2AAgentCardInput, A2AHandler, A2AHandlerOptions, A2AToolOptions } from "./a2a/index";
