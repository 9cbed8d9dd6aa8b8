import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.AgentTypeRegistryError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * An agent-type registry refused an operation: a second registration under a name already taken
 * (`reason: "duplicate"`), a look-up of a name nobody registered (`reason: "unknown"`), or the
 * registration of something not made with `defineAgentType` (`reason: "invalid"`).
 *
 * @example
 * ```ts
 * import { AgentTypeRegistryError } from "@agentrx/agents";
 *
 * const error = new AgentTypeRegistryError({
 *   name: "acme/planner",
 *   reason: "unknown",
 *   message: 'No agent type named "acme/planner" is registered.',
 * });
 * console.log(error.reason); // "unknown"
 * ```
 */
export class AgentTypeRegistryError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The agent-type name at fault. */
  readonly agentTypeName: string;
  /** Why the registry refused. */
  readonly reason: "duplicate" | "unknown" | "invalid";

  constructor({
    name,
    reason,
    message,
    cause,
  }: {
    name: string;
    reason: "duplicate" | "unknown" | "invalid";
    message: string;
    cause?: unknown;
  }) {
    super({ name: "AgentTypeRegistryError", message, cause });
    this.agentTypeName = name;
    this.reason = reason;
  }

  /** Returns true when `error` is an {@link AgentTypeRegistryError} (from any copy of the package). */
  static override isInstance(error: unknown): error is AgentTypeRegistryError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
