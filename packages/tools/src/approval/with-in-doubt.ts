import { type InDoubtPolicy, InvalidArgumentError, isInDoubtPolicy, markToolInDoubt, showValue } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";

/**
 * The tool, with its own policy for calls *in doubt*: a call recorded as started with no recorded
 * result when its run is resumed (the process died, or the run was cancelled, while it ran).
 * `"retry"` runs it again with the same idempotency key (right for idempotent tools and for APIs
 * that honour `getIdempotencyKey`), `"interrupt"` pauses the run until a person approves a retry,
 * rejects the call or supplies its result, `"fail"` fails the run. It overrides the executor's
 * `inDoubt` option for this tool (see docs/runs.md).
 *
 * The tool itself is not changed: the returned tool inherits from it.
 *
 * @example
 * ```ts
 * import { withInDoubt } from "@agentrx/tools";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const transfer = tool(async ({ cents }) => `sent ${cents}`, {
 *   name: "transfer", description: "Sends money.", schema: z.object({ cents: z.number() }),
 * });
 * // Never sent twice by a resume: a person decides what happened.
 * const careful = withInDoubt(transfer, "interrupt");
 * console.log(careful.name); // "transfer"
 * ```
 */
export function withInDoubt<T extends StructuredToolInterface>(tool: T, policy: InDoubtPolicy): T {
  if (typeof tool !== "object" || tool === null || typeof tool.name !== "string" || typeof tool.invoke !== "function") {
    throw new InvalidArgumentError({ argument: "tool", value: tool, message: "withInDoubt: `tool` must be a @langchain/core tool (with a name and an invoke method)." });
  }
  if (!isInDoubtPolicy(policy)) {
    throw new InvalidArgumentError({ argument: "policy", value: policy, message: `withInDoubt: \`policy\` must be "retry", "interrupt" or "fail", got ${showValue(policy)}.` });
  }
  return markToolInDoubt(tool, policy);
}
