import { REACT_FORMAT_INSTRUCTIONS } from "@agentrx/agents";
import { InvalidArgumentError } from "@agentrx/core";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";

/**
 * The system message of `createAgentExecutor` when none is given.
 *
 * @example
 * ```ts
 * import { DEFAULT_SYSTEM, createAgentExecutor } from "@agentrx/executors";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const executor = createAgentExecutor({ model: new ScriptedChatModel({ responses: ["Hi"] }), tools: [], system: `${DEFAULT_SYSTEM} Answer in French.` });
 * ```
 */
export const DEFAULT_SYSTEM = "You are a helpful assistant. Use the tools when they help you answer.";


/**
 * The prompt `createAgentExecutor` gives its agent: the system message, the conversation so
 * far (`chat_history`, optional: filled by the executor's `memory`), the `input`, and the
 * scratchpad, as tool messages for a tool-calling model or as ReAct text for a text model.
 *
 * @param system the system message (braces in it are text, not template variables)
 * @param strategy `"tool-calling"` or `"react"`
 * @param keys the inputs that hold the history and the user's message (the executor's
 *   `memory.historyKey` and `memory.inputKey`), `chat_history` and `input` by default
 * @returns the prompt; formatting it without the user's message (no `input`, or `undefined`)
 *   throws an `InvalidArgumentError` (`argument: "inputs"`) naming that key and the inputs given
 * @example
 * ```ts
 * import { createDefaultAgentPrompt } from "@agentrx/executors";
 *
 * console.log(createDefaultAgentPrompt("You answer in French.", "tool-calling").inputVariables); // ["input", "agent_scratchpad"]
 * ```
 */
export function createDefaultAgentPrompt(
  system: string,
  strategy: "tool-calling" | "react",
  { historyKey = "chat_history", inputKey = "input" }: { historyKey?: string; inputKey?: string } = {},
): ChatPromptTemplate {
  const text = escapeBraces(system);
  const history = new MessagesPlaceholder({ variableName: historyKey, optional: true });
  const prompt = (
    strategy === "tool-calling"
      ? DefaultAgentPrompt.fromMessages([["system", text], history, ["human", `{${inputKey}}`], new MessagesPlaceholder("agent_scratchpad")])
      : DefaultAgentPrompt.fromMessages([
          ["system", `${text}\n\n${REACT_FORMAT_INSTRUCTIONS}`],
          history,
          ["human", `Question: {${inputKey}}\nThought: {agent_scratchpad}`],
        ])
  ) as DefaultAgentPrompt;
  prompt.userInputKey = inputKey;
  prompt.historyKey = historyKey;
  return prompt;
}

/** The values the agent adds to the run's inputs before its prompt: not the caller's inputs. */
const AGENT_VALUES: ReadonlySet<string> = new Set(["agent_scratchpad", "tools", "tool_names"]);

/**
 * The default prompt, which refuses to format without the user's message: LangChain's own error
 * (``Missing value for input variable `input` ``) names neither the inputs given nor the fix, and
 * an `undefined` message would reach the model as the text "undefined".
 */
class DefaultAgentPrompt extends ChatPromptTemplate {
  /** The input that holds the user's message. */
  userInputKey = "input";
  /** The input that holds the history (which `memory` may have filled: not listed as given). */
  historyKey = "chat_history";

  override async formatMessages(values: Record<string, unknown>): Promise<BaseMessage[]> {
    const key = this.userInputKey;
    if (values[key] === undefined) {
      const given = Object.fromEntries(Object.entries(values).filter(([name]) => !AGENT_VALUES.has(name) && name !== this.historyKey));
      const names = Object.keys(given);
      const found = key in given ? `\`${key}\` is undefined` : names.length === 0 ? "no inputs were given" : `the inputs given are ${names.map((name) => `\`${name}\``).join(", ")}`;
      const renamed = key === "input" ? "" : "; `memory.inputKey` names it";
      throw new InvalidArgumentError({
        argument: "inputs",
        value: given,
        message: `createAgentExecutor: the inputs have no \`${key}\` (the user's message, which the agent's prompt reads${renamed}); ${found}. Call executor.invoke({ ${key}: "..." }).`,
      });
    }
    return super.formatMessages(values);
  }
}

/** `system` as literal template text: `{` and `}` doubled. */
function escapeBraces(system: string): string {
  return system.replaceAll("{", "{{").replaceAll("}", "}}");
}
