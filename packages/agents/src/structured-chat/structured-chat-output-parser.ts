import { InvalidToolArgumentsException, type AgentAction, type AgentFinish } from "@agentrx/core";
import { AgentOutputParser, fixableParserError } from "../shared/agent-output-parser";
import { assertStringArray } from "../shared/validate-option-values";
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from "../shared/argument-depth";
import { isActionBlob, readJsonBlob, readLineBlob, type ActionBlob } from "../shared/read-json-blob";

/** The `action` value that marks a structured-chat final answer. */
export const STRUCTURED_CHAT_FINAL_ANSWER = "Final Answer";

const FORMAT_FIX =
  'Reply with exactly one JSON blob {"action": <tool name or "Final Answer">, "action_input": <input>} ' +
  "inside a ```json fenced code block.";

/** Options of {@link StructuredChatOutputParser}. */
export interface StructuredChatOutputParserOptions {
  /** The tool names, used by the format instructions: an array of non-empty strings. @default [] */
  toolNames?: string[];
}

/**
 * Parses the output of a structured-chat agent: a JSON blob `{"action", "action_input"}` in a
 * markdown code fence (the first fence tagged `json`, or untagged with content that starts with `{`
 * or `[`; other fenced blocks, such as code tagged `python` or `js` in an answer, are skipped
 * whatever they start with, and a fence written inside a JSON string does not close the block). `"action":
 * "Final Answer"` is the finish, with `action_input` as the output (non-strings are serialised to
 * JSON); any other action is a tool call whose input is `action_input` (an object for
 * multi-argument tools, `{}` when absent). A list of blobs uses the first. Text without such a
 * fence is the final answer itself (a bare JSON blob is also accepted). A fence that is not closed,
 * JSON that does not parse, or a blob without a string `action` raises an
 * `OutputParserException` that tells the model the expected format; an `action_input` nested more
 * than 100 levels deep raises an `InvalidToolArgumentsException` (for a tool) or such an
 * `OutputParserException` (for the final answer).
 *
 * @example
 * ```ts
 * import { StructuredChatOutputParser } from "@agentrx/agents";
 *
 * const parser = new StructuredChatOutputParser();
 * const action = await parser.parse('```json\n{"action": "search", "action_input": {"query": "Paris"}}\n```');
 * console.log(action); // { tool: "search", toolInput: { query: "Paris" }, log: "..." }
 * ```
 */
export class StructuredChatOutputParser extends AgentOutputParser<AgentAction | AgentFinish> {
  readonly toolNames: string[];

  static override lc_name(): string {
    return "StructuredChatOutputParser";
  }

  constructor({ toolNames = [] }: StructuredChatOutputParserOptions = {}) {
    super();
    assertStringArray(new.target.lc_name(), "toolNames", toolNames);
    this.toolNames = [...toolNames];
  }

  override getFormatInstructions(): string {
    const names = [STRUCTURED_CHAT_FINAL_ANSWER, ...this.toolNames].map((name) => JSON.stringify(name)).join(", ");
    return `${FORMAT_FIX} "action" must be one of ${names}.`;
  }

  protected parseText(text: string): AgentAction | AgentFinish {
    const read = readJsonBlob(text, { bare: false });
    if (read.kind === "none") {
      const bare = text.trim();
      if (bare.startsWith("{")) {
        const blob = readJsonBlob(bare);
        if (blob.kind === "json" && isActionBlob(blob.value)) return this.toOutput(blob.value, text, blob.source);
        // A bare blob meant as an action (it names one) that does not parse is the model's mistake
        // to fix, not its answer: taken as the answer, the tool call would be lost without a word.
        if (/^\{\s*"action"\s*:/.test(bare)) {
          const problem = blob.kind === "invalid" ? `invalid JSON: ${blob.error}` : "not one JSON blob with a string \"action\"";
          throw fixableParserError(`Could not parse LLM output (${problem}): ${text}`, text, `Invalid Format: the JSON blob is not valid (${problem}). ${FORMAT_FIX}`);
        }
      }
      // A blob written without a fence after a thought (`Action:\n{"action": ...}`) is the tool call
      // it names, or the model's mistake to fix: never the answer, which would show the user the JSON.
      const line = readLineBlob(text);
      if (line?.kind === "json" && isActionBlob(line.value)) return this.toOutput(line.value, text, line.source);
      if (line !== undefined) {
        const problem = line.kind === "invalid" ? `invalid JSON: ${line.error}` : "not one JSON blob with a string \"action\"";
        throw fixableParserError(`Could not parse LLM output (${problem}): ${text}`, text, `Invalid Format: the JSON blob is not valid (${problem}). ${FORMAT_FIX}`);
      }
      return { returnValues: { output: text.trim() }, log: text };
    }
    if (read.kind === "unclosed") {
      throw fixableParserError(
        `Could not parse LLM output (the code fence is not closed): ${text}`,
        text,
        `Invalid Format: the code fence is not closed. ${FORMAT_FIX}`,
      );
    }
    if (read.kind === "invalid") {
      throw fixableParserError(
        `Could not parse LLM output (invalid JSON: ${read.error}): ${text}`,
        text,
        `Invalid Format: the JSON blob is not valid JSON (${read.error}). ${FORMAT_FIX}`,
      );
    }
    if (!isActionBlob(read.value)) {
      throw fixableParserError(
        `Could not parse LLM output (the JSON blob has no string "action"): ${text}`,
        text,
        `Invalid Format: the JSON blob must have a string "action". ${FORMAT_FIX}`,
      );
    }
    return this.toOutput(read.value, text, read.source);
  }

  private toOutput(blob: ActionBlob, text: string, source: string): AgentAction | AgentFinish {
    const tooDeep = "action_input" in blob && nestedDeeperThan(blob.action_input, MAX_ARGUMENT_DEPTH);
    if (blob.action === STRUCTURED_CHAT_FINAL_ANSWER) {
      if (!("action_input" in blob)) {
        throw fixableParserError(
          `Could not parse LLM output (the final answer has no "action_input"): ${text}`,
          text,
          `Invalid Format: put the final answer in "action_input". ${FORMAT_FIX}`,
        );
      }
      if (tooDeep) {
        throw fixableParserError(
          `Could not parse LLM output (the final answer is nested more than ${MAX_ARGUMENT_DEPTH} levels deep): ${text}`,
          text,
          `Invalid Format: the final answer in "action_input" is nested more than ${MAX_ARGUMENT_DEPTH} levels deep; give it as text. ${FORMAT_FIX}`,
        );
      }
      const input = blob.action_input;
      return { returnValues: { output: typeof input === "string" ? input : JSON.stringify(input) }, log: text };
    }
    if (tooDeep) {
      throw new InvalidToolArgumentsException({
        toolName: blob.action,
        rawArguments: source.length > 500 ? `${source.slice(0, 500)}…` : source,
        problem: `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`,
        llmOutput: text,
      });
    }
    return { tool: blob.action, toolInput: (blob.action_input ?? {}) as AgentAction["toolInput"], log: text };
  }
}
