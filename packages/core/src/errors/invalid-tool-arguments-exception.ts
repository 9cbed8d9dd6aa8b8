import { OutputParserException } from "@langchain/core/output_parsers";

const MARKER = "agentrx.error.InvalidToolArgumentsException";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * An output parser's report that the model called a tool with arguments that cannot be used (not
 * valid JSON, not a JSON object, nested too deeply, or no tool name). It is an `OutputParserException` with
 * `sendToLLM` set and an `observation` that names the tool and the problem, and the executor
 * treats it as bad tool input (see docs/executor-options.md): it never fails the run. Even with
 * `handleParsingErrors: false`, the observation goes back to the model as an `_Exception` step
 * so that it can call the tool again; `handleParsingErrors` set to a string or a function still
 * decides the observation.
 *
 * @example
 * ```ts
 * import { InvalidToolArgumentsException } from "@agentrx/core";
 *
 * const error = new InvalidToolArgumentsException({
 *   toolName: "search",
 *   rawArguments: '{"query": "Par',
 *   problem: "invalid JSON: Unterminated string",
 *   llmOutput: 'Invoking "search" with {"query": "Par',
 * });
 * console.log(error.observation);
 * ```
 */
export class InvalidToolArgumentsException extends OutputParserException {
  protected readonly [MARKER_SYMBOL] = true;

  /** The tool the model called, if it named one. */
  readonly toolName: string | undefined;
  /** The arguments as the model wrote them. */
  readonly rawArguments: string;
  /** What is wrong with them. */
  readonly problem: string;
  /** The tool call's id, if the model gave one. */
  readonly toolCallId: string | undefined;

  constructor({
    toolName,
    rawArguments,
    problem,
    llmOutput,
    toolCallId,
    observation,
    noun = "tool",
  }: {
    toolName: string | undefined;
    rawArguments: string;
    problem: string;
    llmOutput: string;
    toolCallId?: string;
    /** @default a sentence naming the tool and the problem, asking for one valid JSON object */
    observation?: string;
    /** How messages name what was called (`"function"` for OpenAI function calling). @default "tool" */
    noun?: "tool" | "function";
  }) {
    const tool = toolName ? `${noun} "${toolName}"` : `a ${noun}`;
    super(
      `The model called ${tool} with arguments that cannot be used (${problem}). Arguments: ${rawArguments}`,
      llmOutput,
      observation ?? `Your call to ${tool} could not be read: ${problem}. Call the ${noun} again with its arguments as one valid JSON object.`,
      true,
    );
    this.name = "InvalidToolArgumentsException";
    this.toolName = toolName;
    this.rawArguments = rawArguments;
    this.problem = problem;
    this.toolCallId = toolCallId;
  }

  /** Returns true when `error` is an {@link InvalidToolArgumentsException} (from any copy of the package). */
  static isInstance(error: unknown): error is InvalidToolArgumentsException {
    const symbol = Symbol.for(MARKER);
    return error != null && typeof error === "object" && (error as Record<symbol, unknown>)[symbol] === true;
  }
}
