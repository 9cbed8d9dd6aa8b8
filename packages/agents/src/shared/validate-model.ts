import { InvalidArgumentError } from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModel } from "@langchain/core/language_models/base";
import { UnsupportedModelError } from "../errors/unsupported-model-error";
import type { ValidationContext } from "./validate-prompt";

/** Throws an {@link UnsupportedModelError} unless `llm` is a chat model with `bindTools`. */
export function assertToolCallingModel(llm: unknown, context: ValidationContext): asserts llm is BaseChatModel {
  assertModel(llm, context);
  if (typeof (llm as { bindTools?: unknown }).bindTools !== "function") {
    throw new UnsupportedModelError({
      agentType: context.agentType,
      requirement: "tool-calling",
      message:
        `${context.constructorName}: the model has no bindTools method, so it cannot call tools natively. ` +
        `Use a chat model that supports tool calling, or a text agent such as createReactAgent.`,
    });
  }
}

/** Throws an `InvalidArgumentError` unless `llm` is a `@langchain/core` language model. */
export function assertModel(llm: unknown, { constructorName }: ValidationContext): asserts llm is BaseLanguageModel {
  if (typeof llm !== "object" || llm === null || typeof (llm as { invoke?: unknown }).invoke !== "function" ||
    typeof (llm as { withConfig?: unknown }).withConfig !== "function") {
    throw new InvalidArgumentError({
      argument: "llm",
      value: llm,
      message: `${constructorName}: \`llm\` must be a @langchain/core language model (a chat model or an LLM).`,
    });
  }
}

/** Returns true when `llm` supports native tool calling (has a `bindTools` method). */
export function supportsToolCalling(llm: unknown): boolean {
  return typeof llm === "object" && llm !== null && typeof (llm as { bindTools?: unknown }).bindTools === "function";
}
