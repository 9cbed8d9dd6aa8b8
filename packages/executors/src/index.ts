export type {
  ActionEvent,
  AgentStreamEvent,
  OutputEvent,
  StepEvent,
  StopReason,
  TokenEvent,
  UsageEvent,
} from "./executor/events";
