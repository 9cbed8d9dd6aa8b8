export type {
  ActionEvent,
  AgentStreamEvent,
  Decision,
  Interrupt,
  InterruptEvent,
  OutputEvent,
  StartEvent,
  StepEvent,
  StopReason,
  TokenEvent,
  UsageEvent,
} from "./executor/events";
export type { StopCondition } from "./executor/stop-condition";
export * from "./operators/index";
export * from "./trimming/index";
export {
  AgentExecutor,
  AgentExecutorRunnable,
  FINAL_ANSWER_TOOL,
  InvalidAgentOutputError,
  OutputValidationError,
  RunObservable,
  finalAnswerTool,
} from "./executor/index";
export type {
  AgentExecutorCallConfig,
  AgentExecutorOptions,
  AgentExecutorResult,
  AsToolOptions,
  ConversationMemory,
  ExecutorMemoryOptions,
  ResumeOptions,
} from "./executor/index";
export { RUN_STATE_SCHEMA_VERSION } from "./executor/run-state";
export type { PendingInterrupt, RunPhase, RunState, RunTurn } from "./executor/run-state";
export * from "./runs/index";
export * from "./notebook/index";
export { renderTracePage } from "./trace-page/render-trace-page";
export type { RenderTracePageOptions } from "./trace-page/render-trace-page";
