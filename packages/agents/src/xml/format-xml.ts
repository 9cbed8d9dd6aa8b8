import { checkOptionKeys, EXCEPTION_TOOL_NAME, InvalidArgumentError, isMessageStep, type AgentStep } from "@agentrx/core";
import { shownValue } from "../shared/describe";
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
 * A second argument that is not an options object (a string such as `"none"`, null, an array, a
 * number, a function) or an unknown option key throws an `InvalidArgumentError` naming it;
 * LangChain classic's `formatXml` takes no second argument.
 *
 * @example
 * ```ts
 * import { formatXml } from "@agentrx/agents";
 *
 * const text = formatXml([{ action: { tool: "search", toolInput: "Paris", log: "" }, observation: "Sunny" }]);
 * console.log(text); // "<tool>search</tool><tool_input>Paris</tool_input><observation>Sunny</observation>"
 * ```
 */
export function formatXml(steps: readonly AgentStep[], options: FormatXmlOptions = {}): string {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    const given: unknown = options;
    throw new InvalidArgumentError({
      argument: "options",
      value: given,
      message: `formatXml: the second argument must be an options object such as { escapeFormat: "none" }, got ${shownValue(given)}.`,
    });
  }
  checkOptionKeys("formatXml", options, ["escapeFormat"]);
  const { escapeFormat = "minimal" } = options;
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
