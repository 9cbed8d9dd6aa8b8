import { EXCEPTION_TOOL_NAME, isMessageStep, type AgentStep } from "@agentrx/core";
import { observationText, toolInputText } from "../shared/observation-text";
import { escapeXmlTags } from "./xml-escape";
import { assertOneOf } from "../shared/validate-option-values";

/** Options of {@link formatXml}. */
export interface FormatXmlOptions {
  /**
   * `"minimal"` escapes the agent's own tags inside the tool name, input and observation
   * (`<tool>` as `[[tool]]`, ...), which {@link XMLAgentOutputParser} reverses; `"none"` writes
   * them as they are. Any other value throws an `InvalidArgumentError`.
   * @default "minimal"
   */
  escapeFormat?: "minimal" | "none";
}

/**
 * Formats the steps of an XML agent as its `agent_scratchpad`:
 * `<tool>name</tool><tool_input>input</tool_input><observation>result</observation>` per step.
 * Object inputs are written as JSON. A message sent to the run while it works (a message step, see
 * `executor.send`) is the user's: `<user_message>text</user_message>`. A reply the parser could not
 * read (an `_Exception` step, with `handleParsingErrors`) is written with the model's own text as
 * its input and the fix, unescaped, as its observation.
 *
 * @example
 * ```ts
 * import { formatXml } from "@agentrx/agents";
 *
 * const text = formatXml([{ action: { tool: "search", toolInput: "Paris", log: "" }, observation: "Sunny" }]);
 * console.log(text); // "<tool>search</tool><tool_input>Paris</tool_input><observation>Sunny</observation>"
 * ```
 */
export function formatXml(steps: readonly AgentStep[], { escapeFormat = "minimal" }: FormatXmlOptions = {}): string {
  assertOneOf("formatXml", "escapeFormat", escapeFormat, ["minimal", "none"]);
  const escape = escapeFormat === "minimal" ? escapeXmlTags : (text: string) => text;
  let text = "";
  for (const step of steps) {
    const { action, observation } = step;
    if (isMessageStep(step)) {
      text += `<user_message>${escape(observationText(observation))}</user_message>`;
      continue;
    }
    if (action.tool === EXCEPTION_TOOL_NAME) {
      // A reply the parser could not read: the model's own text, then how to fix it. The fix is the
      // executor's (or `handleParsingErrors`') text, not a tool's, and names the agent's real tags:
      // escaped, it would tell the model to write `[[tool]]`, which the parser does not read.
      text += `<tool>${EXCEPTION_TOOL_NAME}</tool><tool_input>${escape(action.log)}</tool_input><observation>${observationText(observation)}</observation>`;
      continue;
    }
    text +=
      `<tool>${escape(action.tool)}</tool>` +
      `<tool_input>${escape(toolInputText(action.toolInput))}</tool_input>` +
      `<observation>${escape(observationText(observation))}</observation>`;
  }
  return text;
}
