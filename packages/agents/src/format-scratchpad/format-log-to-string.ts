import { checkOptionKeys, InvalidArgumentError, isMessageStep, type AgentStep } from "@agentrx/core";
import { describeValue, shownValue } from "../shared/describe";
import { observationText } from "../shared/observation-text";

/** Options of {@link formatLogToString}. */
export interface FormatLogToStringOptions {
  /** The text before each observation. @default "Observation: " */
  observationPrefix?: string;
  /** The text that prompts the model's next thought. @default "Thought: " */
  llmPrefix?: string;
}

/**
 * Formats the steps of a text agent as one string for its `agent_scratchpad`: each action's log
 * (the model's own text), then `\n<observationPrefix><observation>\n<llmPrefix>`.
 *
 * Takes its prefixes in an options object; LangChain classic's positional form
 * `formatLogToString(steps, observationPrefix, llmPrefix)` is taken too (see the other overload).
 * Anything else as the second argument (null, an array, a number, a function), an option that is
 * not a string, or an unknown option key throws an `InvalidArgumentError` naming it.
 *
 * @param steps The steps so far.
 * @param options The prefixes; each defaults when left out.
 * @example
 * ```ts
 * import { formatLogToString } from "@agentrx/agents";
 *
 * const text = formatLogToString([
 *   { action: { tool: "search", toolInput: "Paris", log: "Thought: look it up\nAction: search\nAction Input: Paris" }, observation: "Sunny" },
 * ]);
 * console.log(text); // "...Action Input: Paris\nObservation: Sunny\nThought: "
 * ```
 */
export function formatLogToString(steps: readonly AgentStep[], options?: FormatLogToStringOptions): string;
/**
 * LangChain classic's positional form: the same text as
 * `formatLogToString(steps, { observationPrefix, llmPrefix })`. Each prefix left out (or
 * `undefined`) takes its default; a prefix that is not a string throws an `InvalidArgumentError`.
 *
 * @param steps The steps so far.
 * @param observationPrefix The text before each observation (by default `"Observation: "`).
 * @param llmPrefix The text that prompts the model's next thought (by default `"Thought: "`).
 * @example
 * ```ts
 * import { formatLogToString } from "@agentrx/agents";
 *
 * const text = formatLogToString([{ action: { tool: "search", toolInput: "Paris", log: "Action: search\nAction Input: Paris" }, observation: "Sunny" }], "Obs: ", "Th: ");
 * console.log(text); // "Action: search\nAction Input: Paris\nObs: Sunny\nTh: "
 * ```
 */
export function formatLogToString(steps: readonly AgentStep[], observationPrefix?: string, llmPrefix?: string): string;
export function formatLogToString(steps: readonly AgentStep[], optionsOrObservationPrefix?: FormatLogToStringOptions | string, classicLlmPrefix?: string): string {
  const { observationPrefix = "Observation: ", llmPrefix = "Thought: " } = readPrefixes(optionsOrObservationPrefix, classicLlmPrefix);
  let text = "";
  for (const step of steps) {
    const { action, observation } = step;
    if (isMessageStep(step)) {
      // A message sent to the run between turns (executor.send): said as the user's, then the next thought.
      text += `\nNew message from the user: ${observationText(observation)}\n${llmPrefix}`;
      continue;
    }
    text += `${action.log}\n${observationPrefix}${observationText(observation)}\n${llmPrefix}`;
  }
  return text;
}

const OPTION_KEYS = ["observationPrefix", "llmPrefix"];

/**
 * The prefixes of either form: an options object (with no third argument) or LangChain classic's
 * positional strings. Throws an `InvalidArgumentError` for anything else, so nothing given is
 * silently left unused.
 */
function readPrefixes(second: unknown, third: unknown): FormatLogToStringOptions {
  if (second === undefined || typeof second === "string") {
    assertPrefix("llmPrefix", third);
    return { observationPrefix: second, llmPrefix: third };
  }
  if (typeof second !== "object" || second === null || Array.isArray(second)) {
    throw new InvalidArgumentError({
      argument: "options",
      value: second,
      message:
        "formatLogToString: the second argument must be an options object { observationPrefix?, llmPrefix? } or a string (the observation prefix, " +
        `as in LangChain classic's formatLogToString(steps, observationPrefix, llmPrefix)), got ${describeValue(second)}.`,
    });
  }
  if (third !== undefined) {
    throw new InvalidArgumentError({
      argument: "llmPrefix",
      value: third,
      message: `formatLogToString: a third argument (LangChain classic's \`llmPrefix\`) is read only after a string observation prefix; with an options object, put \`llmPrefix\` in it. Got ${shownValue(third)}.`,
    });
  }
  checkOptionKeys("formatLogToString", second, OPTION_KEYS);
  const { observationPrefix, llmPrefix } = second as Record<string, unknown>;
  assertPrefix("observationPrefix", observationPrefix);
  assertPrefix("llmPrefix", llmPrefix);
  return { observationPrefix, llmPrefix };
}

/** Throws an `InvalidArgumentError` naming `argument` unless `prefix` is a string or undefined (its default). */
function assertPrefix(argument: string, prefix: unknown): asserts prefix is string | undefined {
  if (prefix === undefined || typeof prefix === "string") return;
  throw new InvalidArgumentError({ argument, value: prefix, message: `formatLogToString: \`${argument}\` must be a string, got ${describeValue(prefix)}.` });
}
