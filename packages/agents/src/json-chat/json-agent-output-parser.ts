import { InvalidToolArgumentsException, type AgentAction, type AgentFinish } from "@agentrx/core";
import { AgentOutputParser, fixableParserError } from "../shared/agent-output-parser";
import { assertStringArray } from "../shared/validate-option-values";
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from "../shared/argument-depth";
import { isActionBlob, readJsonBlob, type ActionBlob } from "../shared/read-json-blob";

/** The `action` value of a JSON blob that marks the final answer. */
export const JSON_FINAL_ANSWER_ACTION = "Final Answer";

const FORMAT =
  'Reply with exactly one JSON blob {"action": <tool name or "Final Answer">, "action_input": <input>} ' +
  "in a ```json fenced code block.";

/** Options of {@link JSONAgentOutputParser}. */
export interface JSONAgentOutputParserOptions {
  /** The tool names, used by the format instructions: an array of non-empty strings. @default [] */
  toolNames?: string[];
}

/**
 * Parses a JSON agent's output: one JSON blob `{"action": ..., "action_input": ...}`, in a markdown
 * code fence (the first tagged `json`, or untagged and holding `{`/`[`; blocks tagged with another
 * language are code, skipped) or bare. `"action": "Final Answer"` is the
 * finish with `action_input` as the output (serialised to JSON when it is not a string); any other
 * action is a tool call whose input is `action_input` (`{}` when absent). A list of blobs acts on the
 * first. Anything else (no blob, JSON that does not parse, no string `action`) raises an
 * `OutputParserException` with `sendToLLM` set that tells the model the format; an `action_input`
 * nested more than 100 levels deep raises an `InvalidToolArgumentsException`.
 *
 * @example
 * ```ts
 * import { JSONAgentOutputParser } from "@agentrx/agents";
 *
 * const parser = new JSONAgentOutputParser();
 * console.log(await parser.parse('```json\n{"action": "search", "action_input": "2+2"}\n```')); // { tool: "search", toolInput: "2+2", log: "..." }
 * console.log(await parser.parse('{"action": "Final Answer", "action_input": "4"}')); // { returnValues: { output: "4" }, log: "..." }
 * ```
 */
export class JSONAgentOutputParser extends AgentOutputParser<AgentAction | AgentFinish> {
  readonly toolNames: string[];

  static override lc_name(): string {
    return "JSONAgentOutputParser";
  }

  constructor({ toolNames = [] }: JSONAgentOutputParserOptions = {}) {
    super();
    assertStringArray(new.target.lc_name(), "toolNames", toolNames);
    this.toolNames = [...toolNames];
  }

  override getFormatInstructions(): string {
    const names = [JSON_FINAL_ANSWER_ACTION, ...this.toolNames].map((name) => JSON.stringify(name)).join(", ");
    return `${FORMAT} "action" must be one of ${names}.`;
  }

  protected parseText(text: string): AgentAction | AgentFinish {
    return blobOutput(readBlob(text, this.requiredKeys()), text);
  }

  /** The keys a blob must have besides `action`. */
  protected requiredKeys(): readonly string[] {
    return [];
  }
}

/**
 * Reads the action blob of `text`, or throws the `OutputParserException` that tells the model what
 * was wrong. `required` names keys the blob must have besides `action`.
 *
 * @internal
 */
export function readBlob(text: string, required: readonly string[] = []): ActionBlob {
  const read = readJsonBlob(text);
  if (read.kind === "none") throw formatError(text, "there is no JSON blob");
  if (read.kind === "unclosed") throw formatError(text, "the code fence is not closed");
  if (read.kind === "invalid") throw formatError(text, `the JSON blob is not valid JSON (${read.error})`);
  if (!isActionBlob(read.value)) throw formatError(text, 'the JSON blob has no string "action"');
  const missing = required.filter((key) => !(key in (read.value as object)));
  if (missing.length > 0) throw formatError(text, `the JSON blob has no ${missing.map((key) => `"${key}"`).join(" or ")}`);
  return read.value;
}

/**
 * The agent output of a blob: the finish for `"Final Answer"`, else an action.
 *
 * @internal
 */
export function blobOutput(blob: ActionBlob, text: string): AgentAction | AgentFinish {
  const input = blob.action_input;
  const tooDeep = input !== undefined && nestedDeeperThan(input, MAX_ARGUMENT_DEPTH);
  if (blob.action === JSON_FINAL_ANSWER_ACTION) {
    // No answer is not an empty answer: the model is asked for it (the run would end with "").
    if (input === undefined) throw formatError(text, 'the final answer has no "action_input": put the answer there');
    if (tooDeep) throw formatError(text, `the final answer is nested more than ${MAX_ARGUMENT_DEPTH} levels deep; give it as text`);
    const output = typeof input === "string" ? input : JSON.stringify(input);
    return { returnValues: { output }, log: text };
  }
  if (tooDeep) {
    throw new InvalidToolArgumentsException({
      toolName: blob.action,
      rawArguments: text.length > 500 ? `${text.slice(0, 500)}…` : text,
      problem: `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`,
      llmOutput: text,
    });
  }
  return { tool: blob.action, toolInput: (input ?? {}) as AgentAction["toolInput"], log: text };
}

function formatError(text: string, problem: string) {
  return fixableParserError(`Could not parse LLM output (${problem}): ${text}`, text, `Invalid Format: ${problem}. ${FORMAT}`);
}
