import { attachOutputUsage } from "@agentrx/core";
import type { AgentOutput } from "@agentrx/core";
import type { BaseMessage, UsageMetadata } from "@langchain/core/messages";
import { BaseOutputParser, OutputParserException } from "@langchain/core/output_parsers";
import type { ChatGeneration, Generation } from "@langchain/core/outputs";

/**
 * The base class of every AgentRx agent output parser. It reads a chat message's text through
 * `message.text` (so content given as an array of blocks works), and guarantees that a parser
 * only ever returns an agent output or throws an `OutputParserException` (with `llmOutput` set
 * to the raw text): any other error raised while parsing is wrapped in one. The model call's usage
 * is attached to what it returns (`getOutputUsage`), so a run's usage adds up without callbacks.
 *
 * Subclasses implement {@link AgentOutputParser.parseText}, and may override
 * {@link AgentOutputParser.parseMessage} to look at more than the text (tool calls).
 *
 * @example
 * ```ts
 * import { AgentOutputParser } from "@agentrx/agents";
 * import type { AgentFinish } from "@agentrx/core";
 *
 * class EchoParser extends AgentOutputParser<AgentFinish> {
 *   protected parseText(text: string): AgentFinish {
 *     return { returnValues: { output: text }, log: text };
 *   }
 * }
 * const finish = await new EchoParser().parse("hello");
 * console.log(finish.returnValues.output); // "hello"
 * ```
 */
export abstract class AgentOutputParser<T extends AgentOutput = AgentOutput> extends BaseOutputParser<T> {
  lc_namespace = ["agentrx", "agents"];

  /** Parses raw model text. */
  async parse(text: string): Promise<T> {
    return this.guard(text, () => this.parseText(text));
  }

  /** Parses a model generation, reading a chat message through `message.text`. */
  override async parseResult(generations: Generation[] | ChatGeneration[]): Promise<T> {
    const first = generations[0];
    const message = first && "message" in first ? (first as ChatGeneration).message : undefined;
    let text = first?.text ?? "";
    try {
      if (message) text = message.text;
    } catch {
      // A message whose text cannot be read is parsed from the generation's text.
    }
    const parsed = this.guard(text, () => (message ? this.parseMessage(message, text) : this.parseText(text)));
    const usage = (message as { usage_metadata?: UsageMetadata } | undefined)?.usage_metadata;
    return usage === undefined ? parsed : parsed.then((output) => attachOutputUsage(output, usage));
  }

  /** Describes the output format the parser accepts. */
  getFormatInstructions(): string {
    return "";
  }

  /**
   * Parses the text of a model output. Throw `OutputParserException` for malformed text; any
   * other error is wrapped in one.
   */
  protected abstract parseText(text: string): T;

  /** Parses a chat message; by default, its text. */
  protected parseMessage(_message: BaseMessage, text: string): T {
    return this.parseText(text);
  }

  private guard(text: string, parse: () => T): Promise<T> {
    try {
      return Promise.resolve(parse());
    } catch (error) {
      if (error instanceof OutputParserException) return Promise.reject(error);
      const reason = error instanceof Error ? error.message : String(error);
      const wrapped = new OutputParserException(`Could not parse LLM output (${reason}): ${text}`, text);
      (wrapped as { cause?: unknown }).cause = error;
      return Promise.reject(wrapped);
    }
  }
}

/**
 * Builds an `OutputParserException` that tells the model how to fix its output: `sendToLLM` is
 * set and `observation` holds the fix.
 */
export function fixableParserError(message: string, text: string, observation: string): OutputParserException {
  return new OutputParserException(message, text, observation, true);
}
