import { InvalidArgumentError, isMessageStep, type AgentStep } from "@agentrx/core";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describeValue } from "../shared/describe";
import { observationText } from "../shared/observation-text";

/** Options of {@link formatLogToMessages}. */
export interface FormatLogToMessagesOptions {
  /**
   * The text of the message that carries each observation; `{observation}` is replaced by it.
   * @default "{observation}"
   */
  templateToolResponse?: string;
  /**
   * The text of the `HumanMessage` that carries a message sent to the run (a message step, see
   * `executor.send`); `{message}` is replaced by its text. By default the message is passed on as
   * it was sent.
   * @default "{message}"
   */
  templateUserMessage?: string;
}

/**
 * Formats the steps of a text agent as chat messages for a `MessagesPlaceholder` scratchpad: each
 * action's log as an `AIMessage`, then its observation as a `HumanMessage`; a message sent to the
 * run (a message step) as a `HumanMessage` of its own (see `templateUserMessage`).
 *
 * @example
 * ```ts
 * import { formatLogToMessages } from "@agentrx/agents";
 *
 * const messages = formatLogToMessages(
 *   [{ action: { tool: "search", toolInput: "Paris", log: "Action: search\nAction Input: Paris" }, observation: "Sunny" }],
 *   { templateToolResponse: "Observation: {observation}" },
 * );
 * console.log(messages.map((message) => message.text)); // ["Action: search\nAction Input: Paris", "Observation: Sunny"]
 * ```
 */
export function formatLogToMessages(
  steps: readonly AgentStep[],
  { templateToolResponse = "{observation}", templateUserMessage = "{message}" }: FormatLogToMessagesOptions = {},
): BaseMessage[] {
  assertTemplate("templateToolResponse", templateToolResponse, "{observation}");
  assertTemplate("templateUserMessage", templateUserMessage, "{message}");
  const messages: BaseMessage[] = [];
  for (const step of steps) {
    const { action, observation } = step;
    if (isMessageStep(step)) {
      if (templateUserMessage === "{message}") messages.push(new HumanMessage({ content: observation as HumanMessage["content"] }));
      else messages.push(new HumanMessage(templateUserMessage.split("{message}").join(observationText(observation))));
      continue;
    }
    messages.push(new AIMessage(action.log));
    messages.push(new HumanMessage(templateToolResponse.split("{observation}").join(observationText(observation))));
  }
  return messages;
}

/** Throws an `InvalidArgumentError` naming `argument` unless `template` is a string with `placeholder`. */
function assertTemplate(argument: string, template: unknown, placeholder: string): asserts template is string {
  if (typeof template === "string" && template.includes(placeholder)) return;
  const expected = typeof template === "string" ? `must contain "${placeholder}"` : `must be a string containing "${placeholder}"`;
  throw new InvalidArgumentError({
    argument,
    value: template,
    message: `formatLogToMessages: \`${argument}\` ${expected}, got ${typeof template === "string" ? JSON.stringify(template) : describeValue(template)}.`,
  });
}
