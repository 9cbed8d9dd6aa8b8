import type { AgentStep, Observation } from "./types";

/** The tool name of a step that carries a message sent to a running run (see docs/steering.md). */
export const MESSAGE_TOOL_NAME = "_Message";

/**
 * A message that joined a run between two turns (`executor.send`), as a step of the run: its
 * action names {@link MESSAGE_TOOL_NAME}, its observation is the message's content, and
 * `inboxSeq` (when the message came through a store) is its position in the run's inbox.
 * Scratchpad formatters show it to the model as a new human message.
 *
 * @example
 * ```ts
 * import { isMessageStep, messageStep } from "@agentrx/core";
 *
 * const step = messageStep("Also check Rome.");
 * console.log(isMessageStep(step), step.observation); // true "Also check Rome."
 * ```
 */
export function messageStep(content: Observation, inboxSeq?: number): AgentStep {
  const text = typeof content === "string" ? content : content.map((block) => (block.type === "text" ? String((block as { text?: unknown }).text ?? "") : "")).join("");
  const action = { tool: MESSAGE_TOOL_NAME, toolInput: text, log: "", ...(inboxSeq === undefined ? {} : { inboxSeq }) };
  return { action, observation: content };
}

/**
 * Whether `step` is a message sent to the run (see {@link messageStep}), not a tool call.
 *
 * @example
 * ```ts
 * import { isMessageStep } from "@agentrx/core";
 *
 * console.log(isMessageStep({ action: { tool: "search", toolInput: "x", log: "" }, observation: "y" })); // false
 * ```
 */
export function isMessageStep(step: AgentStep): boolean {
  return step.action.tool === MESSAGE_TOOL_NAME;
}
