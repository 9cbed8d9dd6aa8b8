import { linkAbortSignal } from "@agentrx/core";

/**
 * A run's abort controllers, made and aborted in one place. `signal` is the one the loop's agent
 * and tool calls listen on: a halt (a limit, a stop condition) aborts it, and so does the run's
 * end by failure or cancellation (`abortAll`). `child()` makes a controller linked to it, for a
 * tool call started early (which is also aborted on its own when its turn does not keep it).
 * `finalSignal()` is the signal of the one "generate" call after a halt: only `abortAll` aborts it.
 *
 * @internal
 */
export class RunAbortScope {
  /** Aborts the loop's agent and tool calls (and the children): on a halt, a failure or a cancellation. */
  private readonly work = new AbortController();
  /** Aborts the one "generate" call after a halt: only on a failure or a cancellation. Made when asked for. */
  private final: AbortController | undefined;

  /** The signal the loop's agent and tool calls listen on. */
  get signal(): AbortSignal {
    return this.work.signal;
  }

  /** A controller that aborts with `signal` (with its reason) until `unlink` is called. */
  child(): { controller: AbortController; unlink: () => void } {
    const controller = new AbortController();
    return { controller, unlink: linkAbortSignal(this.work.signal, controller) };
  }

  /** A new signal for the one "generate" call after a halt; only `abortAll` aborts it. */
  finalSignal(): AbortSignal {
    return (this.final = new AbortController()).signal;
  }

  /** A limit or a stop condition halted the loop: its calls stop (not the "generate" call after it). */
  halt(reason: unknown): void {
    this.work.abort(reason);
  }

  /** The run failed or was cancelled: everything it started stops. */
  abortAll(reason: unknown): void {
    this.work.abort(reason);
    this.final?.abort(reason);
  }
}
