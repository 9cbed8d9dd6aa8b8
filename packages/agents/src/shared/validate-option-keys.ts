import { InvalidArgumentError } from "@agentrx/core";
import type { ValidationContext } from "./validate-prompt";

/**
 * Throws an `InvalidArgumentError` naming the first key of `options` that is not in `known`: a
 * misspelt option (`toolImage`) would otherwise leave its default in place. Options of LangChain's
 * constructors that have no counterpart here get a hint saying so.
 *
 * @internal
 */
export function assertOptionKeys(options: object, known: readonly string[], { constructorName }: ValidationContext): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const hint =
      key === "streamRunnable"
        ? " LangChain's `streamRunnable` has no counterpart: an AgentRx agent streams its model's tokens when the run is streamed (executor.stream), so remove it."
        : key === "model" && known.includes("llm")
          ? " The model goes in `llm`."
          : "";
    throw new InvalidArgumentError({
      argument: key,
      value: (options as Record<string, unknown>)[key],
      message: `${constructorName}: unknown option \`${key}\` (it would be ignored). Known options: ${known.join(", ")}.${hint}`,
    });
  }
}
