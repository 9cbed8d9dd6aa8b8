import { checkOptionKeys, InvalidArgumentError, isMessageStep, type AgentStep } from "@agentrx/core";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describeValue, shownValue } from "../shared/describe";
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
 * Takes its templates in an options object; LangChain classic's positional form
 * `formatLogToMessage(steps, templateToolResponse)` is taken too (see the other overload).
 * Anything else as the second argument (null, an array, a number, a function), a third argument,
 * an unknown option key or a template without its placeholder throws an `InvalidArgumentError`
 * naming it.
 *
 * @param steps The steps so far.
 * @param options The templates; each defaults when left out.
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
export function formatLogToMessages(steps: readonly AgentStep[], options?: FormatLogToMessagesOptions): BaseMessage[];
/**
 * LangChain classic's positional form (`formatLogToMessage(steps, templateToolResponse)`): the same
 * messages as `formatLogToMessages(steps, { templateToolResponse })`. The template must contain
 * `{observation}` (classic's any single `{name}` is refused with an `InvalidArgumentError`), and
 * its text is used as it is (`{{` is not unescaped).
 *
 * @param steps The steps so far.
 * @param templateToolResponse The text of the message that carries each observation; `{observation}` is replaced by it.
 * @example
 * ```ts
 * import { formatLogToMessages } from "@agentrx/agents";
 *
 * const messages = formatLogToMessages(
 *   [{ action: { tool: "search", toolInput: "Paris", log: "Action: search\nAction Input: Paris" }, observation: "Sunny" }],
 *   "Observation: {observation}",
 * );
 * console.log(messages[1]?.text); // "Observation: Sunny"
 * ```
 */
export function formatLogToMessages(steps: readonly AgentStep[], templateToolResponse: string): BaseMessage[];
export function formatLogToMessages(steps: readonly AgentStep[], optionsOrTemplate?: FormatLogToMessagesOptions | string, extra?: unknown): BaseMessage[] {
  const { templateToolResponse = "{observation}", templateUserMessage = "{message}" } = readTemplates(optionsOrTemplate, extra);
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

const OPTION_KEYS = ["templateToolResponse", "templateUserMessage"];

/**
 * The templates of either form: an options object or LangChain classic's positional
 * `templateToolResponse`. Throws an `InvalidArgumentError` for anything else, and for a third
 * argument, so nothing given is silently left unused.
 */
function readTemplates(second: unknown, third: unknown): FormatLogToMessagesOptions {
  if (third !== undefined) {
    throw new InvalidArgumentError({
      argument: "arguments[2]",
      value: third,
      message: `formatLogToMessages: takes no third argument (pass \`templateUserMessage\` in an options object), got ${shownValue(third)}.`,
    });
  }
  if (second === undefined) return {};
  if (typeof second === "string") return { templateToolResponse: second };
  if (typeof second !== "object" || second === null || Array.isArray(second)) {
    throw new InvalidArgumentError({
      argument: "options",
      value: second,
      message:
        "formatLogToMessages: the second argument must be an options object { templateToolResponse?, templateUserMessage? } or a string (the templateToolResponse, " +
        `as in LangChain classic's formatLogToMessage(steps, templateToolResponse)), got ${describeValue(second)}.`,
    });
  }
  checkOptionKeys("formatLogToMessages", second, OPTION_KEYS);
  return second as FormatLogToMessagesOptions;
}

/** Throws an `InvalidArgumentError` naming `argument` unless `template` is a string with `placeholder`. */
function assertTemplate(argument: string, template: unknown, placeholder: string): asserts template is string {
  if (typeof template === "string" && template.includes(placeholder)) return;
  const expected = typeof template === "string" ? `must contain "${placeholder}"` : `must be a string containing "${placeholder}"`;
  throw new InvalidArgumentError({
    argument,
    value: template,
    message: `formatLogToMessages: \`${argument}\` ${expected}, got ${shownValue(template)}.`,
  });
}
