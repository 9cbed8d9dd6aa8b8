import { AgentRxError } from "@agentrx/core";
import type { RunInfo } from "@agentrx/executors";
import { checkObject, fail } from "../internal/validate";

const MARKER = "agentrx.error.RunStoppedError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A run ended without an output: it failed (a model error, a worker that kept dying with it, a
 * store that could not record it) or it was cancelled. `RunClient.events` errors with it, and
 * `RunClient.result` rejects with it. `reason` is what the run's record says. The message says
 * what continues the run: `RunClient.resume(runId)` for a run whose record names an executor (one
 * submitted through `RunClient.submit`), else the executor that recorded it, with its
 * `resume(runId, { store })` (`RunClient.resume` refuses such a run: an AG-UI or A2A handler's,
 * an `invoke` with a store).
 *
 * @example
 * ```ts
 * import { RunStoppedError } from "@agentrx/bullmq";
 *
 * const error = new RunStoppedError({ runId: "r1", status: "failed", reason: "model unreachable", executor: "support" });
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
   * The executor the run's record names (its `metadata.executor`, which `RunClient.submit`
   * records): `undefined` for a run recorded by an executor in its own process, which
   * `RunClient.resume` refuses.
   */
  readonly executor: string | undefined;

  /**
   * @param options.executor the executor the run's record names (`metadata.executor`), if any:
   *   without one the message says that `RunClient.resume` cannot continue the run, and what can
   * @throws InvalidArgumentError naming the argument when `runId` is not a non-empty string,
   *   `status` is neither `"failed"` nor `"cancelled"`, or `reason` or `executor` is given and not
   *   a string (a non-empty one, for `executor`)
   */
  constructor(options: { runId: string; status: "failed" | "cancelled"; reason?: string; executor?: string }) {
    const where = "RunStoppedError";
    checkObject(where, "options", options);
    const { runId, status, reason, executor } = options;
    if (typeof runId !== "string" || runId === "") fail(where, "runId", runId, "a non-empty string");
    if (status !== "failed" && status !== "cancelled") fail(where, "status", status, '"failed" or "cancelled"');
    if (reason !== undefined && typeof reason !== "string") fail(where, "reason", reason, "a string or undefined");
    if (executor !== undefined && (typeof executor !== "string" || executor === "")) fail(where, "executor", executor, "a non-empty string or undefined");
    const next =
      executor === undefined
        ? "`RunClient.resume` refuses it, as its record names no executor (it was not submitted through RunClient.submit): the executor that recorded it continues it, with `executor.resume(runId, { store })` on the same store."
        : "`RunClient.resume(runId)` continues it from its record.";
    super({
      name: "RunStoppedError",
      message: `Run "${runId}" ${status === "failed" ? "failed" : "was cancelled"}${reason ? `: ${reason.replace(/\.$/, "")}` : ""}. It has no output; ${next}`,
    });
    this.runId = runId;
    this.status = status;
    this.reason = reason;
    this.executor = executor;
  }

  /** Returns true when `error` is a {@link RunStoppedError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RunStoppedError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

/**
 * The executor a run's record names (its `metadata.executor`, recorded by `RunClient.submit`), as
 * {@link RunStoppedError} takes it: `undefined` for a run recorded by an executor in its own process.
 *
 * @internal
 */
export function recordedExecutor(info: Pick<RunInfo, "metadata"> | undefined): string | undefined {
  const executor = info?.metadata?.["executor"];
  return typeof executor === "string" && executor !== "" ? executor : undefined;
}
