import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.InvalidAgentOutputError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * The agent returned something that is neither an `AgentFinish`, an `AgentAction` nor a non-empty
 * array of `AgentAction`s. The run fails with this error.
 *
 * @example
 * ```ts
 * import { InvalidAgentOutputError } from "@agentrx/executors";
 *
 * const error = new InvalidAgentOutputError({ output: 42, iteration: 0 });
 * console.log(InvalidAgentOutputError.isInstance(error)); // true
 * ```
 */
export class InvalidAgentOutputError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** What the agent returned. */
  readonly output: unknown;
  /** The 0-based agent call that returned it. */
  readonly iteration: number;

  constructor({ output, iteration, cause }: { output: unknown; iteration: number; cause?: unknown }) {
    super({
      name: "InvalidAgentOutputError",
      message:
        `AgentExecutor: agent call ${iteration} returned ${describe(output)}; an agent must return an AgentFinish ` +
        "(`{ returnValues, log }`), an AgentAction (`{ tool, toolInput, log }`) or a non-empty array of AgentActions.",
      cause,
    });
    this.output = output;
    this.iteration = iteration;
  }

  /** Returns true when `error` is an {@link InvalidAgentOutputError} (from any copy of the package). */
  static override isInstance(error: unknown): error is InvalidAgentOutputError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array that holds something other than AgentActions";
  if (value === null || value === undefined) return String(value);
  if (typeof value === "object") return `an object with keys [${Object.keys(value).join(", ")}]`;
  return `a ${typeof value} (${String(value).slice(0, 80)})`;
}
