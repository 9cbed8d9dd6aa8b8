import { AgentRxError } from "@agentrx/core";
import { checkObject, fail } from "../internal/validate";

const MARKER = "agentrx.error.RunWorkerCloseError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * `RunWorker.close()` gave up: `forceAfterMs` after the worker's runs were told to go back to the
 * queue (or had all ended), Redis had still not taken its jobs back and closed its connections (it is unreachable),
 * or a run had not stopped. The worker dropped its connections and is closed: it takes no job, and
 * BullMQ's last timers end within `stalledInterval`, so the process can exit. What it could not do is left to the
 * queue: a job it still held goes to another worker once Redis is back and the job's lock lapses
 * (`lockDuration`), and that worker resumes the run from its record (handed back as `queued`, or
 * still `running`, taken over once its lease expires).
 *
 * @example
 * ```ts
 * import { RunWorkerCloseError, createRunWorker } from "@agentrx/bullmq";
 * declare const worker: ReturnType<typeof createRunWorker>;
 *
 * process.on("SIGTERM", () => {
 *   worker.close({ gracePeriodMs: 20_000 }).then(
 *     () => process.exit(0),
 *     (error: unknown) => {
 *       if (RunWorkerCloseError.isInstance(error)) console.warn(error.message, error.runIds);
 *       process.exit(1);
 *     },
 *   );
 * });
 * ```
 */
export class RunWorkerCloseError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The runs still in progress on the worker when it gave up (their jobs were not handed back). */
  readonly runIds: readonly string[];
  /** How long the worker waited, once its runs were handed back or had ended (ms). */
  readonly forceAfterMs: number;

  /**
   * @throws InvalidArgumentError naming the argument when `runIds` is not an array of strings or
   *   `forceAfterMs` is not a number >= 0
   */
  constructor(options: { runIds: readonly string[]; forceAfterMs: number }) {
    const where = "RunWorkerCloseError";
    checkObject(where, "options", options);
    const { runIds, forceAfterMs } = options;
    if (!Array.isArray(runIds) || runIds.some((runId) => typeof runId !== "string")) fail(where, "runIds", runIds, "an array of run ids (strings)");
    if (!(typeof forceAfterMs === "number" && forceAfterMs >= 0)) fail(where, "forceAfterMs", forceAfterMs, "a number of milliseconds >= 0");
    const runs = runIds.map((runId) => JSON.stringify(runId)).join(", ");
    const waitedFor =
      runIds.length === 0
        ? "Redis did not answer (the jobs' last moves, the connections' close)"
        : `Redis did not answer, or a run did not stop; runs still in progress here: ${runs} (another worker resumes each from its record once Redis is back and its job's lock lapses)`;
    super({
      name: "RunWorkerCloseError",
      message: `RunWorker.close: gave up ${forceAfterMs} ms (forceAfterMs) after the runs were told to go back to the queue or had ended: ${waitedFor}. The worker dropped its connections and is closed. Give a larger forceAfterMs to wait longer.`,
    });
    this.runIds = [...runIds];
    this.forceAfterMs = forceAfterMs;
  }

  /** Returns true when `error` is a {@link RunWorkerCloseError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RunWorkerCloseError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
