// Builders of hand-made stream events for the operators' tests (not exported by the package).
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type {
  ActionEvent,
  OutputEvent,
  StepEvent,
  StopReason,
  TokenEvent,
  UsageEvent,
} from "../executor/events";

export function actionEvent(iteration: number, tool: string, toolInput: unknown = {}): ActionEvent {
  const action = { tool, toolInput: toolInput as Record<string, unknown>, log: "" };
  return { type: "action", iteration, action, messages: [new AIMessage("")], at: 0 };
}

export function stepEvent(
  iteration: number,
  tool: string,
  observation: string,
  durationMs = 5,
  toolInput: unknown = {},
): StepEvent {
  const action = { tool, toolInput: toolInput as Record<string, unknown>, log: "" };
  return {
    type: "step",
    iteration,
    step: { action, observation },
    messages: [new ToolMessage({ content: observation, tool_call_id: "call" })],
    durationMs,
    at: 0,
  };
}

export function tokenEvent(iteration: number, text: string): TokenEvent {
  return { type: "token", iteration, text, at: 0 };
}

export function usageEvent(iteration: number, input: number, output: number, total = input + output): UsageEvent {
  return {
    type: "usage",
    iteration,
    usage: { input_tokens: input, output_tokens: output, total_tokens: total },
    at: 0,
  };
}

export function outputEvent(output: string, stopReason: StopReason = "finish"): OutputEvent {
  return { type: "output", runId: "run", at: 0, output, returnValues: { output }, messages: [new AIMessage(output)], stopReason };
}
