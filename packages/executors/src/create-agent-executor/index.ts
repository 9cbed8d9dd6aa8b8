export { createAgentExecutor } from "./create-agent-executor";
export type { CreateAgentExecutorOptions, CreatedAgentExecutor, CreatedAgentExecutorInputs } from "./create-agent-executor";
export { createDefaultAgentPrompt, DEFAULT_SYSTEM } from "./default-agent-prompt";
