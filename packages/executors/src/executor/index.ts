export { AgentExecutor } from "./agent-executor";
export type { AgentExecutorCallConfig, AgentExecutorOptions, AgentExecutorResult } from "./agent-executor-options";
export { AgentExecutorRunnable } from "./agent-executor-runnable";
export { InvalidAgentOutputError } from "./invalid-agent-output-error";
