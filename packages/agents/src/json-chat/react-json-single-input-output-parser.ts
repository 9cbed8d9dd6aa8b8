import type { AgentAction, AgentFinish } from "@agentrx/core";
import { AgentOutputParser, fixableParserError } from "../shared/agent-output-parser";
import { assertStringArray } from "../shared/validate-option-values";
import { isActionBlob, readJsonBlob, readLineBlob } from "../shared/read-json-blob";
import { FINAL_ANSWER_ACTION } from "../react/react-single-input-output-parser";
import { blobOutput, JSON_FINAL_ANSWER_ACTION } from "./json-agent-output-parser";

const FORMAT =
  'Either reply with one JSON blob {"action": <tool name>, "action_input": <input>} in a ```json fenced code block, ' +
  'or give the answer as "Final Answer: <answer>" (or the blob {"action": "Final Answer", "action_input": <answer>}).';

/** Options of {@link ReActJsonSingleInputOutputParser}. */
export interface ReActJsonSingleInputOutputParserOptions {
  /** The tool names, used by the format instructions: an array of non-empty strings. @default [] */
  toolNames?: string[];
}

/**
 * Parses ReAct-style output whose action is a JSON blob, the parser of the JSON chat agent:
 *
 * - a JSON blob `{"action": ..., "action_input": ...}` (in a fenced block tagged `json`, or
 *   untagged and holding `{`, or bare; blocks tagged with another language are skipped) is a tool
 *   call, its input `action_input` (`{}` when absent);
 * - `"Final Answer: ..."` in plain text is the finish, its output the text after the last
 *   `Final Answer:`; so is a blob whose action is `"Final Answer"`.
 *
 * Text with both a tool call and `Final Answer:` outside the blob is ambiguous (`Final Answer:`
 * inside the blob's `action_input` is part of the input), and text with neither is malformed:
 * both raise an `OutputParserException` with `sendToLLM` set that tells the model the format.
 *
 * @example
 * ```ts
 * import { ReActJsonSingleInputOutputParser } from "@agentrx/agents";
 *
 * const parser = new ReActJsonSingleInputOutputParser();
 * console.log(await parser.parse('Thought: I should look.\n```json\n{"action": "search", "action_input": "weather in SF"}\n```'));
 * // { tool: "search", toolInput: "weather in SF", log: "..." }
 * console.log(await parser.parse("Thought: I know.\nFinal Answer: 100 degrees")); // { returnValues: { output: "100 degrees" }, log: "..." }
 * ```
 */
export class ReActJsonSingleInputOutputParser extends AgentOutputParser<AgentAction | AgentFinish> {
  readonly toolNames: string[];

  static override lc_name(): string {
    return "ReActJsonSingleInputOutputParser";
  }

  constructor({ toolNames = [] }: ReActJsonSingleInputOutputParserOptions = {}) {
    super();
    assertStringArray(new.target.lc_name(), "toolNames", toolNames);
    this.toolNames = [...toolNames];
  }

  override getFormatInstructions(): string {
    const names = this.toolNames.length > 0 ? ` "action" must be one of ${this.toolNames.map((name) => JSON.stringify(name)).join(", ")}.` : "";
    return `${FORMAT}${names}`;
  }

  protected parseText(text: string): AgentAction | AgentFinish {
    const includesAnswer = text.includes(FINAL_ANSWER_ACTION);
    const fenced = readJsonBlob(text);
    // A blob written without a fence after a thought (`Action:\n{"action": ...}`) counts as one.
    const read = fenced.kind === "none" ? (readLineBlob(text) ?? fenced) : fenced;
    if (read.kind === "json" && isActionBlob(read.value)) {
      // "Final Answer:" inside the blob (in its action_input) is the tool's input, not an answer.
      const answerOutside = text.slice(0, read.start).includes(FINAL_ANSWER_ACTION) || text.slice(read.end).includes(FINAL_ANSWER_ACTION);
      if (answerOutside && read.value.action !== JSON_FINAL_ANSWER_ACTION) {
        throw fixableParserError(
          `Could not parse LLM output (it has both a final answer and a tool call to "${read.value.action}"): ${text}`,
          text,
          `Invalid Format: give either a tool call or a final answer, not both. ${FORMAT}`,
        );
      }
      return blobOutput(read.value, text);
    }
    if (includesAnswer) {
      const at = text.lastIndexOf(FINAL_ANSWER_ACTION);
      const output = text.slice(at + FINAL_ANSWER_ACTION.length).trim();
      // Nothing after the marker (a reply cut at its token limit, say) is no answer to give the user.
      if (output === "") {
        throw fixableParserError(`Could not parse LLM output (the final answer is empty): ${text}`, text, `Invalid Format: the final answer is empty. Write the answer after "${FINAL_ANSWER_ACTION}". ${FORMAT}`);
      }
      return { returnValues: { output }, log: text };
    }
    const problem =
      read.kind === "unclosed"
        ? "the code fence is not closed"
        : read.kind === "invalid"
          ? `the JSON blob is not valid JSON (${read.error})`
          : read.kind === "json"
            ? 'the JSON blob has no string "action"'
            : 'there is neither a JSON blob nor "Final Answer:"';
    throw fixableParserError(`Could not parse LLM output (${problem}): ${text}`, text, `Invalid Format: ${problem}. ${FORMAT}`);
  }
}
