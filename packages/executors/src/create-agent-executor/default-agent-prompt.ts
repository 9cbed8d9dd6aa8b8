import { REACT_FORMAT_INSTRUCTIONS } from "@agentrx/agents";
import type { BaseMessage } from "@langchain/core/messages";
import { BaseMessagePromptTemplate, ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { inputMessages } from "../executor/conversation-memory";

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
 * @returns the prompt. Run by an executor, a run without the user's message (no `input`, or
 *   `undefined`) fails with an `InvalidArgumentError` (`argument: "inputs"`) naming the key
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
  return strategy === "tool-calling"
    ? ChatPromptTemplate.fromMessages([["system", text], history, new UserMessagePromptTemplate(inputKey), new MessagesPlaceholder("agent_scratchpad")])
    : ChatPromptTemplate.fromMessages([
        ["system", `${text}\n\n${REACT_FORMAT_INSTRUCTIONS}`],
        history,
        ["human", `Question: {${inputKey}}\nThought: {agent_scratchpad}`],
      ]);
}

/** `system` as literal template text: `{` and `}` doubled. */
function escapeBraces(system: string): string {
  return system.replaceAll("{", "{{").replaceAll("}", "}}");
}

/**
 * The user's message of the tool-calling prompt, as the thread's memory keeps it: a string as a
 * `HumanMessage`, content blocks (an image with a question) as one `HumanMessage` with that content,
 * a message or a list of messages as they are. A `{input}` template would write the blocks as
 * their JSON text.
 */
class UserMessagePromptTemplate extends BaseMessagePromptTemplate {
  static lc_name(): string {
    return "UserMessagePromptTemplate";
  }

  override lc_namespace = ["agentrx", "prompts"];

  constructor(private readonly key: string) {
    super({});
  }

  get inputVariables(): string[] {
    return [this.key];
  }

  async formatMessages(values: Record<string, unknown>): Promise<BaseMessage[]> {
    return inputMessages(values[this.key]);
  }
}
