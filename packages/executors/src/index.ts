export type {
  ActionEvent,
  AgentStreamEvent,
  OutputEvent,
  StepEvent,
  StopReason,
  TokenEvent,
  UsageEvent,
} from "./executor/events";
export type { StopCondition } from "./executor/stop-condition";
export * from "./operators/index";
export { AgentExecutor, AgentExecutorRunnable, InvalidAgentOutputError } from "./executor/index";
export type { AgentExecutorCallConfig, AgentExecutorOptions, AgentExecutorResult } from "./executor/index";
export * from "./runs/index";
