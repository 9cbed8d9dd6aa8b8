import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import type { BaseMessage, MessageContentComplex } from "@langchain/core/messages";

export type { AgentAction, AgentFinish };

/**
 * What a tool call gave back: text, or message content (text and image blocks) when the tool
 * returned images, such as a chart or a screenshot. Text agents read it with `observationText`.
 *
 * @example
 * ```ts
 * import type { Observation } from "@agentrx/core";
 *
 * const text: Observation = "Sunny";
 * const chart: Observation = [
 *   { type: "text", text: "Sales by month:" },
 *   { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
 * ];
 * ```
 */
export type Observation = string | MessageContentComplex[];

/**
 * An action and what its tool gave back (`@langchain/core`'s `AgentStep`, whose observation may
 * also be message content with images).
 *
 * @example
 * ```ts
 * import type { AgentStep } from "@agentrx/core";
 *
 * const step: AgentStep = { action: { tool: "weather", toolInput: { city: "Paris" }, log: "" }, observation: "Sunny" };
 * ```
 */
export interface AgentStep {
  action: AgentAction;
  observation: Observation;
}

/**
 * An {@link AgentAction} produced from a model's native tool call. It carries the id of the
 * tool call (so the tool result can be matched to it) and the messages that led to it.
 *
 * @example
 * ```ts
 * import type { ToolAgentAction } from "@agentrx/core";
 *
 * const action: ToolAgentAction = {
 *   tool: "search",
 *   toolInput: { query: "weather in Paris" },
 *   log: "Invoking \"search\" with {\"query\":\"weather in Paris\"}",
 *   toolCallId: "call_1",
 *   messageLog: [],
 * };
 * ```
 */
export interface ToolAgentAction extends AgentAction {
  /** The id the model gave this tool call; tool results are sent back under it. */
  toolCallId: string;
  /** The model messages that produced this action (usually one `AIMessage`). */
  messageLog: BaseMessage[];
}

/**
 * What an agent returns from one call: one action, several actions to run in parallel, or the
 * final answer.
 */
export type AgentOutput = AgentAction | AgentAction[] | AgentFinish;

/**
 * The input the executor passes to an agent on every call: the user's inputs plus the steps taken
 * so far (already trimmed by `trimIntermediateSteps`).
 *
 * @example
 * ```ts
 * import type { AgentInput } from "@agentrx/core";
 *
 * const input: AgentInput = { input: "What is 2 + 2?", steps: [] };
 * ```
 */
export type AgentInput<Inputs extends Record<string, unknown> = Record<string, unknown>> = Inputs & {
  /** Steps taken so far, oldest first. */
  steps: AgentStep[];
  /**
   * Set on the one extra call made by the `"generate"` early-stopping method. An agent that
   * honours it calls its model without tools and must answer now.
   */
  forceFinalAnswer?: boolean;
};

/** Returns true when `value` is an {@link AgentFinish}. */
export function isAgentFinish(value: unknown): value is AgentFinish {
  return (
    typeof value === "object" &&
    value !== null &&
    "returnValues" in value &&
    typeof (value as { returnValues: unknown }).returnValues === "object"
  );
}

/** Returns true when `value` is a single {@link AgentAction}. */
export function isAgentAction(value: unknown): value is AgentAction {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { tool?: unknown }).tool === "string" &&
    "toolInput" in value
  );
}

/** Returns true when `value` is a {@link ToolAgentAction} (an action with a tool-call id). */
export function isToolAgentAction(value: unknown): value is ToolAgentAction {
  return isAgentAction(value) && typeof (value as { toolCallId?: unknown }).toolCallId === "string";
}
