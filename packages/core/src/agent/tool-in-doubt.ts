const IN_DOUBT = Symbol.for("agentrx.tool.inDoubt");

/**
 * What resuming a run does with a tool call that is *in doubt*: recorded as started, with no
 * recorded result (its process died, or the run was cancelled, while the call ran), so it may or
 * may not have had its effect.
 *
 * - `"retry"`: run it again, with the same idempotency key (see {@link getIdempotencyKey}).
 * - `"interrupt"`: pause the run (an interrupt with `reason: "in_doubt"`) until a person approves a
 *   retry, rejects the call, or supplies its result.
 * - `"fail"`: fail the run, naming the call.
 */
export type InDoubtPolicy = "retry" | "interrupt" | "fail";

/** Whether `value` is an {@link InDoubtPolicy}. */
export function isInDoubtPolicy(value: unknown): value is InDoubtPolicy {
  return value === "retry" || value === "interrupt" || value === "fail";
}

/**
 * Marks `tool` with its own in-doubt policy (returns a new object that inherits from it; the tool
 * itself is not changed). `withInDoubt` in `@agentrx/tools` is the user-facing way.
 *
 * @example
 * ```ts
 * import { getToolInDoubt, markToolInDoubt } from "@agentrx/core";
 *
 * const charge = markToolInDoubt({ name: "charge_card" }, "interrupt");
 * console.log(getToolInDoubt(charge)); // "interrupt"
 * ```
 */
export function markToolInDoubt<T extends object>(tool: T, policy: InDoubtPolicy): T {
  const marked = Object.create(tool) as T;
  Object.defineProperty(marked, IN_DOUBT, { value: policy, enumerable: false });
  return marked;
}

/**
 * The in-doubt policy a tool was marked with ({@link markToolInDoubt}), if any.
 *
 * @example
 * ```ts
 * import { getToolInDoubt } from "@agentrx/core";
 *
 * console.log(getToolInDoubt({ name: "search" })); // undefined
 * ```
 */
export function getToolInDoubt(tool: unknown): InDoubtPolicy | undefined {
  if (typeof tool !== "object" || tool === null) return undefined;
  return (tool as Record<symbol, InDoubtPolicy | undefined>)[IN_DOUBT];
}
