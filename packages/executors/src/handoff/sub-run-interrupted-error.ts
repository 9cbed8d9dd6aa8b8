import { AgentRxError } from "@agentrx/core";
import type { Interrupt } from "../executor/events";

const MARKER = "agentrx.error.SubRunInterruptedError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * The agent a tool ran as a sub-run (a `handoff`, or an executor's `asTool`) paused for approval
 * (its run ended with `stopReason: "interrupted"`): the tool has no answer to give. When the sub-run
 * can be resumed (`resumable`: the call's agent's executor has a store) and the calling run is
 * recorded, the calling run pauses with the sub-run's interrupts (see docs/agent-types.md, "Pauses
 * inside a handoff"); only a `wrapToolCall` middleware sees this error then, as its `next`
 * rejecting (the run pauses whatever it does with it). Otherwise the tool call fails with it rather
 * than answer `""`; the paused run is the other executor's to decide
 * (`executor.resume(runId, { decisions })`).
 *
 * @example
 * ```ts
 * import { SubRunInterruptedError } from "@agentrx/executors";
 *
 * const error = new SubRunInterruptedError({ tool: "transfer_to_billing", runId: "handoff:r1:0:call_1", waitingOn: ["refund"] });
 * console.log(SubRunInterruptedError.isInstance(error), error.runId, error.resumable); // true "handoff:r1:0:call_1" false
 * ```
 */
export class SubRunInterruptedError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The name of the tool that ran the sub-run. */
  readonly tool: string;
  /** The paused run of the other executor. */
  readonly runId: string;
  /** The tools whose calls wait for a decision. */
  readonly waitingOn: readonly string[];
  /** The sub-run's interrupts, as its `interrupt` event listed them (empty when not known). */
  readonly interrupts: readonly Interrupt[];
  /**
   * Whether the sub-run is recorded where the tool finds it again: a retry of the same call (same
   * idempotency key) resumes it, with decisions when it is given some. A recorded calling run
   * then pauses instead of failing the call.
   */
  readonly resumable: boolean;

  constructor({
    tool,
    runId,
    waitingOn,
    interrupts = [],
    resumable = false,
  }: {
    tool: string;
    runId: string;
    waitingOn: readonly string[];
    /** @default [] */
    interrupts?: readonly Interrupt[];
    /** @default false */
    resumable?: boolean;
  }) {
    const calls = waitingOn.length > 0 ? ` (waiting on ${waitingOn.map((name) => `"${name}"`).join(", ")})` : "";
    super({
      name: "SubRunInterruptedError",
      message:
        `Tool "${tool}": the other agent's run "${runId}" paused for approval${calls}, so the tool has no answer to give. ` +
        "A calling run that is recorded pauses with it when that agent's executor has a store (see docs/agent-types.md, \"Pauses inside a handoff\"); " +
        "else decide it with that agent's executor (resume(runId, { decisions })), or give that agent no approval step.",
    });
    this.tool = tool;
    this.runId = runId;
    this.waitingOn = [...waitingOn];
    this.interrupts = [...interrupts];
    this.resumable = resumable;
  }

  /** Returns true when `error` is a {@link SubRunInterruptedError} (from any copy of the package). */
  static override isInstance(error: unknown): error is SubRunInterruptedError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
