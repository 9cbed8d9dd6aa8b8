import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.CallTimeoutError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * An agent call or a tool call took longer than the call's `timeout` (the `timeout` of
 * `invoke(inputs, { timeout })`, which limits each call): the run failed with this error, and the
 * call's signal was aborted with it. For a limit on the whole run that ends it with an answer, use
 * `maxExecutionTime`; for a limit on one tool that the model hears about, a `timeoutPolicy`.
 *
 * @example
 * ```ts
 * import { CallTimeoutError } from "@agentrx/executors";
 *
 * const error = new CallTimeoutError({ runId: "r1", call: "tool", tool: "search", timeoutMs: 500 });
 * console.log(CallTimeoutError.isInstance(error), error.message);
 * // true 'Run "r1": the call of tool "search" took longer than the call's timeout (500 ms). ...'
 * ```
 */
export class CallTimeoutError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The run. */
  readonly runId: string;
  /** Which call: the agent's (the model's) or a tool's. */
  readonly call: "agent" | "tool";
  /** The tool of a tool call. */
  readonly tool: string | undefined;
  /** The call's `timeout`, in milliseconds. */
  readonly timeoutMs: number;

  constructor({ runId, call, tool, timeoutMs }: { runId: string; call: "agent" | "tool"; tool?: string; timeoutMs: number }) {
    const what = call === "agent" ? "the agent call" : `the call of tool "${tool ?? "?"}"`;
    super({
      name: "CallTimeoutError",
      message: `Run "${runId}": ${what} took longer than the call's timeout (${timeoutMs} ms). Raise \`timeout\`, or use maxExecutionTime to end the run with an answer instead, or a timeoutPolicy on the tool to tell the model.`,
    });
    this.runId = runId;
    this.call = call;
    this.tool = tool;
    this.timeoutMs = timeoutMs;
  }

  /** Returns true when `error` is a {@link CallTimeoutError} (from any copy of the package). */
  static override isInstance(error: unknown): error is CallTimeoutError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
