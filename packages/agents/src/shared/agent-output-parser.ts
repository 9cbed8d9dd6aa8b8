import { attachOutputUsage } from "@agentrx/core";
import type { AgentOutput } from "@agentrx/core";
import { isBaseMessage, type BaseMessage, type UsageMetadata } from "@langchain/core/messages";
import { BaseOutputParser, OutputParserException } from "@langchain/core/output_parsers";
import type { ChatGeneration, Generation } from "@langchain/core/outputs";
import { describeError, describeValue } from "./describe";

/**
 * The base class of every AgentRx agent output parser. It reads a chat message's text through
 * `message.text` (so content given as an array of blocks works), and guarantees that a parser
 * only ever returns an agent output or throws an `OutputParserException` (with `llmOutput` set
 * to the raw text), whatever it is given: any other error raised while parsing is wrapped in
 * one, and a generation whose text is not a string (a number, a symbol, content that cannot be
 * read) is one too. The model call's usage
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

  /** Parses raw model text; anything but a string is an `OutputParserException`. */
  async parse(text: string): Promise<T> {
    if (typeof text !== "string") throw notText(`the output is ${describeValue(text)}`);
    return this.guard(text, () => this.parseText(text));
  }

  /**
   * Parses a model generation, reading a chat message through `message.text`. A generation whose
   * text cannot be read as a string (a number, a symbol, content that cannot be read) is an
   * `OutputParserException`, like any other malformed output.
   */
  override async parseResult(generations: Generation[] | ChatGeneration[]): Promise<T> {
    const { text, message } = readGeneration(generations);
    const output = await this.guard(text, () => (message ? this.parseMessage(message, text) : this.parseText(text)));
    return attachOutputUsage(output, usageOf(message));
  }

  /** Describes the output format the parser accepts. */
  getFormatInstructions(): string {
    return "";
  }

  /**
   * The text `invoke` gives a message's generation (the base class's, which serialises array
   * content to JSON), or "" when that throws (a `BigInt`, a circular structure): `parseResult`
   * reads the message itself and only falls back on this text.
   */
  protected override _baseMessageToString(message: BaseMessage): string {
    try {
      return super._baseMessageToString(message);
    } catch {
      return "";
    }
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
      const wrapped = new OutputParserException(`Could not parse LLM output (${describeError(error)}): ${text}`, text);
      (wrapped as { cause?: unknown }).cause = error;
      return Promise.reject(wrapped);
    }
  }
}

/** An `OutputParserException` for an output that is not text; `llmOutput` is empty. */
function notText(what: string): OutputParserException {
  return new OutputParserException(`Could not parse LLM output: ${what}, not text.`, "");
}

/**
 * The text of the first generation, and its message when it has one. The message's text comes
 * from `message.text`, else from the generation's `text`; when neither is a string, or the
 * generation cannot be read at all, an `OutputParserException` is thrown.
 */
function readGeneration(generations: unknown): { text: string; message: BaseMessage | undefined } {
  let first: { text?: unknown; message?: unknown } | undefined;
  let message: BaseMessage | undefined;
  try {
    first = Array.isArray(generations) ? (generations[0] as typeof first) : undefined;
    if (first === undefined || first === null) return { text: "", message: undefined };
    if (typeof first !== "object") throw notText(`the generation is ${describeValue(first)}`);
    message = isBaseMessage(first.message) ? first.message : undefined;
  } catch (error) {
    if (error instanceof OutputParserException) throw error;
    throw notText("the generation cannot be read");
  }
  let text: unknown;
  try {
    text = message ? message.text : undefined;
  } catch {
    // Content whose text cannot be read: fall back on the generation's text.
  }
  if (typeof text !== "string") {
    try {
      text = first.text;
    } catch {
      text = undefined;
    }
  }
  if (typeof text !== "string") throw notText(message ? "the message's content cannot be read" : `the generation's text is ${describeValue(text)}`);
  return { text, message };
}

/** The message's usage, when it is one. */
function usageOf(message: BaseMessage | undefined): UsageMetadata | undefined {
  try {
    const usage = (message as { usage_metadata?: unknown } | undefined)?.usage_metadata as UsageMetadata | undefined;
    return typeof usage === "object" && usage !== null && typeof usage.total_tokens === "number" ? usage : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds an `OutputParserException` that tells the model how to fix its output: `sendToLLM` is
 * set and `observation` holds the fix.
 */
export function fixableParserError(message: string, text: string, observation: string): OutputParserException {
  return new OutputParserException(message, text, observation, true);
}
