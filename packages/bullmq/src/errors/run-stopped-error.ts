import { AgentRxError } from "@agentrx/core";
import { checkObject, fail } from "../internal/validate";

const MARKER = "agentrx.error.RunStoppedError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A run ended without an output: it failed (a model error, a worker that kept dying with it, a
 * store that could not record it) or it was cancelled. `RunClient.events` errors with it, and
 * `RunClient.result` rejects with it. `reason` is what the run's record says.
 *
 * @example
 * ```ts
 * import { RunStoppedError } from "@agentrx/bullmq";
 *
 * const error = new RunStoppedError({ runId: "r1", status: "failed", reason: "model unreachable" });
 * console.log(RunStoppedError.isInstance(error), error.status); // true "failed"
 * ```
 */
export class RunStoppedError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The run. */
  readonly runId: string;
  /** How it ended. */
  readonly status: "failed" | "cancelled";
  /** Why, as recorded (the error's message), when the record says. */
  readonly reason: string | undefined;

  /**
   * @throws InvalidArgumentError naming the argument when `runId` is not a non-empty string,
   *   `status` is neither `"failed"` nor `"cancelled"`, or `reason` is given and not a string
   */
  constructor(options: { runId: string; status: "failed" | "cancelled"; reason?: string }) {
    const where = "RunStoppedError";
    checkObject(where, "options", options);
    const { runId, status, reason } = options;
    if (typeof runId !== "string" || runId === "") fail(where, "runId", runId, "a non-empty string");
    if (status !== "failed" && status !== "cancelled") fail(where, "status", status, '"failed" or "cancelled"');
    if (reason !== undefined && typeof reason !== "string") fail(where, "reason", reason, "a string or undefined");
    super({
      name: "RunStoppedError",
      message: `Run "${runId}" ${status === "failed" ? "failed" : "was cancelled"}${reason ? `: ${reason.replace(/\.$/, "")}` : ""}. It has no output; \`RunClient.resume(runId)\` continues it from its record.`,
    });
    this.runId = runId;
    this.status = status;
    this.reason = reason;
  }

  /** Returns true when `error` is a {@link RunStoppedError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RunStoppedError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
