export type {
  ActionEvent,
  AgentStreamEvent,
  Decision,
  Interrupt,
  InterruptEvent,
  OutputEvent,
  RunMessageEvent,
  StartEvent,
  StepEvent,
  StopReason,
  TokenEvent,
  UsageEvent,
} from "./executor/events";
export type { StopCondition } from "./executor/stop-condition";
export * from "./create-agent-executor/index";
export * from "./operators/index";
export * from "./trimming/index";
export {
  AgentExecutor,
  AgentExecutorRunnable,
  FINAL_ANSWER_TOOL,
  InDoubtToolCallError,
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
  ForkOptions,
  ResumeOptions,
} from "./executor/index";
export { RUN_STATE_SCHEMA_VERSION, initialRunState } from "./executor/run-state";
export type { PendingInterrupt, RunPhase, RunState, RunTransition, RunTurn } from "./executor/run-state";
export { RunEventOrderError, reduceRun } from "./executor/reduce-run";
export type { RunEvent } from "./executor/reduce-run";
export type { TelemetryOptions } from "./telemetry/index";
export * from "./runs/index";
export * from "./steering/index";
export * from "./handoff/index";
export * from "./notebook/index";
export { renderTracePage } from "./trace-page/render-trace-page";
export type { RenderTracePageOptions } from "./trace-page/render-trace-page";
