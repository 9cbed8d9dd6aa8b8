import { type ApprovalContext, InvalidArgumentError, markToolApproval } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { type InferInteropZodOutput, type InteropZodType, interopSafeParseAsync, isInteropZodSchema } from "@langchain/core/utils/types";

/**
 * The input a tool's `needsApproval` function receives: the tool's zod schema's output type, or
 * `unknown` for a tool described by JSON Schema.
 *
 * @example
 * ```ts
 * import type { ToolInputOf } from "@agentrx/tools";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const refund = tool(async ({ amount }) => `refunded ${amount}`, {
 *   name: "refund", description: "Refunds an order.", schema: z.object({ amount: z.number() }),
 * });
 * const input: ToolInputOf<typeof refund> = { amount: 120 };
 * ```
 */
export type ToolInputOf<T> = T extends { schema: infer S } ? (S extends InteropZodType ? InferInteropZodOutput<S> : unknown) : unknown;

/**
 * Whether a call needs approval: a function of the tool's input (typed from its schema) and the
 * run's context, or a boolean for every call.
 *
 * @example
 * ```ts
 * import type { NeedsApproval } from "@agentrx/tools";
 *
 * const overLimit: NeedsApproval<{ amount: number }> = (input) => input.amount > 100;
 * ```
 */
export type NeedsApproval<TInput = unknown> = boolean | ((input: TInput, context: ApprovalContext) => boolean | Promise<boolean>);

/**
 * The tool, asking for a person's approval before it runs: before every call (`needsApproval`
 * omitted or `true`), or when `needsApproval(input, context)` returns (or resolves to) `true`.
 * An `AgentExecutor` that meets such a call runs the turn's other calls, then pauses the run with
 * an `interrupt` event and `stopReason: "interrupted"`; `executor.resume(runId, { decisions })`
 * continues it, in this process or another (see docs/approval.md).
 *
 * The tool itself is not changed: the returned tool inherits from it. `withPolicies` (and the
 * `withTimeout`, `withRetry`... helpers) keep the mark on the tool they return.
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
 * const guarded = withApproval(refund, (input) => input.amount > 100);
 * ```
 */
export function withApproval<T extends StructuredToolInterface>(tool: T, needsApproval: NeedsApproval<ToolInputOf<T>> = true): T {
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
  if (needsApproval === true) return markToolApproval(tool, true);
  const decide = needsApproval;
  const schema: unknown = tool.schema;
  if (!isInteropZodSchema(schema)) return markToolApproval(tool, (input, context) => decide(input as ToolInputOf<T>, context));
  return markToolApproval(tool, async (input, context) => {
    let parsed = await interopSafeParseAsync(schema, input);
    // A JSON object given as a string: the executor runs the tool with the object, so decide on it.
    if (!parsed.success && typeof input === "string") parsed = await interopSafeParseAsync(schema, jsonOf(input));
    return parsed.success ? decide(parsed.data as ToolInputOf<T>, context) : false;
  });
}

/** The JSON value in `text`, else `text` itself. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
