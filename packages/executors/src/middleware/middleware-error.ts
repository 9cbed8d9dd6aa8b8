import { AgentRxError, describeThrown } from "@agentrx/core";

const MARKER = "agentrx.error.MiddlewareError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/** The hooks of an `AgentMiddleware`. */
export type MiddlewareHook = "prepareStep" | "wrapModelCall" | "wrapToolCall" | "afterTurn";

/**
 * A middleware's hook threw (or returned something the executor cannot use): the run failed. The
 * message names the middleware and the hook; `cause` is what it threw. Errors that only passed
 * through a middleware (the model's, a tool's) are not wrapped.
 *
 * @example
 * ```ts
 * import { MiddlewareError } from "@agentrx/executors";
 *
 * const error = new MiddlewareError({ middleware: "audit", hook: "afterTurn", cause: new Error("disk full") });
 * console.log(error.message); // 'Middleware "audit" failed in afterTurn: disk full'
 * ```
 */
export class MiddlewareError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;
  /** The middleware's name (`middleware[i]` when it has none). */
  readonly middleware: string;
  readonly hook: MiddlewareHook;

  constructor({ middleware, hook, cause, message }: { middleware: string; hook: MiddlewareHook; cause?: unknown; message?: string }) {
    const reason = message ?? describeThrown(cause);
    super({ name: "MiddlewareError", message: `Middleware "${middleware}" failed in ${hook}: ${reason}`, cause });
    this.middleware = middleware;
    this.hook = hook;
  }

  /** Returns true when `error` is a {@link MiddlewareError} (from any copy of the package). */
  static override isInstance(error: unknown): error is MiddlewareError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
