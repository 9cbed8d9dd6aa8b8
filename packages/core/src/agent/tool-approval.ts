import type { AgentAction } from "./types";

const APPROVAL = Symbol.for("agentrx.tool.needsApproval");

/** What an approval check sees besides the tool's input. */
export interface ApprovalContext {
  /** The run asking. */
  runId: string;
  /** The run's conversation, if any. */
  threadId?: string;
  /** The action that would call the tool. */
  action: AgentAction;
}

/**
 * Whether a tool call needs a person's approval: `true` (every call) or a function of the call's
 * input and the run's context.
 */
export type ToolApproval = true | ((input: unknown, context: ApprovalContext) => boolean | Promise<boolean>);

/**
 * Marks `tool` as needing approval (returns a new object that inherits from it; the tool itself is
 * not changed). `withApproval` in `@agentrx/tools` is the user-facing way; this is what it uses.
 *
 * @example
 * ```ts
 * import { getToolApproval, markToolApproval } from "@agentrx/core";
 *
 * const guarded = markToolApproval({ name: "delete_file" }, true);
 * console.log(getToolApproval(guarded)); // true
 * ```
 */
export function markToolApproval<T extends object>(tool: T, approval: ToolApproval): T {
  const marked = Object.create(tool) as T;
  Object.defineProperty(marked, APPROVAL, { value: approval, enumerable: false });
  return marked;
}

/**
 * The approval a tool was marked with ({@link markToolApproval}), if any.
 *
 * @example
 * ```ts
 * import { getToolApproval } from "@agentrx/core";
 *
 * console.log(getToolApproval({ name: "search" })); // undefined
 * ```
 */
export function getToolApproval(tool: unknown): ToolApproval | undefined {
  if (typeof tool !== "object" || tool === null) return undefined;
  return (tool as Record<symbol, ToolApproval | undefined>)[APPROVAL];
}
