import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.SubRunInterruptedError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * The agent a tool ran as a sub-run (a `handoff`, or an executor's `asTool`) paused for approval
 * (its run ended with `stopReason: "interrupted"`): the tool has no answer to give, and a pause
 * inside it does not pause the calling run. The tool call fails with this error rather than answer
 * `""`; the paused run is the other executor's to decide (`executor.resume(runId, { decisions })`).
 *
 * @example
 * ```ts
 * import { SubRunInterruptedError } from "@agentrx/executors";
 *
 * const error = new SubRunInterruptedError({ tool: "transfer_to_billing", runId: "handoff:r1:0:call_1", waitingOn: ["refund"] });
 * console.log(SubRunInterruptedError.isInstance(error), error.runId); // true "handoff:r1:0:call_1"
 * ```
 */
export class SubRunInterruptedError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The name of the tool that ran the sub-run. */
  readonly tool: string;
  /** The paused run of the other executor. */
  readonly runId: string;
  /** The tools whose calls wait for a decision. */
  readonly waitingOn: readonly string[];

  constructor({ tool, runId, waitingOn }: { tool: string; runId: string; waitingOn: readonly string[] }) {
    const calls = waitingOn.length > 0 ? ` (waiting on ${waitingOn.map((name) => `"${name}"`).join(", ")})` : "";
    super({
      name: "SubRunInterruptedError",
      message:
        `Tool "${tool}": the agent it ran paused for approval${calls}, so it has no answer to give; its run "${runId}" is interrupted. ` +
        "A pause inside a sub-run does not pause the calling run: decide it with that agent's executor (resume(runId, { decisions })), or give that agent no approval step.",
    });
    this.tool = tool;
    this.runId = runId;
    this.waitingOn = [...waitingOn];
  }

  /** Returns true when `error` is a {@link SubRunInterruptedError} (from any copy of the package). */
  static override isInstance(error: unknown): error is SubRunInterruptedError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
