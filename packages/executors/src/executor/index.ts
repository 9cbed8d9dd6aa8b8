export { AgentExecutor } from "./agent-executor";
export type { AgentExecutorCallConfig, AgentExecutorOptions, AgentExecutorResult, ResumeOptions } from "./agent-executor-options";
export { AgentExecutorRunnable } from "./agent-executor-runnable";
export { InvalidAgentOutputError } from "./invalid-agent-output-error";
export { RunObservable } from "./run-observable";
export type { AsToolOptions } from "./executor-tool";
export { FINAL_ANSWER_TOOL, finalAnswerTool } from "./structured-output";
export { OutputValidationError } from "./output-validation-error";
export type { ConversationMemory, ExecutorMemoryOptions } from "./conversation-memory";
