import type { AgentAction, AgentFinish } from "@agentrx/core";
import { AgentOutputParser, fixableParserError } from "../shared/agent-output-parser";
import { isSpace, stripQuotes } from "../shared/scan";
import { assertNonEmptyString } from "../shared/validate-option-values";

const ACTION = "Action:";
const ACTION_INPUT = "Action Input:";
const OBSERVATION = "\nObservation:";

/** Options of {@link ConvoOutputParser}. */
export interface ConvoOutputParserOptions {
  /**
   * The prefix before the agent's reply to the user: text with `"<aiPrefix>:"` (at the start of a
   * line or after white space) is the final answer. A string with more than white space.
   * @default "AI"
   */
  aiPrefix?: string;
}

/**
 * Parses the output of LangChain's conversational agent (the text format, for users migrating old
 * agents): text with `"AI:"` (the `aiPrefix`) at the start of a line or after white space is the
 * final answer, the text after its last such occurrence (`OpenAI:` is not one); otherwise
 * `Action: <tool>` followed by `Action Input: <input>` is a tool call whose input is the rest of the
 * text (up to an `Observation:` line the model wrote itself, or the start of one at the very end),
 * trimmed and stripped of surrounding quotes. Anything else raises an `OutputParserException` with
 * `sendToLLM` set that tells the model the format. An `aiPrefix` that is not a non-empty string
 * throws an `InvalidArgumentError`.
 *
 * @example
 * ```ts
 * import { ConvoOutputParser } from "@agentrx/agents";
 *
 * const parser = new ConvoOutputParser();
 * console.log(await parser.parse("Thought: Do I need to use a tool? Yes\nAction: search\nAction Input: weather in Paris"));
 * // { tool: "search", toolInput: "weather in Paris", log: "..." }
 * console.log(await parser.parse("Thought: Do I need to use a tool? No\nAI: It is sunny.")); // { returnValues: { output: "It is sunny." }, log: "..." }
 * ```
 */
export class ConvoOutputParser extends AgentOutputParser<AgentAction | AgentFinish> {
  readonly aiPrefix: string;

  static override lc_name(): string {
    return "ConvoOutputParser";
  }

  constructor({ aiPrefix = "AI" }: ConvoOutputParserOptions = {}) {
    super();
    assertNonEmptyString("ConvoOutputParser", "aiPrefix", aiPrefix, 'such as "AI"');
    this.aiPrefix = aiPrefix;
  }

  override getFormatInstructions(): string {
    return (
      `To use a tool, write "${ACTION} <tool name>" then "${ACTION_INPUT} <the tool's input>" on the next line. ` +
      `To reply to the user, write "${this.aiPrefix}: <your reply>".`
    );
  }

  protected parseText(text: string): AgentAction | AgentFinish {
    const finalMarker = `${this.aiPrefix}:`;
    const final = lastStandaloneIndexOf(text, finalMarker);
    if (final !== -1) return { returnValues: { output: text.slice(final + finalMarker.length).trim() }, log: text };
    const action = text.indexOf(ACTION);
    const input = action === -1 ? -1 : text.indexOf(ACTION_INPUT, action + ACTION.length);
    if (input === -1) {
      throw fixableParserError(
        `Could not parse LLM output (no "${ACTION}" followed by "${ACTION_INPUT}"): ${text}`,
        text,
        `Invalid Format: ${this.getFormatInstructions()}`,
      );
    }
    const tool = text.slice(action + ACTION.length, input).trim();
    if (tool === "") {
      throw fixableParserError(
        `Could not parse LLM output (the action names no tool): ${text}`,
        text,
        `Invalid Format: name the tool after "${ACTION}". ${this.getFormatInstructions()}`,
      );
    }
    return { tool, toolInput: stripQuotes(withoutObservation(text.slice(input + ACTION_INPUT.length)).trim()), log: text };
  }
}

/**
 * The index of the last `marker` at the start of the text or after white space (so `AI:` is not
 * found in `OpenAI:`), or -1.
 */
function lastStandaloneIndexOf(text: string, marker: string): number {
  for (let at = text.lastIndexOf(marker); at !== -1; at = at === 0 ? -1 : text.lastIndexOf(marker, at - 1)) {
    if (at === 0 || isSpace(text.charCodeAt(at - 1))) return at;
  }
  return -1;
}

/** The text up to an `Observation:` line, or up to the start of one at the very end (`"\nObs"`). */
function withoutObservation(text: string): string {
  const observation = text.indexOf(OBSERVATION);
  if (observation !== -1) return text.slice(0, observation);
  const lastLine = text.lastIndexOf("\n");
  const tail = text.slice(lastLine);
  return lastLine !== -1 && tail.length > 1 && OBSERVATION.startsWith(tail) ? text.slice(0, lastLine) : text;
}
