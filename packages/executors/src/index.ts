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
