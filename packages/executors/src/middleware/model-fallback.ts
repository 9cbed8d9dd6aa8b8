import { isAbortError } from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { errorMessage } from "../executor/run-helpers";
import { isOutputParserException } from "../executor/observations";
import type { AgentMiddleware } from "./agent-middleware";
import { MiddlewareError } from "./middleware-error";
import { badOption, isInvokable, modelName } from "./middleware-helpers";
import { RunStop } from "./stop-run";

/**
 * Falls back to other models when the agent's model fails. When an agent call fails with an error
 * that is not a cancellation (nor an unparseable answer, which `handleParsingErrors` deals with),
 * the call is made again with the first fallback model, then the next, until one answers; each
 * switch is recorded as a `middleware` event (`{ fallback, model, error }`). A streamed run's
 * tokens stream live: the text a model wrote before it failed mid-answer, then that event, then
 * the backup's (with an output guardrail, only the backup's: see docs/middleware.md). When every model failed, the run fails with the last error. The agent must take a model per call: the built-in
 * agents of `@agentrx/agents` do.
 *
 * @param models The chat models to fall back to, in order: a non-empty array with a chat model at
 * every index (a sparse array is refused). It takes no options: a second argument is refused.
 *
 * @example
 * ```ts
 * import { createToolCallingAgent } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { AgentExecutor, modelFallback } from "@agentrx/executors";
 * import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
 *
 * const primary = new ScriptedChatModel({ responses: [new Error("503 overloaded")] });
 * const backup = new ScriptedChatModel({ responses: ["Paris."] });
 * const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
 * const agent = createToolCallingAgent({ llm: primary, tools: [], prompt });
 * const executor = new AgentExecutor({ agent, tools: [], middleware: [modelFallback([backup])] });
 * console.log((await executor.invoke({ input: "Capital of France?" })).output); // "Paris."
 * ```
 */
export function modelFallback(models: readonly BaseChatModel[], ...rest: never[]): AgentMiddleware {
  if (!Array.isArray(models) || models.length === 0) badOption("modelFallback", "models", models, "pass a non-empty array of chat models to fall back to, in order.");
  // It takes no options: a second argument (`{ retries }`) would be ignored.
  if (rest.length > 0) badOption("modelFallback", "options", rest[0], "it takes one argument, the array of models to fall back to; to retry a model first, put a retrying middleware before it.");
  // A plain loop: `forEach` skips the holes of a sparse array (`[, backup]`), which would call the failing model again.
  for (let index = 0; index < models.length; index++) {
    const model: unknown = models[index];
    if (!isInvokable(model)) badOption("modelFallback", `models[${index}]`, model, `\`models[${index}]\` is not a @langchain/core chat model${index in models ? "" : " (the array has a hole there)"}.`);
  }
  const list = [...models];
  return {
    name: "modelFallback",
    async wrapModelCall(request, next) {
      let failure: unknown;
      try {
        return await next(request);
      } catch (error) {
        if (!fallsBack(error, request.signal)) throw error;
        failure = error;
      }
      for (let i = 0; i < list.length; i++) {
        const model = list[i] as BaseChatModel;
        request.report({ fallback: i + 1, model: modelName(model), error: errorMessage(failure) });
        try {
          return await next({ ...request, model });
        } catch (error) {
          if (!fallsBack(error, request.signal)) throw error;
          failure = error;
        }
      }
      throw failure;
    },
  };
}

/** A model error another model may not have: not a cancellation, a parse error, or a middleware's. */
function fallsBack(error: unknown, signal: AbortSignal): boolean {
  return !signal.aborted && !isAbortError(error) && !isOutputParserException(error) && !MiddlewareError.isInstance(error) && !RunStop.isInstance(error);
}
