import type { AgentAction, AgentFinish } from "@agentrx/core";
import { AgentOutputParser, fixableParserError } from "../shared/agent-output-parser";
import { assertOneOf } from "../shared/validate-option-values";
import { countOccurrences } from "../shared/scan";
import { unescapeXmlTags } from "./xml-escape";

const FORMAT_FIX =
  "Reply with <tool>tool name</tool><tool_input>its input</tool_input> to use a tool, " +
  "or <final_answer>the answer</final_answer> to finish.";

const ESCAPE_FORMATS = ["minimal", "none"] as const;

/** Options of {@link XMLAgentOutputParser}. */
export interface XMLAgentOutputParserOptions {
  /**
   * Whether to reverse the `"minimal"` escaping of {@link formatXml} (`[[tool]]` back to `<tool>`);
   * `"none"` reads the text as it is. Any other value throws an `InvalidArgumentError`.
   * @default "minimal"
   */
  escapeFormat?: "minimal" | "none";
}

/**
 * Parses the output of an XML agent. `<tool>name</tool>` (exactly one) with an optional
 * `<tool_input>input</tool_input>` is an action; `<final_answer>answer</final_answer>` (exactly
 * one) is the finish. Because the model stops at `</tool_input>` and `</final_answer>`, an
 * input or answer that runs to the end of the text without its closing tag is accepted. A
 * `<tool>` block wins over a `<final_answer>`, but a `<tool>` never closed by `</tool>` next to a
 * `<final_answer>` is text that mentions the tag, and the answer is read. Names, inputs and
 * answers are trimmed. Several `<tool>` or `<final_answer>` blocks, a `<tool>` without
 * `</tool>`, or neither form raise an `OutputParserException` that tells the model the format.
 *
 * @example
 * ```ts
 * import { XMLAgentOutputParser } from "@agentrx/agents";
 *
 * const parser = new XMLAgentOutputParser();
 * console.log(await parser.parse("<tool>search</tool><tool_input>Paris weather"));
 * // { tool: "search", toolInput: "Paris weather", log: "<tool>search</tool><tool_input>Paris weather" }
 * ```
 */
export class XMLAgentOutputParser extends AgentOutputParser<AgentAction | AgentFinish> {
  private readonly unescape: (text: string) => string;

  static override lc_name(): string {
    return "XMLAgentOutputParser";
  }

  constructor({ escapeFormat = "minimal" }: XMLAgentOutputParserOptions = {}) {
    super();
    assertOneOf(new.target.lc_name(), "escapeFormat", escapeFormat, ESCAPE_FORMATS);
    this.unescape = escapeFormat === "minimal" ? unescapeXmlTags : (text) => text;
  }

  override getFormatInstructions(): string {
    return FORMAT_FIX;
  }

  protected parseText(text: string): AgentAction | AgentFinish {
    const toolAt = text.indexOf("<tool>");
    const answerAt = text.indexOf("<final_answer>");
    // A `<tool>` never closed by `</tool>` is a call only when there is no answer: in an answer
    // (or a thought before one) it is text that mentions the tag, as LangChain Python reads it.
    const toolCall = toolAt !== -1 && (answerAt === -1 || text.indexOf("</tool>", toolAt) !== -1);
    if (toolCall) {
      const tools = countOccurrences(text, "<tool>");
      if (tools > 1) throw malformed(text, `expected exactly one <tool> block, found ${tools}`);
      const start = text.indexOf("<tool>") + "<tool>".length;
      const end = text.indexOf("</tool>", start);
      if (end === -1) throw malformed(text, "the <tool> tag is not closed with </tool>");
      const tool = this.unescape(text.slice(start, end)).trim();
      if (!tool) throw malformed(text, "the <tool> block is empty");
      const inputs = countOccurrences(text, "<tool_input>");
      if (inputs > 1) throw malformed(text, `expected at most one <tool_input> block, found ${inputs}`);
      const toolInput = inputs === 1 ? this.unescape(blockContent(text, "tool_input")).trim() : "";
      return { tool, toolInput, log: text };
    }
    const answers = countOccurrences(text, "<final_answer>");
    if (answers > 1) throw malformed(text, `expected exactly one <final_answer> block, found ${answers}`);
    if (answers === 1) {
      const output = this.unescape(blockContent(text, "final_answer")).trim();
      // An empty block (a reply cut at its token limit, say) is no answer to give the user.
      if (output === "") throw malformed(text, "the <final_answer> block is empty; write the answer inside it");
      return { returnValues: { output }, log: text };
    }
    throw malformed(text, "found neither a <tool> block nor a <final_answer> block");
  }
}

/** The content of `<tag>`, up to `</tag>` or the end of the text (the model stopped there). */
function blockContent(text: string, tag: string): string {
  const start = text.indexOf(`<${tag}>`) + tag.length + 2;
  const end = text.indexOf(`</${tag}>`, start);
  return text.slice(start, end === -1 ? text.length : end);
}

function malformed(text: string, problem: string) {
  return fixableParserError(
    `Could not parse LLM output (${problem}): ${text}`,
    text,
    `Invalid Format: ${problem}. ${FORMAT_FIX}`,
  );
}
