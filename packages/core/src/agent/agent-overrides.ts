import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";

/**
 * The `config.configurable` key under which the executor passes an agent the chat model to use for
 * one call instead of its own (set by a middleware's `prepareStep` or `modelFallback`). Agents that
 * honour it say so with {@link AGENT_OVERRIDES}; the built-in agents of `@agentrx/agents` do.
 */
export const AGENT_MODEL_KEY = "__agentrx_model";

/** The `config.configurable` key under which the executor passes an agent the tools to offer for one call. */
export const AGENT_TOOLS_KEY = "__agentrx_tools";

/**
 * The property an agent runnable sets to `true` when it reads {@link AGENT_MODEL_KEY} and
 * {@link AGENT_TOOLS_KEY} (the built-in agents do). The executor refuses to swap the model or the
 * tools of an agent without it, instead of silently calling the agent's own model.
 *
 * @example
 * ```ts
 * import { AGENT_OVERRIDES, acceptsOverrides } from "@agentrx/core";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = Object.assign(RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" })), { [AGENT_OVERRIDES]: true });
 * console.log(acceptsOverrides(agent)); // true
 * ```
 */
export const AGENT_OVERRIDES = "acceptsAgentOverrides";

/** Whether `agent` reads the model and tools overrides of a call (see {@link AGENT_OVERRIDES}). */
export function acceptsOverrides(agent: unknown): boolean {
  return typeof agent === "object" && agent !== null && (agent as Record<string, unknown>)[AGENT_OVERRIDES] === true;
}

/**
 * The model and tools a call's config asks the agent to use instead of its own, if any.
 *
 * @example
 * ```ts
 * import { AGENT_MODEL_KEY, getAgentOverrides } from "@agentrx/core";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const model = new ScriptedChatModel({ responses: ["hi"] });
 * console.log(getAgentOverrides({ configurable: { [AGENT_MODEL_KEY]: model } }).model === model); // true
 * ```
 */
export function getAgentOverrides(config: RunnableConfig | undefined): { model?: BaseChatModel; tools?: readonly StructuredToolInterface[] } {
  const configurable = config?.configurable;
  if (configurable === undefined) return NONE;
  const model = configurable[AGENT_MODEL_KEY] as BaseChatModel | undefined;
  const tools = configurable[AGENT_TOOLS_KEY] as readonly StructuredToolInterface[] | undefined;
  if (model === undefined && tools === undefined) return NONE;
  return { ...(model === undefined ? {} : { model }), ...(tools === undefined ? {} : { tools }) };
}

const NONE: { model?: BaseChatModel; tools?: readonly StructuredToolInterface[] } = Object.freeze({});
