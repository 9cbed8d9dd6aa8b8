import { AgentRxError } from "@agentrx/core";
import type { StopReason } from "../executor/events";

const MARKER = "agentrx.error.RunStop";
const MARKER_SYMBOL = Symbol.for(MARKER);

/** The stop reasons a middleware may end a run with. */
export type MiddlewareStopReason = Exclude<StopReason, "finish" | "return_direct" | "interrupted" | "max_execution_time">;

/** What {@link stopRun} takes. */
export interface StopRunOptions {
  /** The run's `stopReason`. */
  reason: MiddlewareStopReason;
  /** The run's output; `details.message` and the output event's `stoppedBy` carry it too. */
  message: string;
  /** More about why (JSON-serializable): the output event's `stoppedBy` carries it. */
  details?: Record<string, unknown>;
}

/**
 * Thrown by {@link stopRun}: not a failure. The executor ends the run gracefully with the given stop
 * reason. @internal (users call `stopRun`)
 */
export class RunStop extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;
  readonly reason: MiddlewareStopReason;
  readonly details: Record<string, unknown>;

  constructor({ reason, message, details }: StopRunOptions) {
    super({ name: "RunStop", message });
    this.reason = reason;
    this.details = { ...details, message };
  }

  static override isInstance(error: unknown): error is RunStop {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

/**
 * Ends the run from inside a middleware hook, gracefully: in-flight calls are aborted and the run
 * ends with `stopReason: reason`, `message` as its output and `{ middleware, ...details, message }`
 * as the output event's `stoppedBy` (`"guardrail"` and `"repeated_call"` never make a "generate"
 * call). Never returns.
 *
 * @example
 * ```ts
 * import { type AgentMiddleware, stopRun } from "@agentrx/executors";
 *
 * const tenCalls: AgentMiddleware = {
 *   name: "modelCallLimit",
 *   prepareStep({ iteration }) {
 *     if (iteration >= 10) stopRun({ reason: "budget", message: "Agent stopped: 10 model calls." });
 *   },
 * };
 * ```
 */
export function stopRun(options: StopRunOptions): never {
  throw new RunStop(options);
}
