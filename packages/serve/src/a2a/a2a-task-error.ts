import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.A2ATaskError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A remote A2A agent's task did not complete: it failed, was rejected or was cancelled. An
 * `a2aTool` call throws it, so the calling run reports it to its model like any tool error.
 *
 * @example
 * ```ts
 * import { A2ATaskError } from "@agentrx/serve";
 *
 * const error = new A2ATaskError({ agent: "Weather", taskId: "t-1", state: "failed", detail: "no network" });
 * console.log(error.message); // 'The A2A agent "Weather" ended task t-1 as failed: no network'
 * console.log(A2ATaskError.isInstance(error)); // true
 * ```
 */
export class A2ATaskError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The remote agent's name. */
  readonly agent: string;
  /** The remote task's id. */
  readonly taskId: string;
  /** How the task ended: `"failed"`, `"rejected"`, `"canceled"`, or `"unknown"` when the stream ended without a final state. */
  readonly state: string;

  constructor({ agent, taskId, state, detail, cause }: { agent: string; taskId: string; state: string; detail?: string; cause?: unknown }) {
    super({ name: "A2ATaskError", message: `The A2A agent "${agent}" ended task ${taskId} as ${state}${detail ? `: ${detail}` : "."}`, cause });
    this.agent = agent;
    this.taskId = taskId;
    this.state = state;
  }

  /** Returns true when `error` is an {@link A2ATaskError} (from any copy of the package). */
  static override isInstance(error: unknown): error is A2ATaskError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
