import { AgentRxError, describeThrown } from "@agentrx/core";
import type { StopReason } from "../executor/events";

const MARKER = "agentrx.error.HandoffFailedError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * The other agent of a `handoff` did not answer: its run failed (its model or a tool of its threw,
 * say) or could not go on (cancelled, or held by another process, on a resume), or it stopped at one of its own limits
 * (`maxIterations`, `maxExecutionTime`, a budget of its `stopWhen`). The handoff call fails with
 * this error instead of returning directly: its step is marked `failed` and `handoffFailed`, and
 * its observation (this message, with `handleToolRuntimeErrors` on) goes back to the calling
 * agent's model, which can answer itself or try another route (see docs/agent-types.md,
 * "Handoffs").
 *
 * @example
 * ```ts
 * import { HandoffFailedError } from "@agentrx/executors";
 *
 * const error = new HandoffFailedError({ tool: "to_billing", cause: new Error("billing model down") });
 * console.log(HandoffFailedError.isInstance(error), error.message.startsWith('handoff "to_billing": the other agent did not answer')); // true true
 * ```
 */
export class HandoffFailedError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The handoff tool's name. */
  readonly tool: string;
  /** Set when the other agent stopped at a limit of its own: why (`max_iterations`, `max_execution_time`, `budget`). */
  readonly stopReason: StopReason | undefined;
  /** With `stopReason`: what the other agent's run answered when it stopped (its stop sentence, or what a `"generate"` call made). */
  readonly output: string | undefined;

  constructor({ tool, cause, stopped }: { tool: string; cause?: unknown; stopped?: { stopReason: StopReason; output: string } }) {
    // A cause of the handoff's own (the other agent's run cancelled, or held elsewhere) names it already.
    const label = `handoff "${tool}": `;
    const failure = describeThrown(cause, "the other agent");
    const why =
      stopped === undefined
        ? `the other agent did not answer (${failure.startsWith(label) ? failure.slice(label.length) : failure}).`
        : `the other agent stopped at a limit of its own (${stopped.stopReason}) before it answered; it said: ${JSON.stringify(stopped.output)}.`;
    super({
      name: "HandoffFailedError",
      message: `handoff "${tool}": ${why} The conversation is back with you: answer the user yourself, or try another route.`,
      ...(cause === undefined ? {} : { cause }),
    });
    this.tool = tool;
    this.stopReason = stopped?.stopReason;
    this.output = stopped?.output;
  }

  /** Returns true when `error` is a {@link HandoffFailedError} (from any copy of the package). */
  static override isInstance(error: unknown): error is HandoffFailedError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
