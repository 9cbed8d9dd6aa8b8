import type { AgentAction, AgentFinish } from "@agentrx/core";
import { AgentOutputParser, fixableParserError } from "../shared/agent-output-parser";
import { assertNonEmptyString, assertStringArray } from "../shared/validate-option-values";

/** The name of the one tool a self-ask-with-search agent uses. */
export const INTERMEDIATE_ANSWER_TOOL = "Intermediate Answer";

/** Options of {@link SelfAskOutputParser}. */
export interface SelfAskOutputParserOptions {
  /**
   * The markers of a follow-up question: at least one, none of them empty or only white space.
   * @default ["Follow up:", "Followup:"]
   */
  followUps?: string[];
  /** The marker of the final answer, not empty or only white space. @default "So the final answer is:" */
  finishString?: string;
}

/**
 * Parses the output of a self-ask-with-search agent. When its last non-empty line has
 * `Follow up:` (or `Followup:`), it is an action for the `Intermediate Answer` tool whose input is
 * the question after the marker. Otherwise the text after the last `So the final answer is:` is
 * the finish (the answer may span several lines, or start on the line after the marker). Anything
 * else (or an empty answer) raises an `OutputParserException` that tells the model the format.
 * Markers that are empty (or only white space) throw an `InvalidArgumentError` at construction.
 *
 * @example
 * ```ts
 * import { SelfAskOutputParser } from "@agentrx/agents";
 *
 * const parser = new SelfAskOutputParser();
 * console.log(await parser.parse("Are follow up questions needed here: Yes.\nFollow up: Who founded Rome?"));
 * // { tool: "Intermediate Answer", toolInput: "Who founded Rome?", log: "..." }
 * ```
 */
export class SelfAskOutputParser extends AgentOutputParser<AgentAction | AgentFinish> {
  readonly followUps: string[];
  readonly finishString: string;

  static override lc_name(): string {
    return "SelfAskOutputParser";
  }

  constructor({ followUps = ["Follow up:", "Followup:"], finishString = "So the final answer is:" }: SelfAskOutputParserOptions = {}) {
    super();
    assertStringArray(new.target.lc_name(), "followUps", followUps, { nonEmpty: true });
    assertNonEmptyString(new.target.lc_name(), "finishString", finishString, 'such as "So the final answer is:"');
    this.followUps = [...followUps];
    this.finishString = finishString;
  }

  override getFormatInstructions(): string {
    return `Ask one follow-up question per line starting with "${this.followUps[0] ?? "Follow up:"}", or finish with "${this.finishString} <answer>".`;
  }

  protected parseText(text: string): AgentAction | AgentFinish {
    const trimmed = text.trimEnd();
    const lastLine = trimmed.slice(trimmed.lastIndexOf("\n") + 1);
    let followUp = false;
    for (const marker of this.followUps) {
      const at = lastLine.indexOf(marker);
      if (at !== -1) {
        const question = lastLine.slice(at + marker.length).trim();
        if (question) return { tool: INTERMEDIATE_ANSWER_TOOL, toolInput: question, log: text };
        followUp = true;
        break;
      }
    }
    // The answer may start on the marker's line and run on (or start on the next line), as chat
    // models often write it; the text after the last marker is the answer. A last line with an
    // empty follow-up question is an error, not part of an answer.
    const finish = followUp ? -1 : text.lastIndexOf(this.finishString);
    if (finish !== -1) {
      const output = text.slice(finish + this.finishString.length).trim();
      if (output) return { returnValues: { output }, log: text };
    }
    throw fixableParserError(
      `Could not parse output: ${text}`,
      text,
      `Invalid Format: end with a line "${this.followUps[0] ?? "Follow up:"} <question>" to ask a follow-up question, ` +
        `or "${this.finishString} <answer>" to finish.`,
    );
  }
}
