import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.ThreadBusyError";
const SYMBOL = Symbol.for(MARKER);

/**
 * A new input came for a thread whose run is still going on, and the executor's
 * `followUp: "reject"` refuses it. Send it to the running run instead (`executor.send`), or
 * choose `followUp: "queue"` or `"interrupt"`.
 *
 * @example
 * ```ts
 * import { ThreadBusyError } from "@agentrx/executors";
 *
 * const error = new ThreadBusyError({ threadId: "t1", runId: "r1" });
 * console.log(ThreadBusyError.isInstance(error), error.runId); // true "r1"
 * ```
 */
export class ThreadBusyError extends AgentRxError {
  protected readonly [SYMBOL] = true;

  /** The thread the input was for. */
  readonly threadId: string;
  /** The run still going on in that thread. */
  readonly runId: string;

  constructor({ threadId, runId }: { threadId: string; runId: string }) {
    super({
      name: "ThreadBusyError",
      message: `Thread "${threadId}" has a run going on ("${runId}"), and the executor's followUp: "reject" refuses a new input meanwhile. Send it to that run (executor.send("${runId}", message)), wait for it to end, or use followUp: "queue" or "interrupt".`,
    });
    this.threadId = threadId;
    this.runId = runId;
  }

  /** Returns true when `error` is a {@link ThreadBusyError} (from any copy of the package). */
  static override isInstance(error: unknown): error is ThreadBusyError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
