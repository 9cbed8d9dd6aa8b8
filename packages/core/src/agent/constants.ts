/**
 * The sentence every built-in agent appends to its scratchpad on the `"generate"` early-stopping
 * call (`forceFinalAnswer: true`).
 */
export const FORCE_FINAL_ANSWER_INSTRUCTION =
  "I now need to return a final answer based on the previous steps:";

/** The output of a run stopped by the `"force"` early-stopping method. */
export const EARLY_STOP_OUTPUT = "Agent stopped due to iteration limit or time limit.";

/** The tool name of a step recorded for a handled output-parsing error. */
export const EXCEPTION_TOOL_NAME = "_Exception";

/**
 * The observation for an action that names no known tool.
 *
 * @example
 * ```ts
 * import { invalidToolObservation } from "@agentrx/core";
 *
 * invalidToolObservation("serch", ["search", "calc"]);
 * // "serch is not a valid tool, try one of [search, calc]."
 * ```
 */
export function invalidToolObservation(name: string, toolNames: readonly string[]): string {
  return `${name} is not a valid tool, try one of [${toolNames.join(", ")}].`;
}
