import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.InDoubtToolCallError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A resumed run found a tool call in doubt (recorded as started, with no recorded result) whose
 * policy is `"fail"`: the run fails rather than risk running the call twice. Fork the run with the
 * call's result (`executor.fork(runId, { edit })`), or resume it under another `inDoubt` policy.
 *
 * @example
 * ```ts
 * import { InDoubtToolCallError } from "@agentrx/executors";
 *
 * const error = new InDoubtToolCallError({ runId: "r1", tool: "charge_card", iteration: 2, index: 0 });
 * console.log(InDoubtToolCallError.isInstance(error), error.tool); // true "charge_card"
 * ```
 */
export class InDoubtToolCallError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The run. */
  readonly runId: string;
  /** The tool of the call in doubt. */
  readonly tool: string;
  /** The iteration (agent call) that asked for it. */
  readonly iteration: number;
  /** Its position in that turn. */
  readonly index: number;

  constructor({ runId, tool, iteration, index }: { runId: string; tool: string; iteration: number; index: number }) {
    super({
      name: "InDoubtToolCallError",
      message: `Run "${runId}": the call of tool "${tool}" (iteration ${iteration}, call ${index}) was started and has no recorded result, and its in-doubt policy is "fail": the run fails rather than run it twice. Resume with inDoubt "interrupt" to decide by hand, or "retry" if the tool is idempotent.`,
    });
    this.runId = runId;
    this.tool = tool;
    this.iteration = iteration;
    this.index = index;
  }

  /** Returns true when `error` is an {@link InDoubtToolCallError} (from any copy of the package). */
  static override isInstance(error: unknown): error is InDoubtToolCallError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
