import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.UnsupportedModelError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * An agent constructor was given a model that cannot do what the agent needs, such as a model
 * without `bindTools` for a tool-calling agent.
 *
 * @example
 * ```ts
 * import { UnsupportedModelError } from "@agentrx/agents";
 *
 * const error = new UnsupportedModelError({
 *   agentType: "tool-calling",
 *   requirement: "tool-calling",
 *   message: "createToolCallingAgent: the model has no bindTools method.",
 * });
 * console.log(error.requirement); // "tool-calling"
 * ```
 */
export class UnsupportedModelError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The agent type whose constructor rejected the model. */
  readonly agentType: string;
  /** What the agent requires of its model. */
  readonly requirement: "tool-calling" | "text";

  constructor({
    agentType,
    requirement,
    message,
    cause,
  }: {
    agentType: string;
    requirement: "tool-calling" | "text";
    message: string;
    cause?: unknown;
  }) {
    super({ name: "UnsupportedModelError", message, cause });
    this.agentType = agentType;
    this.requirement = requirement;
  }

  /** Returns true when `error` is an {@link UnsupportedModelError} (from any copy of the package). */
  static override isInstance(error: unknown): error is UnsupportedModelError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
