import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.SteeringInboxFullError";
const SYMBOL = Symbol.for(MARKER);

/**
 * A message was sent to a run (`executor.send`, `sendRunMessage`, `RunClient.send`) while
 * `maxPendingMessages` messages already waited for it (sent, not yet joined): nothing was sent.
 * The message itself is fine and the condition passes as the run takes its messages (at its next
 * turn boundary), so send it again a little later (see docs/steering.md). `@agentrx/serve`
 * answers it as "retry later", not as a bad request.
 *
 * @example
 * ```ts
 * import { SteeringInboxFullError } from "@agentrx/executors";
 *
 * const error = new SteeringInboxFullError({ runId: "r1", limit: 100, pending: 100 });
 * console.log(SteeringInboxFullError.isInstance(error), error.limit); // true 100
 * ```
 */
export class SteeringInboxFullError extends AgentRxError {
  protected readonly [SYMBOL] = true;

  /** The run the message was for. */
  readonly runId: string;
  /** The most messages that may wait for the run (`maxPendingMessages`). */
  readonly limit: number;
  /** How many were counted waiting (or being sent from this process) when the message was refused. */
  readonly pending: number;

  /**
   * @param operation - What refused it (`"AgentExecutor.send"`), the message's prefix.
   */
  constructor({ runId, limit, pending = limit, operation }: { runId: string; limit: number; pending?: number; operation?: string }) {
    super({
      name: "SteeringInboxFullError",
      message: `${operation === undefined ? "" : `${operation}: `}run "${runId}" has ${pending} messages sent to it waiting to join; at most ${limit} may wait (\`maxPendingMessages\`). Send again once it has taken some.`,
    });
    this.runId = runId;
    this.limit = limit;
    this.pending = pending;
  }

  /** Returns true when `error` is a {@link SteeringInboxFullError} (from any copy of the package). */
  static override isInstance(error: unknown): error is SteeringInboxFullError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
