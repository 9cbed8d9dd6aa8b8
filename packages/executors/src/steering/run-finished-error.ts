import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.RunFinishedError";
const SYMBOL = Symbol.for(MARKER);

/**
 * A message was sent to a run that had already finished (`executor.send`, `RunClient.send`): it
 * cannot join it. Start a new run on the same thread instead.
 *
 * @example
 * ```ts
 * import { RunFinishedError } from "@agentrx/executors";
 *
 * const error = new RunFinishedError({ runId: "r1", stopReason: "finish" });
 * console.log(RunFinishedError.isInstance(error), error.stopReason); // true "finish"
 * ```
 */
export class RunFinishedError extends AgentRxError {
  protected readonly [SYMBOL] = true;

  /** The run the message was for. */
  readonly runId: string;
  /** Why the run ended, when known. */
  readonly stopReason: string | undefined;

  constructor({ runId, stopReason, late = false }: { runId: string; stopReason?: string | undefined; late?: boolean }) {
    const ended = `Run "${runId}" finished${stopReason === undefined ? "" : ` (${stopReason})`}`;
    super({
      name: "RunFinishedError",
      message: late
        ? `${ended} before the message joined it: the message was recorded in its inbox but the run will not read it. Start a new run (on the same thread) with it.`
        : `${ended} before the message arrived: it cannot join a finished run. Start a new run (on the same thread) with it.`,
    });
    this.runId = runId;
    this.stopReason = stopReason;
  }

  /** Returns true when `error` is a {@link RunFinishedError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RunFinishedError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
