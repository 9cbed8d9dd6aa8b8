import { isMessageStep, type AgentStep } from "@agentrx/core";
import { observationText } from "../shared/observation-text";

/** Options of {@link formatLogToString}. */
export interface FormatLogToStringOptions {
  /** The text before each observation. @default "Observation: " */
  observationPrefix?: string;
  /** The text that prompts the model's next thought. @default "Thought: " */
  llmPrefix?: string;
}

/**
 * Formats the steps of a text agent as one string for its `agent_scratchpad`: each action's log
 * (the model's own text), then `\n<observationPrefix><observation>\n<llmPrefix>`.
 *
 * @example
 * ```ts
 * import { formatLogToString } from "@agentrx/agents";
 *
 * const text = formatLogToString([
 *   { action: { tool: "search", toolInput: "Paris", log: "Thought: look it up\nAction: search\nAction Input: Paris" }, observation: "Sunny" },
 * ]);
 * console.log(text); // "...Action Input: Paris\nObservation: Sunny\nThought: "
 * ```
 */
export function formatLogToString(
  steps: readonly AgentStep[],
  { observationPrefix = "Observation: ", llmPrefix = "Thought: " }: FormatLogToStringOptions = {},
): string {
  let text = "";
  for (const step of steps) {
    const { action, observation } = step;
    if (isMessageStep(step)) {
      // A message sent to the run between turns (executor.send): said as the user's, then the next thought.
      text += `\nNew message from the user: ${observationText(observation)}\n${llmPrefix}`;
      continue;
    }
    text += `${action.log}\n${observationPrefix}${observationText(observation)}\n${llmPrefix}`;
  }
  return text;
}
