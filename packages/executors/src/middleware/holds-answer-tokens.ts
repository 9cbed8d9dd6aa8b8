// Which middleware needs a model call's streamed tokens held until the call's output has passed it
// (an output guardrail): the run then emits them only once the agent call returned (internal).
import type { AgentMiddleware } from "./agent-middleware";

const HOLDS = Symbol.for("agentrx.middleware.holdsAnswerTokens");

/** Marks `middleware` as checking the answer after the model call: the run holds the call's tokens until it returns. @internal */
export function markHoldsAnswerTokens(middleware: AgentMiddleware): void {
  Object.defineProperty(middleware, HOLDS, { value: true, enumerable: false });
}

/** Whether any of `middleware` checks the answer after the model call (see {@link markHoldsAnswerTokens}). @internal */
export function holdsAnswerTokens(middleware: readonly AgentMiddleware[] | undefined): boolean {
  return middleware !== undefined && middleware.some((one) => (one as unknown as Record<symbol, unknown>)[HOLDS] === true);
}
