import { AgentRxError, InvalidArgumentError, showValue } from "@agentrx/core";
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
  throw new RunStop(checkStopRun(options));
}

/** The reasons {@link MiddlewareStopReason} names, for the check of a call from JavaScript. */
const MIDDLEWARE_STOP_REASONS: readonly MiddlewareStopReason[] = ["max_iterations", "budget", "guardrail", "repeated_call"];

/** `options` when it is a stop a run can report; else an `InvalidArgumentError` naming what is wrong (nothing it meant is dropped). */
function checkStopRun(options: StopRunOptions): StopRunOptions {
  const fail = (argument: string, value: unknown, what: string): never => {
    throw new InvalidArgumentError({ argument, value, message: `stopRun: ${what}` });
  };
  if (typeof options !== "object" || options === null) fail("options", options, `pass { reason, message, details? }, got ${options === null ? "null" : typeof options}.`);
  const { reason, message, details } = options;
  if (!MIDDLEWARE_STOP_REASONS.includes(reason)) {
    fail("reason", reason, `\`reason\` must be one of ${MIDDLEWARE_STOP_REASONS.join(", ")} (a run's other stop reasons are not a middleware's to give), got ${showValue(reason)}.`);
  }
  if (typeof message !== "string" || message === "") fail("message", message, `\`message\` (the run's output) must be a non-empty string, got ${showValue(message)}.`);
  if (details !== undefined && (typeof details !== "object" || details === null || Array.isArray(details))) {
    fail("details", details, `\`details\` must be an object (what the output event's \`stoppedBy\` carries besides the middleware and message), got ${Array.isArray(details) ? "an array" : showValue(details)}.`);
  }
  return options;
}
