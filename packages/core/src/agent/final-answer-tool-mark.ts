const FINAL_ANSWER = Symbol.for("agentrx.tool.finalAnswer");

/**
 * Marks `tool` as the tool a tool-calling model gives its final answer through (the executor's
 * `finalAnswerTool(schema)` marks the tool it makes): on the `forceFinalAnswer` turn a built-in
 * tool-calling agent binds only that tool and forces it, so the answer still comes as a call of
 * it. Marks the tool itself (a non-enumerable property) and returns it.
 *
 * @example
 * ```ts
 * import { isFinalAnswerTool, markFinalAnswerTool } from "@agentrx/core";
 *
 * const answer = markFinalAnswerTool({ name: "final_answer" });
 * console.log(isFinalAnswerTool(answer)); // true
 * ```
 */
export function markFinalAnswerTool<T extends object>(tool: T): T {
  Object.defineProperty(tool, FINAL_ANSWER, { value: true, enumerable: false, configurable: true });
  return tool;
}

/**
 * Whether `tool` was marked as the final-answer tool ({@link markFinalAnswerTool}), itself or an
 * object that inherits from it (a tool wrapped as `withApproval` wraps one).
 *
 * @example
 * ```ts
 * import { isFinalAnswerTool } from "@agentrx/core";
 *
 * console.log(isFinalAnswerTool({ name: "final_answer" })); // false: a tool of that name is not marked
 * ```
 */
export function isFinalAnswerTool(tool: unknown): boolean {
  if (typeof tool !== "object" || tool === null) return false;
  return (tool as Record<symbol, unknown>)[FINAL_ANSWER] === true;
}
