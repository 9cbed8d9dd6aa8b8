import { InvalidArgumentError, markToolApproval, type ToolApproval } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";

/**
 * The tool, asking for a person's approval before it runs: before every call (`needsApproval`
 * omitted or `true`), or when `needsApproval(input, context)` returns (or resolves to) `true`.
 * An `AgentExecutor` that meets such a call runs the turn's other calls, then pauses the run with
 * an `interrupt` event and `stopReason: "interrupted"`; `executor.resume(runId, { decisions })`
 * continues it, in this process or another (see docs/approval.md).
 *
 * The tool itself is not changed: the returned tool inherits from it. Apply `withApproval` last
 * (outside `withPolicies`), so the executor sees the mark.
 *
 * @example
 * ```ts
 * import { withApproval } from "@agentrx/tools";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const refund = tool(async ({ amount }) => `refunded ${amount}`, {
 *   name: "refund", description: "Refunds an order.", schema: z.object({ amount: z.number() }),
 * });
 * // Only refunds over 100 need a person.
 * const guarded = withApproval(refund, (input) => (input as { amount: number }).amount > 100);
 * ```
 */
export function withApproval<T extends StructuredToolInterface>(tool: T, needsApproval: ToolApproval | boolean = true): T {
  if (typeof tool !== "object" || tool === null || typeof tool.name !== "string" || typeof tool.invoke !== "function") {
    throw new InvalidArgumentError({ argument: "tool", value: tool, message: "withApproval: `tool` must be a @langchain/core tool (with a name and an invoke method)." });
  }
  if (needsApproval === false) return tool;
  if (needsApproval !== true && typeof needsApproval !== "function") {
    throw new InvalidArgumentError({
      argument: "needsApproval",
      value: needsApproval,
      message: `withApproval: \`needsApproval\` must be true, false or a function (input, context) => boolean, got ${typeof needsApproval}.`,
    });
  }
  return markToolApproval(tool, needsApproval);
}
