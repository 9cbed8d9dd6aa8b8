export { createAgentExecutor } from "./create-agent-executor";
export type { CreateAgentExecutorOptions } from "./create-agent-executor";
export { createDefaultAgentPrompt, DEFAULT_SYSTEM } from "./default-agent-prompt";
