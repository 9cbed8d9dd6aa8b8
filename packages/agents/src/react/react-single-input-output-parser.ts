import type { AgentAction, AgentFinish } from "@agentrx/core";
import { AgentOutputParser, fixableParserError } from "../shared/agent-output-parser";
import { assertStringArray } from "../shared/validate-option-values";
import { skipDigits, skipSpace, stripQuotes } from "../shared/scan";

/** The marker of a ReAct final answer. */
export const FINAL_ANSWER_ACTION = "Final Answer:";

/** What the model is told when its `Final Answer:` has nothing after it. */
const EMPTY_ANSWER_MESSAGE = `Invalid Format: the final answer is empty. Write the answer after "${FINAL_ANSWER_ACTION}".`;
/** The observation sent to the model when its output has no `Action:`. */
export const MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE = "Invalid Format: Missing 'Action:' after 'Thought:'";
/** The observation sent to the model when its `Action:` has no `Action Input:`. */
export const MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE = "Invalid Format: Missing 'Action Input:' after 'Action:'";
/** The start of the error raised when an output has both an action and a final answer. */
export const FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE =
  "Parsing LLM output produced both a final answer and a parse-able action:";

/** Options of {@link ReActSingleInputOutputParser}. */
export interface ReActSingleInputOutputParserOptions {
  /** The tool names, used by the format instructions: an array of non-empty strings. @default [] */
  toolNames?: string[];
}

/**
 * Parses the text of a ReAct agent (`Thought:` / `Action:` / `Action Input:` / `Final Answer:`).
 * `Action` may carry a number (`Action 1:`, `Action 1 Input 1:`). The tool is named after the last
 * `Action:` that starts a line before `Action Input:` (an `Action:` inside the thought is text).
 * The tool input is everything after `Action Input:`, trimmed, with surrounding double quotes
 * removed. A `toolNames` that is not an array of non-empty strings throws an
 * `InvalidArgumentError`. An output with both an action and a final answer is an error; one
 * without `Action:` or without `Action Input:` raises an `OutputParserException` whose
 * `observation` tells the model the fix. Scanning is linear in the length of the text.
 *
 * @example
 * ```ts
 * import { ReActSingleInputOutputParser } from "@agentrx/agents";
 *
 * const parser = new ReActSingleInputOutputParser({ toolNames: ["search"] });
 * const action = await parser.parse('Thought: look it up\nAction: search\nAction Input: "Paris weather"');
 * console.log(action); // { tool: "search", toolInput: "Paris weather", log: "..." }
 * ```
 */
export class ReActSingleInputOutputParser extends AgentOutputParser<AgentAction | AgentFinish> {
  readonly toolNames: string[];

  static override lc_name(): string {
    return "ReActSingleInputOutputParser";
  }

  constructor({ toolNames = [] }: ReActSingleInputOutputParserOptions = {}) {
    super();
    assertStringArray(new.target.lc_name(), "toolNames", toolNames);
    this.toolNames = [...toolNames];
  }

  override getFormatInstructions(): string {
    return [
      "Use the following format:",
      "",
      "Thought: what to do next",
      `Action: the tool to use, one of [${this.toolNames.join(", ")}]`,
      "Action Input: the input for the tool",
      "Observation: the tool's result",
      "... (Thought/Action/Action Input/Observation can repeat)",
      "Thought: I now know the final answer",
      "Final Answer: the answer to the original question",
    ].join("\n");
  }

  protected parseText(text: string): AgentAction | AgentFinish {
    const includesAnswer = text.includes(FINAL_ANSWER_ACTION);
    const action = findAction(text);
    if (action) {
      if (includesAnswer) {
        throw fixableParserError(
          `${FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE} ${text}`,
          text,
          "Invalid Format: give either an 'Action:' with its 'Action Input:', or a 'Final Answer:', not both.",
        );
      }
      const tool = text.slice(action.toolStart, action.toolEnd).trim();
      if (!tool) {
        throw fixableParserError(`Could not parse LLM output: ${text}`, text, "Invalid Format: Missing tool name after 'Action:'");
      }
      return { tool, toolInput: stripQuotes(text.slice(action.inputStart).trim()), log: text };
    }
    if (includesAnswer) {
      const output = text.slice(text.lastIndexOf(FINAL_ANSWER_ACTION) + FINAL_ANSWER_ACTION.length).trim();
      // Nothing after the marker (a reply cut at its token limit, say) is no answer to give the user.
      if (output === "") throw fixableParserError(`Could not parse LLM output (the final answer is empty): ${text}`, text, EMPTY_ANSWER_MESSAGE);
      return { returnValues: { output }, log: text };
    }
    // No action was found: either there is no `Action:`, or no `Action Input:` follows the first
    // one (LangChain raises a bare error when an `Action Input:` only comes before it; the fix
    // to tell the model is the same).
    const observation =
      firstMarker(text, 0, actionMarkerEnd) === undefined
        ? MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE
        : MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE;
    throw fixableParserError(`Could not parse LLM output: ${text}`, text, observation);
  }
}

interface ActionSpan {
  toolStart: number;
  toolEnd: number;
  inputStart: number;
}

/**
 * The action: the first `Action Input:` after an `Action:`, and the tool named by the last `Action:`
 * that starts a line before it (so `Action:` written inside a thought is not taken for the marker);
 * when no `Action:` before it starts a line, the first one, as LangChain reads it.
 */
function findAction(text: string): ActionSpan | undefined {
  const first = firstMarker(text, 0, actionMarkerEnd);
  if (!first) return undefined;
  const input = firstMarker(text, first.end, actionInputMarkerEnd);
  if (!input) return undefined;
  let action = first;
  for (let marker: typeof first | undefined = first; marker !== undefined && marker.start < input.start; ) {
    if (startsLine(text, marker.start)) action = marker;
    marker = firstMarker(text, marker.end, actionMarkerEnd);
  }
  return { toolStart: action.end, toolEnd: input.start, inputStart: input.end };
}

/** Whether only spaces or tabs come between the start of `at`'s line and `at`. */
function startsLine(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && (text[i] === " " || text[i] === "\t")) i--;
  return i < 0 || text[i] === "\n" || text[i] === "\r";
}

/** Finds the first `Action` at or after `from` for which `matchEnd` matches a marker. */
function firstMarker(
  text: string,
  from: number,
  matchEnd: (text: string, at: number) => number,
): { start: number; end: number } | undefined {
  for (let at = text.indexOf("Action", from); at !== -1; at = text.indexOf("Action", at + 6)) {
    const end = matchEnd(text, at);
    if (end !== -1) return { start: at, end };
  }
  return undefined;
}

/** Matches `Action\s*\d*\s*:` at `at`; returns the index after the colon, or -1. */
function actionMarkerEnd(text: string, at: number): number {
  const i = skipSpace(text, skipDigits(text, skipSpace(text, at + 6)));
  return text[i] === ":" ? i + 1 : -1;
}

/** Matches `Action\s*\d*\s*Input\s*\d*\s*:` at `at`; returns the index after the colon, or -1. */
function actionInputMarkerEnd(text: string, at: number): number {
  let i = skipSpace(text, skipDigits(text, skipSpace(text, at + 6)));
  if (!text.startsWith("Input", i)) return -1;
  i = skipSpace(text, skipDigits(text, skipSpace(text, i + 5)));
  return text[i] === ":" ? i + 1 : -1;
}
