import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.InvalidPromptError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * An agent constructor was given a prompt that lacks a variable the agent fills in (such as
 * `agent_scratchpad`), or has it in the wrong form (a string where messages are needed).
 *
 * @example
 * ```ts
 * import { InvalidPromptError } from "@agentrx/agents";
 *
 * const error = new InvalidPromptError({
 *   agentType: "react",
 *   missingVariables: ["tool_names"],
 *   message: 'createReactAgent: the prompt is missing the input variable "tool_names".',
 * });
 * console.log(error.missingVariables); // ["tool_names"]
 * ```
 */
export class InvalidPromptError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The agent type whose constructor rejected the prompt. */
  readonly agentType: string;
  /** The variables the prompt lacks (or has in the wrong form). */
  readonly missingVariables: readonly string[];

  constructor({
    agentType,
    missingVariables,
    message,
    cause,
  }: {
    agentType: string;
    missingVariables: readonly string[];
    message: string;
    cause?: unknown;
  }) {
    super({ name: "InvalidPromptError", message, cause });
    this.agentType = agentType;
    this.missingVariables = [...missingVariables];
  }

  /** Returns true when `error` is an {@link InvalidPromptError} (from any copy of the package). */
  static override isInstance(error: unknown): error is InvalidPromptError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
