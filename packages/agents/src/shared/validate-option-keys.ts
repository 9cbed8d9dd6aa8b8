import { checkOptionKeys } from "@agentrx/core";
import type { ValidationContext } from "./validate-prompt";

/** Keys of LangChain's agent constructors that have no option here, and what to do instead. */
const LANGCHAIN_HINTS: Readonly<Record<string, string>> = {
  streamRunnable:
    "LangChain's `streamRunnable` has no counterpart: an AgentRx agent streams its model's tokens when the run is streamed (executor.stream), so remove it",
};

/**
 * Throws an `InvalidArgumentError` naming the first key of `options` that is not in `known`: a
 * misspelt option (`toolImage`) would otherwise leave its default in place. Options of LangChain's
 * constructors that have no counterpart here, and `model` for a constructor taking `llm`, get a
 * hint saying so.
 *
 * @internal
 */
export function assertOptionKeys(options: object, known: readonly string[], { constructorName }: ValidationContext): void {
  const hints = known.includes("llm") ? { ...LANGCHAIN_HINTS, model: "the model goes in `llm`" } : LANGCHAIN_HINTS;
  checkOptionKeys(constructorName, options, known, { hints });
}
