export type {
  ActionEvent,
  AgentStreamEvent,
  CompactionEvent,
  Decision,
  Interrupt,
  InterruptEvent,
  MiddlewareEvent,
  OutputEvent,
  RunMessageEvent,
  StartEvent,
  StepEvent,
  StepsCompaction,
  StopReason,
  TokenEvent,
  UsageEvent,
} from "./executor/events";
export type { StopCondition } from "./executor/stop-condition";
export * from "./create-agent-executor/index";
export * from "./operators/index";
export * from "./trimming/index";
export * from "./middleware/index";
export {
  AgentExecutor,
  AgentExecutorRunnable,
  CallTimeoutError,
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
export type { TelemetryOptions, TelemetryTracer } from "./telemetry/index";
export { formatTraceparent, parseTraceparent } from "./telemetry/traceparent";
export type { TraceParent } from "./telemetry/traceparent";
export { addCost, addUsage, formatUsd, priceUsage } from "./cost/cost";
export type { Cost, ModelPrice, PriceFunction, PriceTable, Prices, RunUsage } from "./cost/cost";
export * from "./runs/index";
export { runPauses } from "./runs/run-pauses";
export type { RunPauses } from "./runs/run-pauses";
export * from "./display/index";
export { runDisplaySource } from "./executor/run-observable";
export type { RunDisplaySource } from "./executor/run-observable";
export * from "./steering/index";
export * from "./handoff/index";
