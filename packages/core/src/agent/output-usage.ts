import type { UsageMetadata } from "@langchain/core/messages";
import type { AgentOutput } from "./types";

const USAGE = Symbol.for("agentrx.agentOutput.usage");

/**
 * Attaches the usage of the model call that produced an agent output to it (a hidden property:
 * not enumerable, not serialized). Every built-in agent's parser does this, so `invoke` can report
 * a run's usage without watching the model's callbacks. For several actions, the first carries it.
 *
 * @example
 * ```ts
 * import { attachOutputUsage, getOutputUsage } from "@agentrx/core";
 *
 * const finish = attachOutputUsage({ returnValues: { output: "hi" }, log: "hi" }, { input_tokens: 3, output_tokens: 1, total_tokens: 4 });
 * console.log(getOutputUsage(finish)?.total_tokens); // 4
 * ```
 */
export function attachOutputUsage<T extends AgentOutput>(output: T, usage: UsageMetadata | undefined): T {
  if (usage === undefined) return output;
  const target = Array.isArray(output) ? output[0] : output;
  if (typeof target === "object" && target !== null) {
    Object.defineProperty(target, USAGE, { value: usage, enumerable: false, configurable: true, writable: true });
  }
  return output;
}

/**
 * The usage attached to an agent output by {@link attachOutputUsage}, if any.
 *
 * @example
 * ```ts
 * import { getOutputUsage } from "@agentrx/core";
 *
 * console.log(getOutputUsage({ returnValues: { output: "hi" }, log: "" })); // undefined
 * ```
 */
export function getOutputUsage(output: unknown): UsageMetadata | undefined {
  const target = Array.isArray(output) ? output[0] : output;
  if (typeof target !== "object" || target === null) return undefined;
  return (target as Record<symbol, UsageMetadata | undefined>)[USAGE];
}
